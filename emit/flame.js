// wallfold's flame graph: click a frame to zoom on it, "Reset zoom" to
// come back, "Search" or Ctrl-F (Cmd-F) to mark frames by a regular
// expression (the share of the total they hold is shown), "ignore case"
// to search without case. Zoom and search live in the URL's fragment
// (#x=...&y=...&s=...&i=1): a reload, or the link sent to someone, shows
// the same view. Frame positions are kept as fractions of the total
// (data-x, data-w) and depths (data-d); x and y in the fragment are the
// zoomed frame's data-x and data-d.
(function () {
  var svg = document.documentElement;
  var W = +svg.getAttribute('data-width'), M = 10;
  var frames = Array.prototype.slice.call(document.querySelectorAll('g.f'));
  var details = document.getElementById('details');
  var matched = document.getElementById('matched');
  var icButton = document.getElementById('ignorecase');
  var state = { x: null, y: null, s: '', i: false };
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
  // saveState writes the state into the fragment, without a new history
  // entry per click.
  function saveState() {
    var p = [];
    if (state.x !== null) p.push('x=' + state.x, 'y=' + state.y);
    if (state.s) p.push('s=' + encodeURIComponent(state.s));
    if (state.i) p.push('i=1');
    history.replaceState(null, '', p.length ? '#' + p.join('&') : location.pathname + location.search);
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
    state.x = g.getAttribute('data-x'); state.y = g.getAttribute('data-d');
    saveState();
  }
  function reset() {
    frames.forEach(function (f) { f.classList.remove('hide'); place(f, num(f, 'data-x'), num(f, 'data-w')); });
    state.x = state.y = null;
    saveState();
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
  // searchTerm searches for term (a regular expression; '' clears) with
  // the ignore-case setting, and keeps both in the fragment.
  function searchTerm(term) {
    state.s = term || '';
    saveState();
    if (!state.s) { search(null); return; }
    try { search(new RegExp(state.s, state.i ? 'i' : '')); }
    catch (e) { search(null); matched.textContent = 'Bad expression: ' + e.message; }
  }
  function openSearch() {
    var term = prompt('Search (regular expression' + (state.i ? ', ignoring case' : '') + '):', state.s);
    if (term !== null) searchTerm(term);
  }
  function setIgnoreCase(on) {
    state.i = on;
    icButton.textContent = (on ? '[x]' : '[ ]') + ' ignore case';
    searchTerm(state.s);
  }
  frames.forEach(function (f) {
    f.addEventListener('click', function () { zoom(f); });
    f.addEventListener('mouseover', function () { details.textContent = f.querySelector('title').textContent; });
    f.addEventListener('mouseout', function () { details.textContent = ' '; });
  });
  document.getElementById('reset').addEventListener('click', function () { reset(); searchTerm(''); });
  document.getElementById('search').addEventListener('click', openSearch);
  icButton.addEventListener('click', function () { setIgnoreCase(!state.i); });
  window.addEventListener('keydown', function (e) {
    if ((e.ctrlKey || e.metaKey) && (e.key === 'f' || e.key === 'F')) { e.preventDefault(); openSearch(); }
  });
  // restore reads the fragment a reload or a link brings.
  function restore() {
    var p = {};
    location.hash.slice(1).split('&').forEach(function (kv) {
      var i = kv.indexOf('=');
      if (i > 0) p[kv.slice(0, i)] = decodeURIComponent(kv.slice(i + 1));
    });
    state.i = p.i === '1';
    icButton.textContent = (state.i ? '[x]' : '[ ]') + ' ignore case';
    if (p.x !== undefined && p.y !== undefined) {
      var g = frames.filter(function (f) { return f.getAttribute('data-x') === p.x && f.getAttribute('data-d') === p.y; })[0];
      if (g) zoom(g);
    }
    if (p.s) searchTerm(p.s);
  }
  restore();
  window.wallfold = { zoom: zoom, reset: reset, search: search, searchTerm: searchTerm, state: state };
})();
