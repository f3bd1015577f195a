// The classroom view's page script: the room's scale, and accessible names the rendered page lacks.
(function () {
  // ?scale=1.25 makes everything a quarter larger: the teacher sets it for the room
  var scale = parseFloat(new URLSearchParams(window.location.search).get('scale'));
  if (scale > 0) {
    document.documentElement.style.setProperty('--classroom-scale', String(scale));
  }

  function text(element) {
    return element ? element.textContent.replace(/\s+/g, ' ').trim() : '';
  }

  // the text cell before an output: the lesson's own description of a plot
  function textBefore(output) {
    var cell = output.closest('[cell-index]');
    for (var previous = cell && cell.previousElementSibling; previous; previous = previous.previousElementSibling) {
      var markdown = previous.querySelector('.jp-MarkdownCell .jp-RenderedMarkdown');
      if (markdown) {
        return text(markdown);
      }
    }
    return '';
  }

  function name(root) {
    // a slider's handle is named by its widget's description ("K", "hit rate k", ...)
    root.querySelectorAll('.widget-slider').forEach(function (slider) {
      var handle = slider.querySelector('.noUi-handle');
      var label = text(slider.querySelector('.widget-label'));
      if (handle && label && handle.getAttribute('aria-label') !== label) {
        handle.setAttribute('aria-label', label);
      }
    });
    // a control's plot is described by its off-screen text (helpers.widgets._plot)
    root.querySelectorAll('.dg-plot-box').forEach(function (box) {
      var image = box.querySelector('img.dg-plot');
      var words = text(box.querySelector('.dg-plot-text'));
      if (image && words && image.getAttribute('alt') !== words) {
        image.setAttribute('alt', words);
      }
    });
    // a lesson's plot is described by the text that introduces it
    root.querySelectorAll('.jp-RenderedImage img:not([alt])').forEach(function (image) {
      var description = textBefore(image);
      image.setAttribute('alt', description ? 'Plot: ' + description.slice(0, 300) : 'Plot');
    });
    // a markdown check list ("- [ ] ...") is named by its item
    root.querySelectorAll('.task-list-item-checkbox:not([aria-label])').forEach(function (box) {
      box.setAttribute('aria-label', text(box.parentElement));
    });
  }

  // a table wider than the page is set smaller until it fits (not below 14 px); one that still does
  // not fit scrolls sideways, and can then be reached and scrolled from the keyboard
  function fit(root) {
    root.querySelectorAll('.jp-OutputArea-output').forEach(function (output) {
      var table = output.querySelector('table');
      if (table && table.scrollWidth > output.clientWidth && output.clientWidth > 0) {
        var size = parseFloat(window.getComputedStyle(table).fontSize);
        var fitted = Math.max(14, Math.floor(size * output.clientWidth / table.scrollWidth));
        if (fitted < size) {
          table.style.fontSize = fitted + 'px';
        }
      }
      if (output.scrollWidth > output.clientWidth && !output.hasAttribute('tabindex')) {
        output.setAttribute('tabindex', '0');
        output.setAttribute('role', 'region');
        output.setAttribute('aria-label', 'wide output, scrolls sideways');
      }
    });
  }

  var pending = false;
  function soon() {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        name(document);
        fit(document);
      });
    }
  }
  document.addEventListener('DOMContentLoaded', function () {
    new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
    soon();
  });
})();
