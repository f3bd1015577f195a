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

  var pending = false;
  function soon() {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        name(document);
      });
    }
  }
  document.addEventListener('DOMContentLoaded', function () {
    new MutationObserver(soon).observe(document.body, { childList: true, subtree: true });
    soon();
  });
})();
