/* The website's few scripts on top of the book theme (website/build.py adds this file to every page). */

/* 1. The menus. The theme gives its sidebar buttons their handlers with querySelector, so only the first
   `.primary-toggle` and the first `.secondary-toggle` of a page get one: copies in the top bar that the book
   theme hides. The buttons a reader sees, in the article's header, come later and did nothing
   (pydata-sphinx-theme issue 2451). A click on a button without a handler is passed to the one that has it:
   the lesson list and the page's contents then open as the theme means them to, at every width. */
document.addEventListener(
  "click",
  (event) => {
    for (const kind of [".primary-toggle", ".secondary-toggle"]) {
      const clicked = event.target.closest(kind);
      const bound = document.querySelector(kind);
      if (clicked && bound && clicked !== bound) {
        event.preventDefault();
        event.stopPropagation();
        bound.click();
      }
    }
  },
  true,
);

/* 2. The colour-mode switch goes straight between light and dark. The theme's own click steps through three modes
   (light, the system's, dark), so going dark took two clicks; this click, caught before the theme's, sets the other
   mode the way the theme sets one (the page's data-mode and data-theme, and the browser's storage that every page of
   the site reads). Its icons carry the titles "Light", "Dark" and "System Settings", which its name, "Color mode", did
   not contain (axe-core: label-content-name-mismatch); the name now says the mode it shows and the one it gives. */
const modeNames = { light: "Light", dark: "Dark", auto: "System Settings" };
const setMode = (mode) => {
  const root = document.documentElement;
  root.dataset.mode = mode;
  root.dataset.theme = mode;
  document.querySelectorAll(".dropdown-menu").forEach((menu) => menu.classList.toggle("dropdown-menu-dark", mode === "dark"));
  localStorage.setItem("mode", mode);
  localStorage.setItem("theme", mode);
};
document.addEventListener(
  "click",
  (event) => {
    if (!event.target.closest(".theme-switch-button")) return;
    event.preventDefault();
    event.stopImmediatePropagation();
    setMode(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
  },
  true,
);
const nameTheModeSwitch = () => {
  const mode = document.documentElement.dataset.mode || "light";
  const next = document.documentElement.dataset.theme === "dark" ? "Light" : "Dark";
  document.querySelectorAll(".theme-switch-button").forEach((button) => {
    button.setAttribute("aria-label", `Color mode: ${modeNames[mode] || mode} (click for ${next})`);
  });
};
new MutationObserver(nameTheModeSwitch).observe(document.documentElement, {
  attributes: true,
  attributeFilter: ["data-mode", "data-theme"],
});
document.addEventListener("DOMContentLoaded", nameTheModeSwitch);

/* 2b. The contents drawer closes when a step is chosen. On a phone or a tablet the lesson list and the page's
   contents open as a dialog over most of the screen, which the theme closes only with Escape or a tap beside it.
   A link to a step of this page now closes it first, then goes to the step: the theme, as the dialog closes, gives
   the focus back to the button that opened it, which would scroll the page back to that button. */
document.addEventListener("click", (event) => {
  const link = event.target.closest("dialog[id$='-sidebar-modal'] a[href]");
  const dialog = link && link.closest("dialog");
  if (!dialog || !dialog.open) return;
  const target = new URL(link.href, window.location.href);
  const here = target.origin === window.location.origin && target.pathname === window.location.pathname;
  if (!here || !target.hash) {
    dialog.close();
    return;
  }
  event.preventDefault();
  dialog.addEventListener(
    "close",
    () =>
      setTimeout(() => {
        if (window.location.hash === target.hash) {
          document.getElementById(decodeURIComponent(target.hash.slice(1)))?.scrollIntoView();
        } else {
          window.location.hash = target.hash;
        }
      }),
    { once: true },
  );
  dialog.close();
});

/* 3. A table wider than its column scrolls inside itself (site.css); one that does is made reachable with the
   keyboard, as the theme does for the outputs and code blocks that scroll (axe-core: scrollable-region-focusable). */
const letKeysScrollWideTables = () => {
  document.querySelectorAll(".cell_output table").forEach((table) => {
    if (table.scrollWidth > table.clientWidth) table.tabIndex = 0;
    else table.removeAttribute("tabindex");
  });
};
window.addEventListener("load", letKeysScrollWideTables);
window.addEventListener("resize", letKeysScrollWideTables);

/* 4. The search's excerpts from disk. Sphinx's search fetches each page it lists to quote the lines around the
   words; a page opened from disk (file://) may not read another file, so the excerpts were missing and every
   result threw an error. The build writes every page's text into _static/page-texts.js; on the search page,
   opened from disk, that file answers those requests instead. */
if (window.location.protocol === "file:" && window.location.pathname.endsWith("/search.html")) {
  const root = new URL(document.documentElement.dataset.content_root || "./", window.location.href);
  const texts = new Promise((resolve) => {
    const script = document.createElement("script");
    script.src = new URL("_static/page-texts.js", root).href;
    script.onload = () => resolve(window.SITE_PAGE_TEXTS || {});
    script.onerror = () => resolve({});
    document.head.append(script);
  });
  const fetchFromNetwork = window.fetch.bind(window);
  window.fetch = (resource, options) => {
    const url = new URL(resource instanceof Request ? resource.url : String(resource), window.location.href);
    if (url.protocol !== "file:" || !url.href.startsWith(root.href)) return fetchFromNetwork(resource, options);
    const page = decodeURIComponent(url.href.slice(root.href.length).split(/[?#]/)[0]);
    return texts.then((known) =>
      page in known
        ? new Response(known[page], { headers: { "Content-Type": "text/html" } })
        : new Response("", { status: 404 }),
    );
  };
}
