// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * pvecg serve: the graphs page.  Reads the Proxmox-compatible JSON that
 * `pvecg serve` answers (cluster/resources, rrddata) and its overview
 * (api2/json/pvecg/overview: every file's newest values in one answer), and
 * draws the overview table and each graph of a guest's or node's Summary
 * as SVG, without libraries: the server's Content-Security-Policy allows
 * only this script and app.css, so nothing here uses inline styles, eval
 * or outside resources.
 *
 * DOM hooks, kept stable because tests/serve/page_check.sh and
 * overview_check.py rely on them:
 *   document.body.dataset.state   "loading" while a load is under way, then
 *                                 "ready" (drawn) or "error" (the message
 *                                 is in #status; a refresh that fails
 *                                 keeps the last good graphs or table)
 *   document.body.dataset.view    "overview" or "target"
 *   a.target[data-id="qemu/100"]  one sidebar entry per node and guest, the
 *                                 id of cluster/resources ("node/pve1",
 *                                 "qemu/100", "lxc/101", "guest/102"),
 *                                 for an entry of a named cluster its
 *                                 cluster's name and "/" before it
 *                                 ("prod/qemu/196"), and
 *                                 a.target[data-id="overview"]; an entry
 *                                 the filters (#filter, #cluster-filter)
 *                                 leave out has its li hidden
 *   #cluster-filter               a select of the clusters (value "" all,
 *                                 "=NAME" one, "=" the entries without a
 *                                 cluster), hidden unless an entry has a
 *                                 cluster, as the table's cluster column
 *                                 (th[data-col="cluster"], td.col-cluster)
 *   section.graph[data-graph=ID]  one per graph; guest: cpu memory network
 *                                 disk pressure-cpu pressure-io
 *                                 pressure-memory; node: cpu load memory
 *                                 swap network root, ksm (only with the
 *                                 node's KSM file) and the same three;
 *                                 g.axis.y text the y axis' labels, the
 *                                 last its top
 *   path.series[data-series=KEY][data-points=N]
 *                                 one per series drawn in a graph, KEY the
 *                                 rrddata column, N the number of rows that
 *                                 have a value for it (0: drawn empty)
 *   li[data-series=KEY]           the series' legend entry, in the graph's
 *                                 ul.legend
 *   div.tip div.row[data-series=KEY] span.val[data-value=V]
 *                                 the hover readout of a series at the
 *                                 row nearest the mouse (div.when
 *                                 [data-time=T], its time), V the value
 *                                 as drawn ("" for unknown; a stall in %)
 *   pressure graphs               series stall<res><kind> (exact) and/or
 *                                 pressure<res><kind> (avg10), as #pressure
 *                                 says; h3 span.sub[data-note="no-exact"]
 *                                 when the target has no stall-time file
 *   #overview-table               the overview: th[data-col] (a sortable
 *                                 one holds button[data-sort]; the sorted
 *                                 one has aria-sort), tr.row[data-id] per
 *                                 node (tbody.nodes) and guest
 *                                 (tbody.guests), data-id as the
 *                                 sidebar's, hidden when a filter
 *                                 leaves it out; span[data-key=KEY]
 *                                 [data-value=V] per value shown, V the
 *                                 number as received ("" for unknown);
 *                                 svg.spark path[data-points=N] the
 *                                 sparkline; a stale row (the answer's
 *                                 "stale") has class stale and
 *                                 td.col-name span.age ("45 min old");
 *                                 a guest with "collisions" has
 *                                 td.col-name span.collision[data-other=
 *                                 HOSTS] (the hosts seen colliding)
 *   performance mark "pvecg-overview-drawn"
 *                                 when the overview table was first drawn
 *   #status                       the status line
 * A series marked optional (the node's arcsize, the guest's ksmsaved) is
 * left out of its graph, path and legend entry both, when no row has it;
 * a graph marked optional (the node's ksm) is left out when no row has
 * any of its series.  The guest's ksmsaved is drawn on top of memhost
 * (its data-points: the rows with both), its readout its own value.  The
 * KSM file's rows (rrddata with ksm=1) are asked for only when the
 * overview says the target has one ("ksm") and joined to the rows by time;
 * so are the stall-time file's (pressure=1, "pressure").
 *
 * Location: #overview (also the start, and where an id that is not a
 * node's or guest's leads) or #TARGET_ID (the data-id, each part
 * URI-encoded), each ?timeframe=T&cf=C&pressure=P;
 * timeframe, cf and pressure are written only when they are not the
 * defaults (hour, AVERAGE, exact).  The data is reloaded at once on a
 * change, then every 60 s for the overview, hour and day (one new row a
 * minute) and every 5 minutes for the longer timeframes.
 *
 * The overview's values, as shown: bytes in binary units (a value under
 * 1 KiB in whole bytes, else x.toFixed(x < 10 ? 2 : x < 100 ? 1 : 0) of
 * the largest unit it reaches, as "1.50 GiB"); percents as
 * v.toFixed(|v| < 10 ? 2 : 1) + "%", cpu multiplied by 100 first;
 * unknown as "–".  The same formatValue() the graphs' readout uses.
 *
 * Clusters: a server over a data directory that keeps several clusters
 * apart lists the same VMID (and node name) once per cluster, each entry
 * with its "cluster"; the page keeps them apart by the data-id above and
 * reads a named cluster's rrddata with the parameter cluster.
 */
'use strict';

