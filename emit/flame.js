// wallfold's flame graph: click a frame to zoom on it, "Reset zoom" to
// come back, "Search" to mark frames by a regular expression (the share of
// the total they hold is shown). Frame positions are kept as fractions of
// the total (data-x, data-w) and depths (data-d).
(function () {
  var svg = document.documentElement;
  var W = +svg.getAttribute('data-width'), M = 10;
  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));
  var details = document.getElementById('details');
  var matched = document.getElementById('matched');
  function num(g, a) { return +g.getAttribute(a); }
  function place(g, x, w) {
    var r = g.querySelector('rect'), t = g.querySelector('text');
    var px = w * W;
    r.setAttribute('x', (M + x * W).toFixed(2));
    r.setAttribute('width', px.toFixed(2));
    t.setAttribute('x', (M + x * W + 3).toFixed(2));
    var name = g.getAttribute('data-n'), chars = Math.floor(px / 7);
    t.textContent = chars < 3 ? '' : (name.length > chars ? name.slice(0, chars - 2) + '..' : name);
  }
  function zoom(g) {
    var x0 = num(g, 'data-x'), w0 = num(g, 'data-w'), d0 = num(g, 'data-d'), eps = 1e-9;
    frames.forEach(function (f) {
      var x = num(f, 'data-x'), w = num(f, 'data-w'), d = num(f, 'data-d');
      if (d < d0 && x <= x0 + eps && x + w >= x0 + w0 - eps) {
        f.classList.remove('hide'); place(f, 0, 1); // an ancestor: full width
      } else if (d >= d0 && x >= x0 - eps && x + w <= x0 + w0 + eps) {
        f.classList.remove('hide'); place(f, (x - x0) / w0, w / w0);
      } else {
        f.classList.add('hide');
      }
    });
  }
  function reset() {
    frames.forEach(function (f) { f.classList.remove('hide'); place(f, num(f, 'data-x'), num(f, 'data-w')); });
  }
  // search marks the frames whose name matches re and returns the share
  // (%) of the total they cover (nested matches counted once).
  function search(re) {
    var spans = [];
    frames.forEach(function (f) {
      var m = re !== null && re.test(f.getAttribute('data-n'));
      f.classList.toggle('match', m);
      if (m) spans.push([num(f, 'data-x'), num(f, 'data-x') + num(f, 'data-w')]);
    });
    spans.sort(function (a, b) { return a[0] - b[0]; });
    var sum = 0, end = -1;
    spans.forEach(function (s) {
      if (s[0] >= end) { sum += s[1] - s[0]; end = s[1]; }
      else if (s[1] > end) { sum += s[1] - end; end = s[1]; }
    });
    var share = 100 * sum;
    matched.textContent = re === null ? ' ' : 'Matched: ' + share.toFixed(2) + '%';
    return share;
  }
  frames.forEach(function (f) {
    f.addEventListener('click', function () { zoom(f); });
    f.addEventListener('mouseover', function () { details.textContent = f.querySelector('title').textContent; });
    f.addEventListener('mouseout', function () { details.textContent = ' '; });
  });
  document.getElementById('reset').addEventListener('click', function () { reset(); search(null); });
  document.getElementById('search').addEventListener('click', function () {
    var term = prompt('Search (regular expression):', '');
    if (!term) { search(null); return; }
    try { search(new RegExp(term)); } catch (e) { search(null); matched.textContent = 'Bad expression: ' + e.message; }
  });
  window.wallfold = { zoom: zoom, reset: reset, search: search };
  // #selftest: a headless browser's check (emit's svg test): a click on
  // serial_phase must make it full width, a search must mark frames.
  if (location.hash === '#selftest') {
    var target = frames.filter(function (f) { return f.getAttribute('data-n') === 'serial_phase'; })[0];
    var out = {};
    if (target) {
      target.dispatchEvent(new MouseEvent('click', { bubbles: true }));
      out.zoomWidth = +target.querySelector('rect').getAttribute('width');
      out.title = target.querySelector('title').textContent;
      reset();
    }
    out.searchShare = search(/^spin_for$/);
    out.marked = document.querySelectorAll('g.f.match').length;
    out.frames = frames.length;
    svg.setAttribute('data-selftest', JSON.stringify(out));
  }
})();
