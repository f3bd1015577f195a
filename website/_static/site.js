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

/* 2. The colour-mode switch. Its icons carry the titles "Light", "Dark" and "System Settings", which its name,
   "Color mode", did not contain (axe-core: label-content-name-mismatch); the name now says the mode it shows. */
const nameTheModeSwitch = () => {
  const mode = document.documentElement.dataset.mode || "light";
  const names = { light: "Light", dark: "Dark", auto: "System Settings" };
  document.querySelectorAll(".theme-switch-button").forEach((button) => {
    button.setAttribute("aria-label", `Color mode: ${names[mode] || mode} (click to change)`);
  });
};
new MutationObserver(nameTheModeSwitch).observe(document.documentElement, {
  attributes: true,
  attributeFilter: ["data-mode"],
});
document.addEventListener("DOMContentLoaded", nameTheModeSwitch);

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