(function () {
  var SVGNS = 'http://www.w3.org/2000/svg';
  var TIMEFRAMES = ['hour', 'day', 'week', 'month', 'year', 'decade'];
  var CFS = ['AVERAGE', 'MAX'];
  var DEFAULT_TIMEFRAME = 'hour';
  var DEFAULT_CF = 'AVERAGE';
  var PLOT_HEIGHT = 210;
  var Y_GUTTER = 76;

  /*
   * Graphs.  unit: bytes, rate (bytes/s), percent or number.  scale
   * multiplies the stored value (cpu and iowait are fractions, shown as %).
   * color: the c0..c6 class of app.css.  total: drawn dashed, as a limit.
   * area: filled below the line.
   */
  /*
   * Pressure as Proxmox draws it: one graph per resource, its "some" and
   * "full" lines (a node has no CPU "full": the kernel's system-wide one is
   * always 0), each in two measures.  "exact": the stall time of each row
   * from pvecg's stall-time file (rrddata with pressure=1: microseconds
   * stalled per second of the row, so / 1e4 is the % of the row's time
   * stalled).  "avg10": Proxmox's column, the kernel's 10-second average
   * as it stood when the row was taken.  The #pressure control picks which
   * the graphs draw (PRESSURE_MODES); a target without a stall-time file
   * draws avg10 whatever is picked, and says so.
   */
  var PRESSURE_NAMES = { cpu: 'CPU', io: 'IO', memory: 'Memory' };
  var PRESSURE_MODES = ['exact', 'avg10', 'both'];
  var DEFAULT_PRESSURE = 'exact';

  function pressure(resource, kinds) {
    var name = PRESSURE_NAMES[resource];
    var series = [];
    kinds.forEach(function (kind, i) {
      series.push({ key: 'stall' + resource + kind, measure: 'exact',
                    divide: 1e4, color: i ? 3 : 4, area: !i,
                    label: name + ' stalled, ' + kind +
                      ": % of each row's time (exact)" });
      series.push({ key: 'pressure' + resource + kind, measure: 'avg10',
                    color: i ? 3 : 4, area: !i,
                    label: name + ' pressure, ' + kind +
                      ': 10 s average at each row (avg10, %)' });
    });
    return { id: 'pressure-' + resource, title: name + ' pressure stall',
             unit: 'percent', minTop: 1,   // scaled to the data, at least 0-1 %
             pressure: true, series: series };
  }

  var GUEST_GRAPHS = [
    { id: 'cpu', title: 'CPU usage', unit: 'percent', cpus: true,
      series: [{ key: 'cpu', label: 'CPU usage', scale: 100, color: 0,
                 area: true }] },
    { id: 'memory', title: 'Memory usage', unit: 'bytes',
      series: [{ key: 'memhost', label: 'Host memory usage', color: 1 },
               { key: 'mem', label: 'RAM usage', color: 0, area: true },
               { key: 'maxmem', label: 'Total', color: 3, total: true },
               // drawn on top of host memory: what the guest would cost
               // without KSM; only with the guest's KSM file
               { key: 'ksmsaved', label: 'Saved by KSM', color: 5,
                 stackOn: 'memhost', optional: true }] },
    { id: 'network', title: 'Network traffic', unit: 'rate',
      series: [{ key: 'netin', label: 'Net in', color: 0, area: true },
               { key: 'netout', label: 'Net out', color: 2, area: true }] },
    { id: 'disk', title: 'Disk IO', unit: 'rate',
      series: [{ key: 'diskread', label: 'Disk read', color: 0, area: true },
               { key: 'diskwrite', label: 'Disk write', color: 1,
                 area: true }] },
    pressure('cpu', ['some', 'full']),
    pressure('io', ['some', 'full']),
    pressure('memory', ['some', 'full'])
  ];

  var NODE_GRAPHS = [
    { id: 'cpu', title: 'CPU usage', unit: 'percent', cpus: true,
      series: [{ key: 'cpu', label: 'CPU usage', scale: 100, color: 0,
                 area: true },
               { key: 'iowait', label: 'IO delay', scale: 100, color: 3,
                 area: true }] },
    { id: 'load', title: 'Server load', unit: 'number',
      series: [{ key: 'loadavg', label: 'Load average', color: 0,
                 area: true }] },
    { id: 'memory', title: 'Memory usage', unit: 'bytes',
      series: [{ key: 'memtotal', label: 'Total', color: 3, total: true },
               { key: 'memused', label: 'RAM usage', color: 0, area: true },
               { key: 'memavailable', label: 'Available', color: 2 },
               { key: 'arcsize', label: 'ZFS ARC', color: 4,
                 optional: true }] },
    { id: 'swap', title: 'Swap', unit: 'bytes',
      series: [{ key: 'swaptotal', label: 'Total', color: 3, total: true },
               { key: 'swapused', label: 'Swap usage', color: 0,
                 area: true }] },
    { id: 'network', title: 'Network traffic', unit: 'rate',
      series: [{ key: 'netin', label: 'Net in', color: 0, area: true },
               { key: 'netout', label: 'Net out', color: 2, area: true }] },
    { id: 'root', title: 'Root disk', unit: 'bytes',
      series: [{ key: 'roottotal', label: 'Total', color: 3, total: true },
               { key: 'rootused', label: 'Root disk usage', color: 0,
                 area: true }] },
    // only with the node's KSM file
    { id: 'ksm', title: 'KSM', unit: 'bytes', optional: true,
      series: [{ key: 'ksmsaved', label: 'Saved by KSM', color: 5,
                 area: true }] },
    pressure('cpu', ['some']),
    pressure('io', ['some', 'full']),
    pressure('memory', ['some', 'full'])
  ];

  var app = {
    view: 'overview',     // 'overview' or 'target' (one node or guest)
    resources: null,      // cluster/resources data, once loaded
    resourceById: {},
    overview: null,       // the overview's rows: {target, data, order}
    overviewById: {},
    overviewPending: null, // the first overview request, started early
    overviewFirst: null,  // the same, kept: who has a KSM file
    overviewStatus: '',
    overviewDrawn: false,
    sort: { col: 'memhost', dir: 'descending' },
    clusters: [],         // the named clusters of the entries, by name
    filterNote: '',
    resourcesError: null, // its last error message
    target: null,         // {id, type, node, vmid, name}
    timeframe: DEFAULT_TIMEFRAME,
    cf: DEFAULT_CF,
    pressure: DEFAULT_PRESSURE, // the pressure graphs' measure
    shown: null,          // the drawn data: {key, target, rows, exact, at}
    seq: 0,               // the number of the latest load; older answers drop
    controller: null,
    timer: null,
    width: 0
  };

  var el = {};

  /* ---------- small helpers ---------- */

  function $(id) { return document.getElementById(id); }

  function h(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }

  function s(tag, attrs) {
    var e = document.createElementNS(SVGNS, tag);
    for (var k in attrs) {
      if (Object.prototype.hasOwnProperty.call(attrs, k)) {
        e.setAttribute(k, attrs[k]);
      }
    }
    return e;
  }

  function pad2(n) { return (n < 10 ? '0' : '') + n; }

  var MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug',
                'Sep', 'Oct', 'Nov', 'Dec'];

  function hhmm(d) { return pad2(d.getHours()) + ':' + pad2(d.getMinutes()); }

  function fullTime(t) {
    var d = new Date(t * 1000);
    return d.getFullYear() + '-' + pad2(d.getMonth() + 1) + '-' +
      pad2(d.getDate()) + ' ' + hhmm(d);
  }

  /* A row's value for key as a number, or null when unknown. */
  function num(row, key) {
    var v = row[key];
    if (typeof v === 'string' && v !== '') v = Number(v);
    return typeof v === 'number' && isFinite(v) ? v : null;
  }

  /* ---------- units and ticks ---------- */

  var BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];

  /* The power of 1024 to label byte values up to max with: a range up to
     half a unit is still shown in the smaller one. */
  function binaryPower(max) {
    var k = 0;
    while (k < BINARY.length - 1 && max >= 512 * Math.pow(1024, k)) k++;
    return k;
  }

  function decimalsOf(step) {
    for (var d = 0; d < 4; d++) {
      var x = step * Math.pow(10, d);
      if (Math.abs(Math.round(x) - x) < 1e-6 * Math.max(1, x)) return d;
    }
    return 4;
  }

  function niceStep(raw) {
    var mag = Math.pow(10, Math.floor(Math.log(raw) / Math.LN10));
    var r = raw / mag;
    var m = r <= 1 ? 1 : r <= 2 ? 2 : r <= 2.5 ? 2.5 : r <= 5 ? 5 : 10;
    return m * mag;
  }

  function unitSuffix(unit, k) {
    if (unit === 'bytes') return ' ' + BINARY[k];
    if (unit === 'rate') return ' ' + BINARY[k] + '/s';
    if (unit === 'percent') return '%';
    return '';
  }

  /* Ticks from 0 to a round top above max: {ticks, top, labels}. */
  function yScale(max, unit, count) {
    var byteLike = unit === 'bytes' || unit === 'rate';
    // Without data: an empty frame of a plausible height.
    if (!(max > 0)) max = byteLike ? 1024 : unit === 'percent' ? 100 : 1;
    var k = byteLike ? binaryPower(max) : 0;
    var base = Math.pow(1024, k);
    var step = niceStep(max / base / count);
    var top = Math.ceil(max / base / step - 1e-9) * step;
    var dec = decimalsOf(step);
    var ticks = [], labels = [];
    for (var v = 0; v <= top + step / 2; v += step) {
      ticks.push(v * base);
      labels.push((v === 0 ? '0' : v.toFixed(dec)) + unitSuffix(unit, k));
    }
    return { ticks: ticks, labels: labels, top: top * base };
  }

  /* A value as the hover readout shows it. */
  function formatValue(v, unit) {
    if (unit === 'bytes' || unit === 'rate') {
      var k = 0;
      while (k < BINARY.length - 1 &&
             Math.abs(v) >= Math.pow(1024, k + 1)) k++;
      var x = v / Math.pow(1024, k);
      var text = k === 0 ? String(Math.round(x))
        : x.toFixed(x < 10 ? 2 : x < 100 ? 1 : 0);
      return text + ' ' + BINARY[k] + (unit === 'rate' ? '/s' : '');
    }
    if (unit === 'percent') return v.toFixed(Math.abs(v) < 10 ? 2 : 1) + '%';
    return v.toFixed(2);
  }

  /*
   * Time ticks between t0 and t1 (epoch seconds), at most max of them, on
   * local round times: minutes and hours (HH:MM), days (Mon DD), months
   * (Mon YYYY) or years (YYYY).
   */
  var SUBDAY = [60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600,
                43200];
  var DAYS = [1, 2, 7, 14];
  var MONTH_STEPS = [1, 2, 3, 6, 12, 24, 60, 120];

  function timeTicks(t0, t1, max) {
    var span = t1 - t0, out = [], i, d;
    max = Math.max(2, max);
    for (i = 0; i < SUBDAY.length; i++) {
      var st = SUBDAY[i];
      if (span / st > max) continue;
      var off = -new Date(t0 * 1000).getTimezoneOffset() * 60;
      for (var t = Math.ceil((t0 + off) / st) * st - off; t <= t1; t += st) {
        out.push({ t: t, label: hhmm(new Date(t * 1000)) });
      }
      return out;
    }
    for (i = 0; i < DAYS.length; i++) {
      var n = DAYS[i];
      if (span / (86400 * n) > max) continue;
      d = new Date(t0 * 1000);
      d.setHours(0, 0, 0, 0);
      if (d.getTime() < t0 * 1000) d.setDate(d.getDate() + 1);
      if (n === 7 || n === 14) {
        while (d.getDay() !== 1) d.setDate(d.getDate() + 1);
      }
      for (; d.getTime() <= t1 * 1000; d.setDate(d.getDate() + n)) {
        out.push({ t: d.getTime() / 1000,
                   label: MONTHS[d.getMonth()] + ' ' + d.getDate() });
      }
      return out;
    }
    for (i = 0; i < MONTH_STEPS.length; i++) {
      var m = MONTH_STEPS[i];
      if (i < MONTH_STEPS.length - 1 && span / (86400 * 30.4 * m) > max) {
        continue;
      }
      var start = new Date(t0 * 1000);
      var month = start.getFullYear() * 12 + start.getMonth();
      if (new Date(start.getFullYear(), start.getMonth(), 1).getTime() <
          t0 * 1000) month++;
      month = Math.ceil(month / m) * m;
      for (;; month += m) {
        d = new Date(Math.floor(month / 12), month % 12, 1);
        if (d.getTime() > t1 * 1000) break;
        out.push({ t: d.getTime() / 1000,
                   label: m >= 12 ? String(d.getFullYear())
                     : MONTHS[d.getMonth()] + ' ' + d.getFullYear() });
      }
      return out;
    }
    return out;
  }

  /* ---------- targets and the location ---------- */

  var NODE_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?$/;

  /* A resource's id ("node/pve1", "qemu/100"). */
  function parseResourceId(id) {
    var m = /^node\/(.+)$/.exec(id);
    if (m && NODE_NAME.test(m[1])) {
      return { id: id, type: 'node', node: m[1] };
    }
    m = /^(qemu|lxc|guest)\/([1-9][0-9]{0,9})$/.exec(id);
    if (m) return { id: id, type: m[1], vmid: Number(m[2]) };
    return null;
  }

  /* A target's id: a resource's, or "CLUSTER/" and a resource's for an
     entry of a named cluster (a cluster's name holds no "/", and a
     resource's id alone never has two). */
  function parseId(id) {
    var t = parseResourceId(id);
    if (t) return t;
    var m = /^([^/]+)\/(.+)$/.exec(id);
    t = m ? parseResourceId(m[2]) : null;
    if (!t) return null;
    t.id = id;
    t.cluster = m[1];
    return t;
  }

  /* An entry of cluster/resources or the overview as a target. */
  function targetOf(r) {
    if (!r || typeof r.id !== 'string') return null;
    var named = typeof r.cluster === 'string' && r.cluster !== '' &&
      r.cluster.indexOf('/') < 0;
    return parseId(named ? r.cluster + '/' + r.id : r.id);
  }

  function findResource(id) {
    return Object.prototype.hasOwnProperty.call(app.resourceById, id)
      ? app.resourceById[id] : null;
  }

  function isGuest(r) { return r.type !== 'node'; }

  function targetLabel(t) {
    if (t.type === 'node') return t.node;
    return String(t.vmid) + (t.name ? ' (' + t.name + ')' : '');
  }

  /* The label and its cluster, where one is needed to tell it apart. */
  function fullLabel(t) {
    return targetLabel(t) + (t.cluster ? ' · ' + t.cluster : '');
  }

  function parseHash() {
    var raw = location.hash.replace(/^#/, '');
    var q = raw.indexOf('?');
    var id = q < 0 ? raw : raw.slice(0, q);
    try { id = decodeURIComponent(id); } catch (e) { id = ''; }
    var params = new URLSearchParams(q < 0 ? '' : raw.slice(q + 1));
    var tf = params.get('timeframe'), cf = params.get('cf');
    var pr = params.get('pressure');
    return {
      id: id,
      timeframe: TIMEFRAMES.indexOf(tf) >= 0 ? tf : DEFAULT_TIMEFRAME,
      cf: CFS.indexOf(cf) >= 0 ? cf : DEFAULT_CF,
      pressure: PRESSURE_MODES.indexOf(pr) >= 0 ? pr : DEFAULT_PRESSURE
    };
  }

  /* The location of id; the pressure measure is the page's unless given. */
  function hashFor(id, timeframe, cf, pressureMode) {
    var pr = pressureMode || app.pressure;
    var q = [];
    if (timeframe !== DEFAULT_TIMEFRAME) q.push('timeframe=' + timeframe);
    if (cf !== DEFAULT_CF) q.push('cf=' + cf);
    if (pr !== DEFAULT_PRESSURE) q.push('pressure=' + pr);
    return '#' + id.split('/').map(encodeURIComponent).join('/') +
      (q.length ? '?' + q.join('&') : '');
  }

  /* rrddata's path, relative so that the page also works below a prefix. */
  function rrddataUrl(t, timeframe, cf) {
    var path;
    if (t.type === 'node') {
      path = 'api2/json/nodes/' + encodeURIComponent(t.node) + '/rrddata';
    } else {
      // The server finds a guest by vmid alone but wants a valid node name;
      // a guest of unknown type is read as qemu, as the server expects.
      path = 'api2/json/nodes/' + encodeURIComponent(t.node || 'localhost') +
        '/' + (t.type === 'lxc' ? 'lxc' : 'qemu') + '/' + t.vmid + '/rrddata';
    }
    return path + '?timeframe=' + encodeURIComponent(timeframe) +
      '&cf=' + encodeURIComponent(cf) +
      (t.cluster ? '&cluster=' + encodeURIComponent(t.cluster) : '');
  }

  /* ---------- fetching ---------- */

  function ApiError(message) { this.message = message; }

  /* ---------- the token ---------- */

  // A server started with --token-file wants one on every API request.
  // The page asks for it once (the form appears at the first 401) and
  // keeps it for this tab only (sessionStorage: gone with the tab, never
  // sent anywhere but this server's API).
  var TOKEN_KEY = 'pvecg-token';

  function storedToken() {
    try { return sessionStorage.getItem(TOKEN_KEY) || ''; } catch (e) { return ''; }
  }

  /* Proxmox's API token form USER@REALM!TOKENID=SECRET as Proxmox sends
   * it, anything else as a bearer token. */
  function authorization(token) {
    return /^[^@\s]+@[^!\s]+![^=\s]+=\S+$/.test(token)
      ? 'PVEAPIToken=' + token : 'Bearer ' + token;
  }

  function requestHeaders() {
    var headers = { Accept: 'application/json' };
    var token = storedToken();
    if (token) headers.Authorization = authorization(token);
    return headers;
  }

  function askForToken() {
    var form = $('token-form');
    if (!form.hidden) return;
    form.hidden = false;
    $('token-wrong').hidden = !storedToken();
    $('token').focus();
  }

  function onTokenSubmit(e) {
    e.preventDefault();
    var token = $('token').value.trim();
    if (!token) return;
    try { sessionStorage.setItem(TOKEN_KEY, token); } catch (err) { return; }
    location.reload();
  }

  /* GET url: its data, or an ApiError with the server's message. */
  function getData(url, signal) {
    return fetch(url, { signal: signal, cache: 'no-store',
                        headers: requestHeaders() })
      .then(function (r) {
        if (r.status === 401) askForToken();
        return r.text().then(function (text) {
          var body = null;
          try { body = JSON.parse(text); } catch (e) { body = null; }
          if (!r.ok || !body || body.data == null) {
            var msg = body && typeof body.message === 'string' && body.message
              ? body.message.trim()
              : 'HTTP ' + r.status + (r.statusText ? ' ' + r.statusText : '');
            throw new ApiError(msg);
          }
          return body.data;
        });
      }, function (e) {
        if (e && e.name === 'AbortError') throw e;
        throw new ApiError('cannot reach the server (' +
          (e && e.message ? e.message : String(e)) + ')');
      });
  }

  function loadResources() {
    return getData('api2/json/cluster/resources').then(function (data) {
      if (!Array.isArray(data)) {
        throw new ApiError('cluster/resources: not a list');
      }
      // Entries with an id of the known forms, completed from the id where
      // a key is missing.
      app.resources = [];
      data.forEach(function (r) {
        var t = targetOf(r);
        if (!t) return;
        ['name', 'node'].forEach(function (k) {
          if (typeof r[k] === 'string' && r[k] !== '') t[k] = r[k];
        });
        if (t.type !== 'node' && (r.type === 'qemu' || r.type === 'lxc')) {
          t.type = r.type;
        }
        app.resources.push(t);
      });
      app.resourceById = {};
      app.resources.forEach(function (t) { app.resourceById[t.id] = t; });
      app.resourcesError = null;
      takeClusters(app.resources);
      renderSidebar();
    }, function (e) {
      app.resourcesError = 'cluster/resources: ' + e.message;
    });
  }

  /* ---------- clusters ---------- */

  /* The clusters of targets into app.clusters and #cluster-filter, which
     is shown only when there are named ones.  "" (the entries without a
     cluster: the data directory's own files) is offered when there are
     such entries beside named ones.  A choice still there is kept. */
  function takeClusters(targets) {
    var seen = {}, plain = false;
    targets.forEach(function (t) {
      if (t.cluster) seen[t.cluster] = true; else plain = true;
    });
    var names = Object.keys(seen).sort();
    var key = (plain ? '=' : '') + '|' + names.join('|');
    if (key === app.clusterKey) return;
    app.clusterKey = key;
    app.clusters = names;
    var select = el.clusterFilter, chosen = select.value;
    select.textContent = '';
    var all = h('option', null, 'All clusters');
    all.value = '';
    select.appendChild(all);
    if (plain && names.length) {
      var none = h('option', null, '(no cluster)');
      none.value = '=';
      select.appendChild(none);
    }
    names.forEach(function (name) {
      var o = h('option', null, name);
      o.value = '=' + name;
      select.appendChild(o);
    });
    select.value = chosen;
    if (select.value !== chosen) select.value = '';
    select.hidden = names.length === 0;
  }

  /* ---------- sidebar ---------- */

  function renderSidebar() {
    var lists = { node: el.nodes, guest: el.guests };
    el.nodes.textContent = '';
    el.guests.textContent = '';
    (app.resources || []).forEach(function (r) {
      var a = h('a', 'target');
      a.dataset.id = r.id;
      a.href = hashFor(r.id, app.timeframe, app.cf);
      a.appendChild(h('span', 'label', targetLabel(r)));
      if (r.cluster) a.appendChild(h('span', 'kind cluster', r.cluster));
      if (isGuest(r)) {
        a.appendChild(h('span', 'kind', r.type));
        a.title = (r.node ? 'on ' + r.node : 'node unknown') +
          (r.cluster ? ' in ' + r.cluster : '');
      } else if (r.cluster) {
        a.title = 'in ' + r.cluster;
      }
      var li = h('li');
      li.appendChild(a);
      lists[isGuest(r) ? 'guest' : 'node'].appendChild(li);
    });
    [el.nodes, el.guests].forEach(function (ul) {
      if (!ul.firstChild) ul.appendChild(h('li', 'empty', 'none'));
    });
    markActive();
    applyFilter();
  }

  function markActive() {
    var links = document.querySelectorAll('a.target');
    for (var i = 0; i < links.length; i++) {
      var a = links[i];
      var on = app.view === 'overview' ? a.dataset.id === 'overview'
        : app.target && a.dataset.id === app.target.id;
      a.classList.toggle('active', !!on);
      if (on) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
      a.href = hashFor(a.dataset.id, app.timeframe, app.cf);
    }
  }

  /* ---------- status ---------- */

  function setStatus(text, isError) {
    el.status.textContent = text;
    el.status.classList.toggle('error', !!isError);
  }

  function setState(state) { document.body.dataset.state = state; }

  function clockTime(d) { return hhmm(d) + ':' + pad2(d.getSeconds()); }

  /* ---------- drawing ---------- */

  function graphsFor(t) {
    return t.type === 'node' ? NODE_GRAPHS : GUEST_GRAPHS;
  }

  function lastValue(rows, key) {
    for (var i = rows.length - 1; i >= 0; i--) {
      var v = num(rows[i], key);
      if (v !== null) return v;
    }
    return null;
  }

  function drawAll() {
    var shown = app.shown;
    el.graphs.textContent = '';
    if (!shown) return;
    graphsFor(shown.target).forEach(function (spec) {
      drawGraph(spec, shown.rows, shown.exact);
    });
    app.width = el.graphs.clientWidth;
  }

  /* The measure the pressure graphs draw: the one picked, avg10 where the
     target has no stall-time file. */
  function pressureMode(exact) {
    return exact ? app.pressure : 'avg10';
  }

  /* A graph's series; a pressure graph's those of its measure, avg10
     dotted and without area where it is drawn beside exact. */
  function seriesOf(spec, exact) {
    if (!spec.pressure) return spec.series;
    var mode = pressureMode(exact);
    return spec.series.filter(function (def) {
      return mode === 'both' || def.measure === mode;
    }).map(function (def) {
      if (mode !== 'both' || def.measure !== 'avg10') return def;
      return Object.assign({}, def, { sampled: true, area: false });
    });
  }

  /* What a pressure graph's title adds: its measure, or why exact is not
     drawn. */
  function pressureSub(exact) {
    if (!exact && app.pressure !== 'avg10') {
      var note = h('span', 'sub note',
        'exact stall time not recorded: avg10 only');
      note.dataset.note = 'no-exact';
      note.title = 'No stall-time file for this target (pvecg-pressure-*: ' +
        'older data, or pve_cgroup\'s StallTime false): the graph shows ' +
        'Proxmox\'s avg10 alone.';
      return note;
    }
    return h('span', 'sub', {
      exact: 'exact: % of each row\'s time stalled',
      avg10: 'avg10: the kernel\'s 10 s average at each row',
      both: 'exact (solid) and avg10 (dotted)'
    }[pressureMode(exact)]);
  }

  function drawGraph(spec, rows, exact) {
    var defs = seriesOf(spec, exact);
    if (spec.optional && !rows.some(function (r) {
      return spec.series.some(function (def) {
        return num(r, def.key) !== null;
      });
    })) return;
    var section = h('section', 'graph');
    section.dataset.graph = spec.id;
    var title = h('h3', null, spec.title);
    if (spec.cpus) {
      var n = lastValue(rows, 'maxcpu');
      if (n !== null) {
        title.appendChild(h('span', 'sub',
          'of ' + n + ' CPU' + (n === 1 ? '' : 's')));
      }
    }
    if (spec.pressure) title.appendChild(pressureSub(exact));
    section.appendChild(title);
    var plot = h('div', 'plot');
    section.appendChild(plot);
    var legend = h('ul', 'legend');
    section.appendChild(legend);

    // Each series' values (scaled) and how many rows have one; a series
    // stacked on another is drawn at their sum (where both are known),
    // its own value in the readout.
    var series = [];
    defs.forEach(function (def) {
      var own = rows.map(function (r) {
        var v = num(r, def.key);
        return v === null ? null : v * (def.scale || 1) / (def.divide || 1);
      });
      var values = !def.stackOn ? own : own.map(function (v, i) {
        var base = num(rows[i], def.stackOn);
        return v === null || base === null ? null : v + base;
      });
      var count = values.filter(function (v) { return v !== null; }).length;
      if (def.optional && own.every(function (v) { return v === null; })) {
        return;
      }
      series.push({ def: def, values: values, own: own, count: count });
    });

    // In the page before drawing, so that the plot's width is known.
    el.graphs.appendChild(section);
    var width = Math.max(280, Math.floor(plot.clientWidth || 600));
    drawPlot(plot, spec, series, rows, width);

    series.forEach(function (sr) {
      var li = h('li', sr.count ? null : 'nodata');
      li.dataset.series = sr.def.key;
      li.appendChild(h('span', 'swatch ' + lineClass(sr.def)));
      li.appendChild(h('span', 'name', sr.def.label));
      legend.appendChild(li);
    });
  }

  /* A series' colour, dashed as a limit (total) or dotted as a sample. */
  function lineClass(def) {
    return 'c' + def.color + (def.total ? ' total' : '') +
      (def.sampled ? ' sampled' : '');
  }

  function drawPlot(plot, spec, series, rows, width) {
    var height = PLOT_HEIGHT;
    var max = 0;
    series.forEach(function (sr) {
      sr.values.forEach(function (v) { if (v !== null && v > max) max = v; });
    });
    // A small value stays small: a 0.3 % stall is not drawn as a full one.
    if (spec.minTop && max < spec.minTop) max = spec.minTop;
    var ys = yScale(max, spec.unit, 4);
    var longest = ys.labels.reduce(function (a, l) {
      return Math.max(a, l.length);
    }, 1);
    // Room on the left for the longest tick label (11px text), and at
    // least Y_GUTTER, so that the time axes of the graphs side by side and
    // above each other line up.
    var m = { top: 8, right: 14, bottom: 24,
              left: Math.max(Y_GUTTER, Math.ceil(longest * 6.6) + 12) };
    var pw = width - m.left - m.right, ph = height - m.top - m.bottom;

    var svg = s('svg', { width: width, height: height,
                         viewBox: '0 0 ' + width + ' ' + height,
                         role: 'img', 'aria-label': spec.title });
    plot.appendChild(svg);

    var t0, t1;
    if (rows.length) {
      t0 = rows[0].time;
      t1 = rows[rows.length - 1].time;
    } else {
      t1 = Math.floor(Date.now() / 1000);
      t0 = t1 - 3600;
    }
    if (t1 <= t0) t0 = t1 - 60;
    var x = function (t) { return m.left + (t - t0) / (t1 - t0) * pw; };
    var y = function (v) { return m.top + ph - v / ys.top * ph; };

    // Grid and axes.
    var grid = s('g', { 'class': 'grid' });
    var yAxis = s('g', { 'class': 'axis y' });
    ys.ticks.forEach(function (v, i) {
      var yy = Math.round(y(v)) + 0.5;
      grid.appendChild(s('line', { x1: m.left, x2: m.left + pw,
                                   y1: yy, y2: yy }));
      var label = s('text', { x: m.left - 6, y: yy });
      label.textContent = ys.labels[i];
      yAxis.appendChild(label);
    });
    var xAxis = s('g', { 'class': 'axis x' });
    timeTicks(t0, t1, Math.floor(pw / 70)).forEach(function (tk) {
      var xx = Math.round(x(tk.t)) + 0.5;
      grid.appendChild(s('line', { x1: xx, x2: xx,
                                   y1: m.top, y2: m.top + ph }));
      xAxis.appendChild(s('line', { x1: xx, x2: xx, y1: m.top + ph,
                                    y2: m.top + ph + 4 }));
      var label = s('text', { x: xx, y: m.top + ph + 16 });
      label.textContent = tk.label;
      xAxis.appendChild(label);
    });
    xAxis.appendChild(s('path', {
      d: 'M' + m.left + ' ' + (m.top + ph + 0.5) + 'H' + (m.left + pw)
    }));
    svg.appendChild(grid);
    svg.appendChild(yAxis);
    svg.appendChild(xAxis);

    // Series: areas under the lines first, then the lines; limits (totals)
    // below the others.
    var lines = s('g', { 'class': 'lines' });
    var areas = s('g', { 'class': 'areas' });
    var order = series.slice().sort(function (a, b) {
      return (b.def.total ? 1 : 0) - (a.def.total ? 1 : 0);
    });
    order.forEach(function (sr) {
      var d = [], area = [], seg = [];
      var flush = function () {
        if (!seg.length) return;
        if (seg.length === 1) {
          d.push('M' + seg[0] + 'h0');   // a lone value: a dot (round cap)
        } else {
          d.push('M' + seg.join('L'));
        }
        if (sr.def.area && seg.length > 1) {
          var base = (m.top + ph).toFixed(1);
          area.push('M' + seg[0].split(' ')[0] + ' ' + base + 'L' +
            seg.join('L') + 'L' + seg[seg.length - 1].split(' ')[0] + ' ' +
            base + 'Z');
        }
        seg = [];
      };
      sr.values.forEach(function (v, i) {
        if (v === null) { flush(); return; }
        seg.push(x(rows[i].time).toFixed(1) + ' ' + y(v).toFixed(1));
      });
      flush();
      if (area.length) {
        areas.appendChild(s('path', { 'class': 'area c' + sr.def.color,
                                      d: area.join('') }));
      }
      var p = s('path', {
        'class': 'series ' + lineClass(sr.def),
        d: d.join('') || 'M0 0'
      });
      if (!d.length) p.setAttribute('visibility', 'hidden');
      p.setAttribute('data-series', sr.def.key);
      p.setAttribute('data-points', String(sr.count));
      lines.appendChild(p);
    });
    svg.appendChild(areas);
    svg.appendChild(lines);

    var empty = series.every(function (sr) { return sr.count === 0; });
    if (!rows.length || empty) {
      var none = s('text', { 'class': 'nodata', x: m.left + pw / 2,
                             y: m.top + ph / 2 });
      none.textContent = 'No data';
      svg.appendChild(none);
      return;
    }
    addHover(plot, svg, spec, series, rows, x, y, m, pw, ph, width);
  }

  /* The hover readout: a line at the nearest row, and its values. */
  function addHover(plot, svg, spec, series, rows, x, y, m, pw, ph, width) {
    var hover = s('g', { 'class': 'hover', visibility: 'hidden' });
    var line = s('line', { y1: m.top, y2: m.top + ph });
    hover.appendChild(line);
    var dots = series.map(function (sr) {
      var c = s('circle', { r: 3, 'class': 'c' + sr.def.color });
      hover.appendChild(c);
      return c;
    });
    svg.appendChild(hover);
    var overlay = s('rect', { 'class': 'overlay', x: m.left, y: m.top,
                              width: pw, height: ph });
    svg.appendChild(overlay);
    var tip = h('div', 'tip');
    tip.hidden = true;
    plot.appendChild(tip);

    function nearest(px) {
      var t = rows[0].time + (px - m.left) / pw *
        (rows[rows.length - 1].time - rows[0].time);
      var lo = 0, hi = rows.length - 1;
      while (hi - lo > 1) {
        var mid = (lo + hi) >> 1;
        if (rows[mid].time < t) lo = mid; else hi = mid;
      }
      return t - rows[lo].time <= rows[hi].time - t ? lo : hi;
    }

    overlay.addEventListener('mousemove', function (ev) {
      var box = svg.getBoundingClientRect();
      var px = (ev.clientX - box.left) * width / box.width;
      var i = nearest(px);
      var xx = x(rows[i].time);
      line.setAttribute('x1', xx);
      line.setAttribute('x2', xx);
      tip.textContent = '';
      var when = h('div', 'when', fullTime(rows[i].time));
      when.dataset.time = String(rows[i].time);
      tip.appendChild(when);
      series.forEach(function (sr, k) {
        var v = sr.values[i];
        dots[k].setAttribute('visibility', v === null ? 'hidden' : 'visible');
        if (v !== null) {
          dots[k].setAttribute('cx', xx);
          dots[k].setAttribute('cy', y(v));
        }
        var row = h('div', 'row');
        row.dataset.series = sr.def.key;
        row.appendChild(h('span', 'swatch ' + lineClass(sr.def)));
        row.appendChild(h('span', 'name', sr.def.label));
        var own = sr.own[i];
        var val = h('span', 'val',
          own === null ? '–' : formatValue(own, spec.unit));
        val.dataset.value = own === null ? '' : String(own);
        row.appendChild(val);
        tip.appendChild(row);
      });
      hover.setAttribute('visibility', 'visible');
      tip.hidden = false;
      // Beside the cursor, on the side with room.
      var scale = box.width / width;
      var left = xx * scale + 14;
      if (left + tip.offsetWidth > box.width) {
        left = xx * scale - 14 - tip.offsetWidth;
      }
      tip.style.left = Math.max(0, left) + 'px';
    });
    overlay.addEventListener('mouseleave', function () {
      hover.setAttribute('visibility', 'hidden');
      tip.hidden = true;
    });
  }

  /* ---------- the overview ---------- */

  /*
   * The table's columns.  key: the overview member shown (a node shows
   * nodeKey instead); unit as for graphs, scale as for series; max: a
   * second member shown as "value / max".  first: the direction of a
   * column's first click (numbers largest first).
   */
  var OVERVIEW_COLUMNS = [
    { id: 'cluster', label: 'Cluster', first: 'ascending', clusters: true,
      title: 'The cluster (or standalone host) the files are of' },
    { id: 'id', label: 'ID', first: 'ascending' },
    { id: 'name', label: 'Name', first: 'ascending' },
    { id: 'type', label: 'Type', first: 'ascending' },
    { id: 'node', label: 'Node', first: 'ascending' },
    { id: 'memhost', label: 'Host memory', key: 'memhost',
      nodeKey: 'memused', unit: 'bytes', first: 'descending',
      title: 'Host memory used by the guest (node: memory used)' },
    { id: 'spark', label: 'Last hour',
      title: 'Host memory over the last hour, a point a minute, from its ' +
        'lowest to its highest' },
    { id: 'mem', label: 'Memory', key: 'mem', nodeKey: 'memused',
      max: 'maxmem', nodeMax: 'memtotal', unit: 'bytes', first: 'descending',
      title: 'Memory in use of the configured memory' },
    { id: 'cpu', label: 'CPU', key: 'cpu', unit: 'percent', scale: 100,
      first: 'descending', title: 'CPU usage, % of the CPUs it has' },
    { id: 'pressurecpusome', label: 'CPU some', key: 'pressurecpusome',
      unit: 'percent', first: 'descending',
      title: 'CPU pressure stall, some (avg10, %)' },
    { id: 'pressureiosome', label: 'IO some', key: 'pressureiosome',
      unit: 'percent', first: 'descending',
      title: 'IO pressure stall, some (avg10, %)' },
    { id: 'pressurememorysome', label: 'Memory some',
      key: 'pressurememorysome', unit: 'percent', first: 'descending',
      title: 'Memory pressure stall, some (avg10, %)' },
    { id: 'ksmsaved', label: 'KSM saved', key: 'ksmsaved', unit: 'bytes',
      first: 'descending',
      title: 'Host memory KSM saves the guest (its share of the merged ' +
        'pages); – without a KSM file' }
  ];
  var SPARK_WIDTH = 120;
  var SPARK_HEIGHT = 22;

  /* How old a row is, as a stale row says it: "45 min old". */
  function ageText(age) {
    if (typeof age !== 'number' || !isFinite(age)) return 'no data';
    if (age < 5400) return Math.max(1, Math.round(age / 60)) + ' min old';
    if (age < 172800) return Math.round(age / 3600) + ' h old';
    return Math.round(age / 86400) + ' days old';
  }

  /* Stale as /metrics tells it (pve_up 0): the server's "stale". */
  function isStale(r) { return r.stale === true; }

  /* The columns shown: the cluster's only when some entry has one. */
  function columns() {
    return OVERVIEW_COLUMNS.filter(function (col) {
      return !col.clusters || app.clusters.length > 0;
    });
  }

  function columnById(id) {
    var shown = columns();
    for (var i = 0; i < shown.length; i++) {
      if (shown[i].id === id) return shown[i];
    }
    return null;
  }

  /* The member a column shows for a row. */
  function colKey(col, r) {
    return r.type === 'node' && col.nodeKey ? col.nodeKey : col.key;
  }

  /* The overview's entries, each its resource (as the sidebar's) and the
     answer's values. */
  function takeOverview(data) {
    var rows = [];
    data.forEach(function (r, i) {
      var t = targetOf(r);
      if (!t) return;
      if (typeof r.name === 'string' && r.name !== '') t.name = r.name;
      if (typeof r.node === 'string' && r.node !== '') t.node = r.node;
      rows.push({ target: t, data: r, order: i });
    });
    app.overviewById = {};
    rows.forEach(function (row) { app.overviewById[row.target.id] = row; });
    takeClusters(rows.map(function (row) { return row.target; }));
    return rows;
  }

  /* The value a column sorts by: a number, a string, or null (last). */
  function sortValue(col, row) {
    var t = row.target;
    if (col.id === 'cluster') return t.cluster || null;
    if (col.id === 'id') return t.type === 'node' ? t.node : t.vmid;
    if (col.id === 'name') return t.type === 'node' ? t.node : t.name || null;
    if (col.id === 'type') return t.type;
    if (col.id === 'node') return t.node || null;
    return num(row.data, colKey(col, t));
  }

  function compareRows(col, dir) {
    var sign = dir === 'ascending' ? 1 : -1;
    return function (a, b) {
      var x = sortValue(col, a), y = sortValue(col, b);
      if (x === null || y === null) {
        if (x !== y) return x === null ? 1 : -1;   // unknown last, always
      } else if (x !== y) {
        if (typeof x === 'string' || typeof y === 'string') {
          return sign * String(x).localeCompare(String(y));
        }
        return sign * (x < y ? -1 : 1);
      }
      return a.order - b.order;
    };
  }

  /* The filter: a VMID or name substring (a node by its name), and the
     cluster chosen (#cluster-filter). */
  function filterText() { return el.filter.value.trim().toLowerCase(); }

  function matches(t, q) {
    var c = el.clusterFilter.value;
    if (c !== '' && c !== '=' + (t.cluster || '')) return false;
    if (!q) return true;
    if (t.type === 'node') return t.node.toLowerCase().indexOf(q) >= 0;
    return String(t.vmid).indexOf(q) >= 0 ||
      (!!t.name && t.name.toLowerCase().indexOf(q) >= 0);
  }

  function drawHead() {
    el.overviewHead.textContent = '';
    columns().forEach(function (col) {
      var th = h('th', 'col-' + col.id);
      th.dataset.col = col.id;
      th.scope = 'col';
      if (col.title) th.title = col.title;
      if (col.id === 'spark') {
        th.textContent = col.label;
      } else {
        var b = h('button', 'sort', col.label);
        b.type = 'button';
        b.dataset.sort = col.id;
        th.appendChild(b);
        if (app.sort.col === col.id) th.setAttribute('aria-sort', app.sort.dir);
      }
      el.overviewHead.appendChild(th);
    });
  }

  function onSortClick(ev) {
    var b = ev.target.closest('button[data-sort]');
    if (!b) return;
    var col = columnById(b.dataset.sort);
    if (!col) return;
    if (app.sort.col === col.id) {
      app.sort.dir = app.sort.dir === 'ascending' ? 'descending' : 'ascending';
    } else {
      app.sort = { col: col.id, dir: col.first };
    }
    drawOverview();
  }

  /* A value in its span: data-key and data-value (the number as the
     server sent it, "" when unknown) for whoever reads the table. */
  function valueSpan(r, key, col) {
    var v = num(r, key);
    var span = h('span', 'v', v === null ? '–'
      : formatValue(v * (col.scale || 1), col.unit));
    span.dataset.key = key;
    span.dataset.value = v === null ? '' : String(v);
    return span;
  }

  /* Memory over the last hour, from its lowest value to its highest (at
     least 2% of the highest apart, so that a steady value is a flat line
     in the middle): its shape, as the number beside it says how much;
     gaps where a minute is unknown. */
  function sparkRange(values) {
    var lo = Infinity, hi = -Infinity;
    values.forEach(function (v) {
      if (typeof v !== 'number') return;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    });
    var pad = Math.max(0, Math.abs(hi) * 0.02 - (hi - lo)) / 2;
    return { lo: lo - pad, span: hi - lo + 2 * pad };
  }

  function sparkline(r) {
    var svg = s('svg', { 'class': 'spark', width: SPARK_WIDTH,
                         height: SPARK_HEIGHT, role: 'img',
                         viewBox: '0 0 ' + SPARK_WIDTH + ' ' + SPARK_HEIGHT });
    var values = Array.isArray(r.spark) ? r.spark : [];
    var range = sparkRange(values), n = Math.max(values.length - 1, 1);
    var d = [], seg = [], points = 0;
    var flush = function () {
      if (seg.length) d.push('M' + seg.join('L') + (seg.length === 1 ? 'h1' : ''));
      seg = [];
    };
    values.forEach(function (v, i) {
      if (typeof v !== 'number') { flush(); return; }
      var y = range.span > 0 ? (v - range.lo) / range.span : 0.5;
      seg.push((i / n * (SPARK_WIDTH - 2) + 1).toFixed(1) + ' ' +
        (SPARK_HEIGHT - 2 - y * (SPARK_HEIGHT - 4)).toFixed(1));
      points++;
    });
    flush();
    var p = s('path', { 'class': 'spark-line', d: d.join('') || 'M0 0' });
    if (!d.length) p.setAttribute('visibility', 'hidden');
    p.setAttribute('data-points', String(points));
    svg.appendChild(p);
    return svg;
  }

  function overviewCell(row, col) {
    var t = row.target, r = row.data, td = h('td', 'col-' + col.id);
    if (col.id === 'cluster') {
      td.textContent = t.cluster || '';
    } else if (col.id === 'id') {
      var a = h('a', null, t.type === 'node' ? t.node : String(t.vmid));
      a.href = hashFor(t.id, app.timeframe, app.cf);
      td.appendChild(a);
    } else if (col.id === 'name') {
      td.textContent = t.type === 'node' ? t.node : t.name || '';
      if (isStale(r)) td.appendChild(h('span', 'age', ageText(r.age)));
      if (Array.isArray(r.collisions) && r.collisions.length > 0) {
        td.appendChild(collisionBadge(r.collisions));
      }
    } else if (col.id === 'type') {
      td.textContent = t.type;
    } else if (col.id === 'node') {
      td.textContent = t.node || '';
    } else if (col.id === 'spark') {
      td.appendChild(sparkline(r));
    } else {
      td.appendChild(valueSpan(r, colKey(col, t), col));
      if (col.max) {
        td.appendChild(document.createTextNode(' / '));
        td.appendChild(valueSpan(r, t.type === 'node' ? col.nodeMax : col.max,
                                 col));
      }
    }
    if (col.id === 'memhost' && typeof r.time === 'number' && isStale(r)) {
      td.title = 'last update ' + fullTime(r.time);
    }
    return td;
  }

  /* Another host reports the guest's VMID too (pve_rrd refuses its rows):
     said beside the name, with who and since when, and the way out. */
  function collisionBadge(list) {
    var span = h('span', 'collision', 'collision');
    span.dataset.other = list.map(function (c) { return c.other; }).join(' ');
    span.title = list.map(function (c) {
      return c.other + ' also reports this VMID since ' + fullTime(c.since) +
        '; its rows are refused (the file stays with ' +
        (c.owner || 'its owner') + ')';
    }).join('\n') + '\nSee pvecg check --owners, and pve_rrd\'s <Cluster> ' +
      'blocks.';
    return span;
  }

  function overviewRow(row) {
    var tr = h('tr', 'row');
    tr.dataset.id = row.target.id;
    if (isStale(row.data)) tr.classList.add('stale');
    columns().forEach(function (col) {
      tr.appendChild(overviewCell(row, col));
    });
    return tr;
  }

  /* The table from app.overview: nodes above the guests, each part in the
     chosen order; rows the filter leaves out are hidden. */
  function drawOverview() {
    var rows = app.overview || [];
    var col = columnById(app.sort.col) || columnById('memhost');
    var sorted = rows.slice().sort(compareRows(col, app.sort.dir));
    var parts = { node: document.createDocumentFragment(),
                  guest: document.createDocumentFragment() };
    sorted.forEach(function (row) {
      parts[isGuest(row.target) ? 'guest' : 'node']
        .appendChild(overviewRow(row));
    });
    drawHead();
    el.overviewNodes.textContent = '';
    el.overviewGuests.textContent = '';
    el.overviewNodes.appendChild(parts.node);
    el.overviewGuests.appendChild(parts.guest);
    applyFilter();
  }

  /* Hides the sidebar entries and table rows the filter leaves out. */
  function applyFilter() {
    var q = filterText(), shown = 0, total = 0;
    document.querySelectorAll('a.target[data-id]').forEach(function (a) {
      var t = a.dataset.id === 'overview' ? null : parseId(a.dataset.id);
      var r = t && findResource(t.id);
      if (t) a.parentNode.hidden = !matches(r || t, q);
    });
    document.querySelectorAll('#overview-table tr.row').forEach(function (tr) {
      var t = findOverview(tr.dataset.id);
      var on = !t || matches(t, q);
      tr.hidden = !on;
      if (t && isGuest(t)) { total++; if (on) shown++; }
    });
    app.filterNote = q || el.clusterFilter.value
      ? ' · ' + shown + ' of ' + total + ' guests match' : '';
    if (app.view === 'overview' && app.overviewStatus) {
      setStatus(app.overviewStatus + app.filterNote, false);
    }
  }

  function findOverview(id) {
    var row = app.overviewById[id];
    return row ? row.target : null;
  }

  function onOverviewClick(ev) {
    if (ev.target.closest('a')) return;   // the link navigates by itself
    var tr = ev.target.closest('tr.row');
    if (tr) location.hash = hashFor(tr.dataset.id, app.timeframe, app.cf);
  }

  /* The overview's answer: the one started early, else a new request. */
  function overviewData() {
    var pending = app.overviewPending;
    app.overviewPending = null;
    return pending || getData('api2/json/pvecg/overview');
  }

  function loadOverview() {
    clearTimeout(app.timer);
    var seq = ++app.seq;
    setState('loading');
    if (!app.overview) setStatus('Loading the overview…', false);
    overviewData().then(function (data) {
      if (seq !== app.seq) return;
      if (!Array.isArray(data)) throw new ApiError('overview: not a list');
      app.overview = takeOverview(data);
      drawOverview();
      var guests = app.overview.filter(function (r) {
        return isGuest(r.target);
      }).length;
      app.overviewStatus = (app.overview.length - guests) + ' node(s), ' +
        guests + ' guest(s) · newest values, host memory of the last hour' +
        ' · updated ' + clockTime(new Date()) +
        (app.resourcesError ? ' · ' + app.resourcesError : '');
      setStatus(app.overviewStatus + app.filterNote, false);
      setState('ready');
      if (!app.overviewDrawn && window.performance && performance.mark) {
        performance.mark('pvecg-overview-drawn');
      }
      app.overviewDrawn = true;
    }).catch(function (e) {
      if (seq !== app.seq) return;
      setStatus('Could not load the overview: ' +
        (e && e.message ? e.message : String(e)), true);
      setState('error');
    }).then(function () {
      if (seq === app.seq) schedule();
    });
  }

  /* ---------- loading ---------- */

  function refreshDelay() {
    return app.view === 'overview' || app.timeframe === 'hour' ||
      app.timeframe === 'day' ? 60000 : 300000;
  }

  function schedule() {
    clearTimeout(app.timer);
    app.timer = setTimeout(function () {
      // A refresh also picks up guests added since, and finds a target
      // when the first list could not be had.
      loadResources().then(function () {
        if (app.view === 'overview') loadOverview();
        else if (app.target) load(); else route();
      });
    }, refreshDelay());
  }

  function load() {
    clearTimeout(app.timer);
    if (app.controller) app.controller.abort();
    var t = app.target, tf = app.timeframe, cf = app.cf;
    if (!t) {
      setStatus(app.resourcesError || 'No node or guest to show.',
                !!app.resourcesError);
      setState(app.resourcesError ? 'error' : 'ready');
      schedule();
      return;
    }
    var key = t.id + '|' + tf + '|' + cf;
    if (app.shown && app.shown.key !== key) {
      // Never leave another target's or timeframe's graphs under this one.
      app.shown = null;
      drawAll();
    }
    var seq = ++app.seq;
    var controller = typeof AbortController === 'function'
      ? new AbortController() : null;
    app.controller = controller;
    setState('loading');
    if (!app.shown) setStatus('Loading ' + fullLabel(t) + '…', false);

    var signal = controller && controller.signal;
    Promise.all([getData(rrddataUrl(t, tf, cf), signal),
                 fileRows(t, 'ksm', tf, cf, signal),
                 fileRows(t, 'pressure', tf, cf, signal)])
      .then(function (answers) {
        if (seq !== app.seq) return;
        var data = answers[0];
        if (!Array.isArray(data)) throw new ApiError('rrddata: not a list');
        var rows = data.filter(function (r) {
          return r && typeof r.time === 'number' && isFinite(r.time);
        });
        rows.sort(function (a, b) { return a.time - b.time; });
        joinRows(rows, answers[1]);
        joinRows(rows, answers[2]);
        app.shown = { key: key, target: t, rows: rows,
                      exact: Array.isArray(answers[2]), at: new Date() };
        drawAll();
        var note = rows.length ? rows.length + ' rows' : 'no rows yet';
        setStatus(fullLabel(t) + ' · ' + tf + ', ' +
          (cf === 'MAX' ? 'maximum' : 'average') + ' · ' + note +
          ' · updated ' + clockTime(app.shown.at) +
          (app.resourcesError ? ' · ' + app.resourcesError : ''), false);
        setState('ready');
      })
      .catch(function (e) {
        if (seq !== app.seq || (e && e.name === 'AbortError')) return;
        var msg = e instanceof ApiError ? e.message
          : (e && e.message ? e.message : String(e));
        var text = 'Could not load ' + fullLabel(t) + ': ' + msg;
        if (app.shown && app.shown.key === key) {
          text += ' (showing the data of ' + clockTime(app.shown.at) + ')';
        }
        setStatus(text, true);
        setState('error');
      })
      .then(function () {
        if (seq === app.seq) schedule();
      });
  }

  /* Whether t has pvecg's file of flag ("ksm": its KSM file, "pressure":
     its stall-time file), as the overview says: the table's answer, else
     the first one (asked for once when the page opened on t), so that
     rrddata with ksm=1 or pressure=1 is asked for only where it has rows
     (a 404 would be an error in the browser's console). */
  function hasFile(t, flag) {
    var row = app.overviewById[t.id];
    if (row) return Promise.resolve(row.data[flag] === true);
    if (!app.overviewFirst) {
      app.overviewFirst = getData('api2/json/pvecg/overview');
    }
    return app.overviewFirst.then(function (data) {
      return Array.isArray(data) && data.some(function (r) {
        var o = targetOf(r);
        return o && o.id === t.id && r[flag] === true;
      });
    }, function () { return false; });
  }

  /* The rows of t's file of flag (rrddata with flag=1), null when it has
     none or they cannot be had: the graphs are drawn without them. */
  function fileRows(t, flag, tf, cf, signal) {
    return hasFile(t, flag).then(function (has) {
      if (!has) return null;
      return getData(rrddataUrl(t, tf, cf) + '&' + flag + '=1', signal)
        .then(null, function (e) {
          if (e && e.name === 'AbortError') throw e;
          return null;
        });
    });
  }

  /* A KSM or stall-time file's values into the rows of the same time (the
     files have the same steps and archives). */
  function joinRows(rows, more) {
    if (!Array.isArray(more)) return;
    var byTime = {};
    rows.forEach(function (r) { byTime[r.time] = r; });
    more.forEach(function (k) {
      var r = k && byTime[k.time];
      if (!r) return;
      Object.keys(k).forEach(function (key) {
        if (key !== 'time') r[key] = k[key];
      });
    });
  }

  /* Take the location's view (the overview, or a node or guest),
     timeframe and cf, and load them. */
  function route() {
    var want = parseHash();
    app.timeframe = want.timeframe;
    app.cf = want.cf;
    app.pressure = want.pressure;
    el.timeframe.value = app.timeframe;
    el.cf.value = app.cf;
    el.pressure.value = app.pressure;
    var t = want.id === '' || want.id === 'overview' ? null
      : findResource(want.id) || parseId(want.id);
    if (t) showTarget(t); else showOverview();
  }

  function canonicalize(id) {
    var canonical = hashFor(id, app.timeframe, app.cf);
    if (location.hash !== canonical) history.replaceState(null, '', canonical);
  }

  function showOverview() {
    if (app.controller) app.controller.abort();
    app.view = 'overview';
    app.target = null;
    app.shown = null;
    drawAll();
    document.body.dataset.view = 'overview';
    canonicalize('overview');
    el.title.textContent = 'Overview';
    document.title = 'Overview – pvecg';
    markActive();
    loadOverview();
  }

  function showTarget(t) {
    app.view = 'target';
    app.target = t;
    document.body.dataset.view = 'target';
    canonicalize(t.id);
    var title = (t.type === 'node' ? 'Node ' : 'Guest ') + targetLabel(t);
    if (isGuest(t) && t.type !== 'guest') title += ' · ' + t.type;
    if (isGuest(t) && t.node) title += ' on ' + t.node;
    if (t.cluster) title += ' in cluster ' + t.cluster;
    el.title.textContent = title;
    document.title = fullLabel(t) + ' – pvecg';
    markActive();
    load();
  }

  function onControlChange() {
    var id = app.target ? app.target.id : '';
    location.hash = hashFor(id, el.timeframe.value, el.cf.value,
                            el.pressure.value);
  }

  function onResize() {
    clearTimeout(onResize.timer);
    onResize.timer = setTimeout(function () {
      if (app.shown && el.graphs.clientWidth !== app.width) drawAll();
    }, 150);
  }

  function start() {
    el.nodes = $('nodes');
    el.guests = $('guests');
    el.graphs = $('graphs');
    el.status = $('status');
    el.title = $('target-title');
    el.timeframe = $('timeframe');
    el.cf = $('cf');
    el.pressure = $('pressure');
    el.filter = $('filter');
    el.overviewHead = $('overview-head');
    el.overviewNodes = $('overview-nodes');
    el.overviewGuests = $('overview-guests');
    el.clusterFilter = $('cluster-filter');
    el.filter.addEventListener('input', applyFilter);
    el.clusterFilter.addEventListener('change', applyFilter);
    el.overviewHead.addEventListener('click', onSortClick);
    $('overview-table').addEventListener('click', onOverviewClick);
    el.timeframe.addEventListener('change', onControlChange);
    el.cf.addEventListener('change', onControlChange);
    el.pressure.addEventListener('change', onControlChange);
    $('controls').addEventListener('submit', function (e) {
      e.preventDefault();
    });
    $('token-form').addEventListener('submit', onTokenSubmit);
    window.addEventListener('hashchange', route);
    // Redraw when the graphs' width changes: a window resize, or the
    // scroll bar coming or going.
    if (typeof ResizeObserver === 'function') {
      new ResizeObserver(onResize).observe(el.graphs);
    } else {
      window.addEventListener('resize', onResize);
    }
    setState('loading');
    // The overview's request goes out with the listing's, not after it.
    var first = parseHash().id;
    if (first === '' || first === 'overview') {
      app.overviewPending = getData('api2/json/pvecg/overview');
      app.overviewFirst = app.overviewPending;
      app.overviewPending.catch(function () {});  // handled when taken
    }
    loadResources().then(route);
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', start);
  } else {
    start();
  }
})();
