// The classroom view's page script: the room's scale, the first screen, the keys a lecturer has (a clicker's
// PageDown/PageUp, n, r, b), accessible names the rendered page lacks.
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
  // classroom, which serves one lesson: it becomes its text. Links to other sites stay. A lesson's pointer to the
  // code ("Read the code: metrics.ndcg in helpers/metrics.py") points at what the room cannot see: it is left out.
  function unlink(root) {
    root.querySelectorAll('#rendered_cells .jp-RenderedMarkdown p > em:first-child').forEach(function (lead) {
      var paragraph = lead.parentElement;
      if (/^read the code/i.test(text(lead)) && !paragraph.classList.contains('classroom-code-note')) {
        paragraph.classList.add('classroom-code-note');
      }
    });
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
          intro.classList.add('classroom-intro');
        }
        cell.classList.add('classroom-reveal');
        arranged.reveal = true;
      }
    }
  }

  // lesson 05: the switches (gain, ideal, relevant, formulas and reset) get a box of their own beside the grade
  // buttons, so that classroom.css can set them under the plot on a wide screen, beside the grade buttons (the plot
  // below) on a smaller one, and under K on the smallest
  function lay(root) {
    root.querySelectorAll('.metrics-lab .control-inputs').forEach(function (inputs) {
      var main = inputs.parentElement;
      var switches = main.querySelector(':scope > .classroom-switches');
      [].slice.call(inputs.children).forEach(function (part) {
        if (part.matches('.widget-toggle-buttons') || part.querySelector('.show-formulas')) {
          if (!switches) {
            switches = document.createElement('div');
            switches.className = 'classroom-switches';
            main.appendChild(switches);
          }
          switches.appendChild(part);
        }
      });
    });
  }

  // The screen in the room's units: the page's width and height divided by the scale (a 1280x720 screen at scale 2
  // is a 640x360 one at scale 1; at 150 % browser zoom the page itself is 853x480). Smaller screens get a denser
  // first screen (classroom.css): the plot below the inputs, the lesson's switches beside them, then the heading
  // below and the switches under the inputs; on a slim one (1024 wide at scale 1.5 and 2) lesson 05's results by
  // their ids alone.
  function measure() {
    var root = document.documentElement;
    var scale = parseFloat(window.getComputedStyle(root).getPropertyValue('--classroom-scale')) || 1;
    var width = window.innerWidth / scale;
    var height = window.innerHeight / scale;
    // rows of targets the screen holds: a target is 44 px, or 1.45 lines of text when that is more (classroom.css);
    // browser zoom enlarges the 44 px too, so 150 % zoom holds fewer rows than scale 1.5 does
    var rows = window.innerHeight / Math.max(44, 29 * scale);
    var classes = {
      'classroom-narrow': width < 1100,
      'classroom-slim': width < 760,
      'classroom-short': height < 600,
      'classroom-tiny': height < 420 || rows < 12,
    };
    Object.keys(classes).forEach(function (name) {
      if (root.classList.contains(name) !== classes[name]) {
        root.classList.toggle(name, classes[name]);
      }
    });
  }

  // --- the keys a lecturer has ---------------------------------------------------------------------------------
  // A presenter clicker sends PageDown / PageUp (some send the arrow keys, and b or . to blank the screen). From the
  // moment the page opens they move through the page's sections: the control, "Predict, then reveal", each step of
  // the lesson, a screen at a time through a long one. They never change a control's value, even the one that has
  // the focus (a slider takes PageDown as a big step): the arrow keys still move a focused slider, list or box.
  // Home and End go to the page's top and end (never a focused control's first or last value).
  // n deals new numbers and r reveals (predict, then reveal); ? shows the legend of the keys.
  function scroller() {
    return document.querySelector('#rendered_cells');
  }

  function sectionStarts(box) {
    var first = box.querySelector('[cell-index]');
    if (!first) {
      return [0];
    }
    var offset = box.getBoundingClientRect().top - box.scrollTop;
    var starts = [0];
    [].forEach.call(first.parentElement.children, function (cell) {
      if (cell.offsetParent === null || cell.classList.contains('classroom-title')) {
        return;
      }
      var heading = cell.querySelector('.jp-MarkdownCell h1, .jp-MarkdownCell h2, .jp-MarkdownCell h3');
      var before = cell.previousElementSibling;
      var reveal = cell.classList.contains('classroom-reveal') && !(before && before.classList.contains('classroom-intro'));
      if (heading || reveal || cell.classList.contains('classroom-intro')) {
        starts.push(Math.round(cell.getBoundingClientRect().top - offset));
      }
    });
    return starts;
  }

  // each table's top (its caption's, else its header row's) and first data row bottom, in the page's units (from the
  // top of the scrolling box): a stop that keeps a table whole from its title down cuts no title at the screen's top
  function tableRows(box) {
    var offset = box.getBoundingClientRect().top - box.scrollTop;
    return [].map.call(box.querySelectorAll('.jp-OutputArea-output table'), function (table) {
      var rows = [].slice.call(table.querySelectorAll('tr'));
      var head = table.querySelector('thead tr:last-child')
        || rows.filter(function (tr) { return tr.querySelector('th') && !tr.querySelector('td'); })[0];
      var row = rows.filter(function (tr) { return tr.querySelector('td'); })[0];
      if (!head || !row || table.offsetParent === null) {
        return null;
      }
      var caption = table.querySelector('caption');
      var title = caption && caption.offsetHeight ? caption : head;
      return [title.getBoundingClientRect().top - offset, row.getBoundingClientRect().bottom - offset];
    }).filter(Boolean);
  }

  // each line of text and each control of the page, as [top, bottom] in the page's units: where a screen may start
  function lineBoxes(box) {
    var offset = box.getBoundingClientRect().top - box.scrollTop;
    var found = [];
    var range = document.createRange();
    var walker = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (var node = walker.nextNode(); node; node = walker.nextNode()) {
      if (!node.textContent.trim() || !node.parentElement || node.parentElement.offsetParent === null) {
        continue;
      }
      range.selectNodeContents(node);
      [].forEach.call(range.getClientRects(), function (line) {
        found.push([line.top - offset, line.bottom - offset]);
      });
    }
    [].forEach.call(box.querySelectorAll('button, select, input, .noUi-handle'), function (control) {
      var shown = control.getBoundingClientRect();
      if (shown.height) {
        found.push([shown.top - offset, shown.bottom - offset]);
      }
    });
    return found;
  }

  // where PageDown and PageUp stop: each section's start, and a screen at a time (a sixth kept) through a long one; a
  // table's title or header row never shows at a screen's foot without its first data row: the next screen starts at
  // the table's title.
  // A section that starts in the first screen's top quarter (Step 1 under the title) is not a stop of its own: the
  // first PageDown would move the page by the title's height only
  function stops(box) {
    var screen = box.clientHeight;
    var last = box.scrollHeight - screen;
    var starts = sectionStarts(box).concat([box.scrollHeight]).sort(function (a, b) { return a - b; })
      .filter(function (top, number) { return number === 0 || top >= screen / 4; });
    var tables = tableRows(box);
    var lines = lineBoxes(box);
    // a screen that would start across a line of text or a control starts above it (the line was on the screen
    // before too: a sixth is kept), and above a line that one cuts in turn (a table row of two-line cells), as long
    // as the press from ``top`` still moves the page by a quarter of a screen
    function whole(step, top) {
      for (;;) {
        var cut = lines.filter(function (line) {
          return line[0] < step && line[1] > step + 1 && line[1] - line[0] < screen / 6;
        });
        var above = Math.floor(Math.min.apply(null, cut.map(function (line) { return line[0]; }))) - 4;
        if (!cut.length || above - top < screen / 4) {
          return step;
        }
        step = above;
      }
    }
    function next(top) {
      var step = top + Math.round(screen * 5 / 6);
      tables.forEach(function (rows) {
        var at = Math.floor(rows[0]) - 8;
        if (at > top + 4 && at < step && rows[0] < top + screen && rows[1] > top + screen) {
          step = at;
        }
      });
      return step;
    }
    var found = [];
    // a stop (a section's start, a screen on, halfway, the page's end), above a line it would cut; where it is
    function add(top) {
      var at = Math.min(top, last);
      if (!found.length) {
        found.push(at);
        return at;
      }
      var before = found[found.length - 1];
      at = whole(at, before);
      if (at > before + 4) {
        found.push(at);
      }
      return at;
    }
    for (var i = 0; i + 1 < starts.length; i += 1) {
      for (var top = starts[i]; top < starts[i + 1] - screen / 4; top = next(top)) {
        top = add(top);  // a stop moved up above a line goes on from there
        if (top >= last) {
          break;  // the page's end: no stop below it
        }
      }
      // the next section more than a screen below the last stop: a stop halfway, so that no line is passed unseen
      var before = found.length ? found[found.length - 1] : 0;
      if (starts[i + 1] - before > screen) {
        add(Math.round((before + starts[i + 1]) / 2));
      }
    }
    return found;
  }

  function move(direction) {
    var box = scroller();
    if (!box) {
      return;
    }
    var now = box.scrollTop;
    var all = stops(box);
    var next = direction > 0
      ? all.filter(function (top) { return top > now + 4; })[0]
      : all.filter(function (top) { return top < now - 4; }).pop();
    if (next === undefined) {
      next = direction > 0 ? box.scrollHeight : 0;
    }
    box.scrollTop = next;
  }

  function blank(on) {
    var cover = document.querySelector('.classroom-blank');
    if (!cover) {
      cover = document.createElement('div');
      cover.className = 'classroom-blank';
      cover.setAttribute('aria-hidden', 'true');
      cover.hidden = true; // made hidden, so that the first press shows it
      cover.addEventListener('click', function () { blank(false); });
      document.body.appendChild(cover);
    }
    cover.hidden = on === undefined ? !cover.hidden : !on;
  }

  // the revealed value in view: the answer's end at the screen's end, its value never above the screen's top
  function showAnswer() {
    var box = scroller();
    var answer = document.querySelector('.classroom-reveal .reveal-answer');
    if (!box || !answer) {
      return;
    }
    var screen = box.getBoundingClientRect();
    var shown = answer.getBoundingClientRect();
    var down = Math.max(0, shown.bottom + 8 - screen.bottom);
    down = Math.min(down, shown.top - 8 - screen.top);
    if (shown.top < screen.top) {
      down = shown.top - 8 - screen.top;
    }
    if (Math.abs(down) > 1) {
      box.scrollTop += down;
    }
  }

  var lastAnswer = '';
  function followReveal() {
    var value = document.querySelector('.classroom-reveal .reveal-value');
    var now = value ? text(value) : '';
    if (now !== lastAnswer) {
      lastAnswer = now;
      if (/\d/.test(now)) {
        showAnswer();
      }
    }
  }

  function press(selector) {
    var button = document.querySelector(selector);
    if (button && !button.disabled) {
      var section = button.closest('.classroom-reveal');
      var intro = section && section.previousElementSibling;
      var box = scroller();
      if (box && section) {
        // the section with its introduction when both fit the screen, else the question and its data from the top
        var start = intro && intro.classList.contains('classroom-intro') ? intro : section;
        if (section.getBoundingClientRect().bottom - start.getBoundingClientRect().top > box.clientHeight) {
          start = section;
        }
        box.scrollTop += start.getBoundingClientRect().top - box.getBoundingClientRect().top;
      }
      button.click();
    }
  }

  var TYPING = 'input:not([type=checkbox]):not([type=radio]):not([type=button]):not([type=submit]), textarea, select, '
    + '[contenteditable]:not([contenteditable=false])';
  var ADJUSTS = TYPING + ', .noUi-handle, [role=slider], [role=spinbutton], [role=listbox], [role=combobox]';

  function onKey(event) {
    if (event.ctrlKey || event.metaKey || event.altKey || event.defaultPrevented) {
      return;
    }
    var target = event.target instanceof Element ? event.target : document.body;
    var typing = target.closest(TYPING) !== null;
    var adjusts = target.closest(ADJUSTS) !== null;
    var key = event.key;
    var handled = true;
    if (key === 'PageDown' || key === 'PageUp') {
      move(key === 'PageDown' ? 1 : -1);
    } else if (key === 'Home' || key === 'End') {
      // the page's top or end, whatever has the focus (a slider or a list would take them as its first or last value)
      var box = scroller();
      if (box) {
        box.scrollTop = key === 'Home' ? 0 : box.scrollHeight;
      }
    } else if (/^Arrow(Down|Right|Up|Left)$/.test(key) && !adjusts) {
      move(key === 'ArrowDown' || key === 'ArrowRight' ? 1 : -1);
    } else if ((key === 'b' || key === 'B' || key === '.') && !typing) {
      blank();
    } else if (key === 'Escape' && document.querySelector('.classroom-blank:not([hidden])')) {
      blank(false);
    } else if (key === '?' && !typing) {
      legendShown();
    } else if (key === 'Escape' && document.querySelector('.classroom-keys:not([hidden])')) {
      legendShown(false);
    } else if ((key === 'n' || key === 'N') && !typing) {
      press('.classroom-reveal .reveal-deal');
    } else if ((key === 'r' || key === 'R') && !typing) {
      press('.classroom-reveal .reveal-show');
    } else {
      handled = false;
    }
    if (handled) {
      event.preventDefault();
      event.stopPropagation();
    }
  }

  // The legend of the keys is one key away: ? shows and hides it (a panel at the screen's foot, over the page), and
  // the title's line says so. n and r are in it only where there is something to deal.
  function legendShown(on) {
    var panel = document.querySelector('.classroom-keys');
    if (panel) {
      panel.hidden = on === undefined ? !panel.hidden : !on;
    }
  }

  function hint() {
    var title = document.querySelector('#rendered_cells .classroom-title .jp-RenderedMarkdown');
    if (!title || title.querySelector('.classroom-hint')) {
      return;
    }
    var line = document.createElement('p');
    line.className = 'classroom-hint';
    var kbd = document.createElement('kbd');
    kbd.textContent = '?';
    line.appendChild(kbd);
    line.appendChild(document.createTextNode(' keys'));
    title.appendChild(line);
  }

  function legend() {
    hint();
    var dealing = String(document.querySelector('.classroom-reveal .reveal-deal') !== null);
    var panel = document.querySelector('.classroom-keys');
    if (panel && panel.getAttribute('data-dealing') === dealing) {
      return;
    }
    var shown = panel !== null && !panel.hidden;
    if (panel) {
      panel.remove(); // "Predict, then reveal" has come since: n and r join the legend
    }
    var keys = [['PgDn', 'PgUp', 'next, back'], ['Home', 'End', 'top, end'], ['b', 'blank screen'],
      ['?', 'these keys']];
    if (dealing === 'true') {
      keys.splice(2, 0, ['n', 'new numbers'], ['r', 'reveal']);
    }
    panel = document.createElement('p');
    panel.className = 'classroom-keys';
    panel.setAttribute('data-dealing', dealing);
    panel.setAttribute('role', 'note');
    panel.hidden = !shown;
    panel.appendChild(document.createTextNode('Keys: '));
    keys.forEach(function (entry, number) {
      if (number) {
        panel.appendChild(document.createTextNode(' · '));
      }
      entry.slice(0, -1).forEach(function (name, at) {
        var kbd = document.createElement('kbd');
        kbd.textContent = name;
        panel.appendChild(kbd);
        panel.appendChild(document.createTextNode(at + 2 < entry.length ? ' ' : ' ' + entry[entry.length - 1]));
      });
    });
    panel.addEventListener('click', function () { legendShown(false); });
    document.body.appendChild(panel);
  }

  // A control whose output has come but is not drawn (its kernel connection not made yet, or lost) is never a silent
  // gap: "Starting the lab…" stands in its place, and past LAB_WAIT seconds an error with "Try again", which reloads
  // the page (a new kernel connection; the old kernel is ended as the page unloads). The first time, the page tries
  // again by itself. window.classroomLabWait (seconds) shortens the wait for a test.
  var LAB_WAIT = 60;
  var RETRIED = 'classroom-lab-retried';
  var waitingSince = {};
  // a cell whose widget output has come (its script, or Voila's "Loading widget..." in its place) but is not drawn
  function undrawn() {
    return [].filter.call(document.querySelectorAll('#rendered_cells [cell-index]'), function (cell) {
      if (cell.classList.contains('classroom-hidden')
        || cell.querySelector('.jp-OutputArea-output .jupyter-widgets, .jp-OutputArea-output .widget-container')) {
        return false;
      }
      return [].some.call(cell.querySelectorAll('script[type="application/vnd.voila.cell-output+json"]'),
        function (script) { return script.textContent.indexOf('application/vnd.jupyter.widget-view+json') >= 0; })
        || [].some.call(cell.querySelectorAll('.jp-OutputArea-output'),
          function (output) { return /^Loading widget/.test(text(output)); });
    });
  }
  function retry() {
    try {
      window.sessionStorage.setItem(RETRIED, '1');
    } catch (error) { /* no storage: the button still reloads */ }
    window.location.reload();
  }
  function watchLab() {
    var wait = (window.classroomLabWait || LAB_WAIT) * 1000;
    var waiting = undrawn();
    document.querySelectorAll('.classroom-status').forEach(function (status) {
      if (waiting.indexOf(status.closest('[cell-index]')) < 0) {
        status.remove(); // drawn since
      }
    });
    if (!waiting.length && document.querySelector('#rendered_cells .jupyter-widgets')) {
      try {
        window.sessionStorage.removeItem(RETRIED);
      } catch (error) { /* nothing kept */ }
    }
    waiting.forEach(function (cell) {
      var key = cell.getAttribute('cell-index');
      waitingSince[key] = waitingSince[key] || Date.now();
      var status = cell.querySelector('.classroom-status');
      if (!status) {
        status = document.createElement('div');
        status.className = 'classroom-status';
        status.setAttribute('role', 'status');
        cell.insertBefore(status, cell.firstChild);
      }
      var late = Date.now() - waitingSince[key] > wait;
      if (late && status.getAttribute('data-state') !== 'failed') {
        var retried = false;
        try {
          retried = window.sessionStorage.getItem(RETRIED) === '1';
        } catch (error) { /* never retried by itself */ }
        if (!retried) {
          retry();
          return;
        }
        status.setAttribute('data-state', 'failed');
        status.textContent = 'The lab did not start (no connection to its kernel). ';
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'classroom-retry';
        button.textContent = 'Try again';
        button.addEventListener('click', retry);
        status.appendChild(button);
      } else if (!late && !status.hasAttribute('data-state')) {
        status.setAttribute('data-state', 'starting');
        status.textContent = 'Starting the lab…';
      }
    });
  }

  // "Starting the lab…" goes at the frame the control is drawn (watchLab, once a second, would leave it pushing the
  // first screen down for up to a second)
  function drawnSince() {
    document.querySelectorAll('.classroom-status:not([data-state="failed"])').forEach(function (status) {
      var cell = status.closest('[cell-index]');
      if (cell && cell.querySelector('.jp-OutputArea-output .jupyter-widgets, .jp-OutputArea-output .widget-container')) {
        status.remove();
      }
    });
  }

  // The first screen is arranged at the next frame after each change; the rest (names, links, wide outputs, the
  // legend), which reads the layout of the whole page, once the page has been quiet for a moment, so that it
  // does not make the browser lay the page out again at every frame while the widgets are being drawn. The page
  // says when it is settled (data-classroom-settled on its root): arranged, and quiet since.
  var pending = false;
  var settling = null;
  function settled() {
    settling = null;
    unlink(document);
    name(document);
    fit(document);
    legend();
    document.documentElement.setAttribute('data-classroom-settled', '');
  }
  function soon() {
    document.documentElement.removeAttribute('data-classroom-settled');
    if (!pending) {
      pending = true;
      window.requestAnimationFrame(function () {
        pending = false;
        drawnSince();
        measure();
        arrange();
        lay(document);
        followReveal();
      });
    }
    if (settling !== null) {
      window.clearTimeout(settling);
    }
    settling = window.setTimeout(settled, 200);
  }
  window.addEventListener('keydown', onKey, true);
  window.addEventListener('resize', soon);
  document.addEventListener('DOMContentLoaded', function () {
    new MutationObserver(soon).observe(document.body, { childList: true, subtree: true, characterData: true });
    soon();
    window.setInterval(watchLab, 1000);
  });
})();
