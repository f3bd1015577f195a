// The classroom view's page script: the room's scale, the first screen, accessible names the rendered page lacks.
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

  // a wide output keeps its text size (never below the room's 20 px) and scrolls sideways; it can then be
  // reached and scrolled from the keyboard
  function fit(root) {
    root.querySelectorAll('.jp-OutputArea-output, .control-details, .control-main').forEach(function (output) {
      var overflow = window.getComputedStyle(output).overflowX;
      var scrolls = overflow === 'auto' || overflow === 'scroll' || output.matches('.jp-OutputArea-output');
      if (scrolls && output.scrollWidth > output.clientWidth + 1 && !output.hasAttribute('tabindex')) {
        output.setAttribute('tabindex', '0');
        output.setAttribute('role', 'region');
        output.setAttribute('aria-label', 'wide output, scrolls sideways');
      }
    });
  }

  // a link to a file of the project (helpers/metrics.py, another lesson) has nothing to show in the
  // classroom, which serves one lesson: it becomes its text. Links to other sites stay.
  function unlink(root) {
    root.querySelectorAll('#rendered_cells a[href]').forEach(function (link) {
      var href = link.getAttribute('href');
      if (/^(https?:|mailto:|#)/i.test(href)) {
        return;
      }
      var span = document.createElement('span');
      span.className = 'classroom-unlinked';
      while (link.firstChild) {
        span.appendChild(link.firstChild);
      }
      link.replaceWith(span);
    });
  }

  // The first screen is the demonstration: the lesson's title in one line, then its control (the first cell
  // whose output is a widget), and the introduction folded into "About this example" below the control.
  // A lesson without a control opens on its first step, the introduction folded above it.
  var arranged = { about: false, control: false, reveal: false };
  function isControl(cell) {
    return [].some.call(cell.querySelectorAll('script[type="application/vnd.voila.cell-output+json"]'),
      function (script) { return script.textContent.indexOf('application/vnd.jupyter.widget-view+json') >= 0; })
      || cell.querySelector('.jp-OutputArea-output .jupyter-widgets, .jp-OutputArea-output .widget-container');
  }
  function arrange() {
    var first = document.querySelector('#rendered_cells [cell-index]');
    if (!first) {
      return;
    }
    var shown = [].filter.call(first.parentElement.children, function (cell) {
      return cell.hasAttribute('cell-index') && !cell.classList.contains('classroom-hidden');
    });
    var title = shown[0];
    if (!arranged.about && title && title.querySelector('.jp-MarkdownCell h1')) {
      var markdown = title.querySelector('.jp-RenderedMarkdown');
      var about = document.createElement('details');
      about.className = 'classroom-about';
      var summary = document.createElement('summary');
      summary.textContent = 'About this example';
      about.appendChild(summary);
      var content = document.createElement('div');
      content.className = 'jp-RenderedHTMLCommon jp-RenderedMarkdown';
      [].slice.call(markdown.children).forEach(function (part) {
        if (part.tagName !== 'H1') {
          content.appendChild(part);
        }
      });
      about.appendChild(content);
      var holder = document.createElement('div');
      holder.className = 'classroom-about-cell';
      holder.appendChild(about);
      title.classList.add('classroom-title');
      title.after(holder);
      arranged.about = holder;
    }
    if (!arranged.control && arranged.about) {
      var control = shown.filter(isControl)[0];
      if (control) {
        control.classList.add('classroom-control');
        arranged.about.before(control);
        arranged.control = true;
      }
    }
    // lessons 03 and 05: "Predict, then reveal" (helpers.widgets.reveal) comes right after the control, with the
    // text cell that introduces it, so the teacher reaches it with one scroll (or a few Tab presses)
    if (!arranged.reveal && arranged.control) {
      var reveal = document.querySelector('#rendered_cells .reveal-control');
      var cell = reveal && reveal.closest('[cell-index]');
      if (cell) {
        var intro = cell.previousElementSibling;
        arranged.about.before(cell);
        if (intro && intro.querySelector('.jp-MarkdownCell')) {
          cell.before(intro);
        }
        cell.classList.add('classroom-reveal');
        arranged.reveal = true;
      }
    }
  }

  // lesson 05: the switches (gain, ideal, relevant, formulas and reset) go under the plot, so the lab's two columns
  // have about the same height; when the screen is too narrow for two columns, the plot and its switches come
  // below the grade buttons
  function lay(root) {
    root.querySelectorAll('.metrics-lab .control-inputs').forEach(function (inputs) {
      var readout = inputs.parentElement.querySelector('.control-readout');
      if (!readout) {
        return;
      }
      [].slice.call(inputs.children).forEach(function (part) {
        if (part.matches('.widget-toggle-buttons') || part.querySelector('.show-formulas')) {
          part.classList.add('classroom-beside-plot');
          readout.appendChild(part);
        }
      });
    });
  }

  var pending = false;
  function soon() {
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        arrange();
        lay(document);
        unlink(document);
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
