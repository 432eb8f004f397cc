// The page of q2's HTML report: renders the embedded q2.page/1 data (view
// models built by lib/Profiling/ReportView.cpp) with plotly.js. Large
// reports stay responsive: the timeline arrives reduced, the pass table
// shows rows in pages, the tree builds a node's children when it is opened.
(function () {
  "use strict";

  var data = JSON.parse(document.getElementById("q2-data").textContent);
  var PAGE = 200;   // table rows per page
  var FOLD = 15;    // tree children shown before "N more"
  var BANDS = 400;  // most pass bands drawn on the timeline

  // ---- small helpers ------------------------------------------------------
  function el(tag, attrs) {
    var e = document.createElement(tag);
    if (attrs) for (var k in attrs) {
      if (k === "text") e.textContent = attrs[k];
      else if (k === "cls") e.className = attrs[k];
      else e.setAttribute(k, attrs[k]);
    }
    for (var i = 2; i < arguments.length; ++i) {
      var c = arguments[i];
      if (c === null || c === undefined) continue;
      e.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
    }
    return e;
  }
  function isNum(v) { return typeof v === "number" && isFinite(v); }
  function fmt(v, digits) {
    if (!isNum(v)) return "—";
    return v.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
  }
  function mb(bytes, digits) { return isNum(bytes) ? fmt(bytes / 1e6, digits === undefined ? 1 : digits) + " MB" : "—"; }
  function ms(s) { return isNum(s) ? fmt(s * 1e3, 2) : "—"; }
  function secs(s) { return isNum(s) ? (s >= 1 ? fmt(s, 3) + " s" : fmt(s * 1e3, 2) + " ms") : "—"; }
  function div(d, b) { return isNum(d) ? d / b : null; }
  var PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7", "#9c755f", "#bab0ac"];
  // Charts are drawn once their node is in the page (plotly sizes a chart
  // by its container): plot() queues, flush() draws.
  var queued = [];
  function plot(node, traces, layout) {
    queued.push(function () {
      var l = Object.assign({ margin: { l: 60, r: 20, t: 30, b: 40 }, font: { size: 12 },
                              legend: { orientation: "h", y: -0.18 }, hovermode: "closest" },
                            typeof layout === "function" ? layout(node) : layout || {});
      Plotly.newPlot(node, traces, l, { responsive: true, displaylogo: false });
    });
  }
  function flush() {
    var q = queued;
    queued = [];
    q.forEach(function (f) { f(); });
  }
  function section(id, title) {
    var s = el("section", { id: id }, el("h2", { text: title }));
    return s;
  }

  // ---- summary --------------------------------------------------------------
  function card(k, v, w, id) {
    var vAttrs = { cls: "v", text: v };
    if (id) vAttrs.id = id;
    return el("div", { cls: "card" }, el("div", { cls: "k", text: k }), el("div", vAttrs),
              w ? el("div", { cls: "w", text: w }) : null);
  }
  function summary(v) {
    var h = v.header, t = v.totals;
    var s = section("summary", "Summary");
    var meta = el("dl", { cls: "meta" });
    function row(k, val) { if (val) { meta.appendChild(el("dt", { text: k })); meta.appendChild(el("dd", { text: val })); } }
    row("report", v.label);
    row("tool", h.tool + (h.report_schema ? " (" + h.report_schema + ")" : ""));
    row("input", h.input);
    row("program", h.program);
    row("pipeline", h.pipeline);
    var opts = [];
    for (var k in (h.options || {})) opts.push(k + "=" + (typeof h.options[k] === "string" ? h.options[k] : JSON.stringify(h.options[k])));
    row("options", opts.join(" "));
    row("when", h.when);
    row("where", h.host);
    if (h.error) row("error", h.error);
    s.appendChild(meta);
    var peakWhere = t.peak_rss_stage ? t.peak_rss_stage + (t.peak_rss_pass && t.peak_rss_pass !== t.peak_rss_stage ? " / " + t.peak_rss_pass : "") : "";
    var heapWhere = t.heap_peak_pass || t.heap_peak_stage || "";
    if (t.heap_peak_source === "stage_end") heapWhere += (heapWhere ? " " : "") + "(live at a stage end)";
    else if (t.heap_peak_source === "boundaries") heapWhere += (heapWhere ? " " : "") + "(not exact: mallinfo2 at pass boundaries)";
    s.appendChild(el("div", { cls: "cards" },
      card("compile wall", secs(t.compile_s), "CPU " + secs(t.compile_cpu_s), "total-compile"),
      card("peak RSS", mb(t.peak_rss_bytes), peakWhere, "peak-rss"),
      card("heap peak", mb(t.heap_peak_bytes), heapWhere, "heap-peak"),
      card("lifetime peak RSS", mb(t.lifetime_peak_rss_bytes), "whole process"),
      card("passes", fmt(t.passes, 0), fmt(t.stages, 0) + " stages"),
      card("profiler overhead", secs(t.profiler_overhead_s), "excluded from pass times")));
    return s;
  }

  // ---- memory timeline ------------------------------------------------------
  function timeline(v) {
    var tl = v.timeline, s = section("timeline", "Memory timeline");
    var caption = el("p", { cls: "muted", text: "RSS " + tl.source + (tl.points > tl.rss.t.length ? " (" + tl.points.toLocaleString() + " points, drawn as " + tl.rss.t.length.toLocaleString() + " slice maxima)" : "") + "; heap " + tl.heap_source + ". Bands: stages (top), passes (bottom)." });
    s.appendChild(caption);
    var node = el("div", { cls: "plot", id: "timeline-plot", style: "min-height:380px" });
    s.appendChild(node);
    if (!tl.rss.t.length) { node.textContent = "No memory samples in this report."; return s; }
    // The timeline arrives reduced (at most a few thousand points): SVG
    // lines, no WebGL needed.
    var traces = [{ x: tl.rss.t, y: tl.rss.y.map(function (b) { return b / 1e6; }), text: tl.rss.label,
                    type: "scatter", mode: "lines", name: "RSS (MB)", line: { color: "#1f6feb", width: 1.5 },
                    hovertemplate: "%{x:.3f} s<br>%{y:.1f} MB<br>%{text}<extra>RSS</extra>" }];
    // Heap on its own axis (right): a few MB next to a process's RSS.
    if (tl.heap.t.length)
      traces.push({ x: tl.heap.t, y: tl.heap.y.map(function (b) { return b / 1e6; }), text: tl.heap.label, yaxis: "y2",
                    type: "scatter", mode: "lines", opacity: tl.heap.t.length > 500 ? 0.45 : 1,
                    line: { shape: "hv", color: "#59a14f", width: tl.heap.t.length > 500 ? 0.8 : 1.2 },
                    name: "heap (MB, right axis)", hovertemplate: "%{x:.3f} s<br>%{y:.2f} MB<br>%{text}<extra>heap</extra>" });
    var shapes = [], ann = [];
    var t0 = Math.min.apply(null, tl.rss.t), t1 = Math.max.apply(null, tl.rss.t);
    v.stages.forEach(function (st) { t0 = Math.min(t0, st.t0); t1 = Math.max(t1, st.t1); });
    var span = Math.max(t1 - t0, 1e-9);
    // Labels only where they fit (the band's width in pixels against the
    // label's), else the stage's number, else none: the hover names every
    // point's stage and pass, and the stage chart below numbers them too.
    var px = Math.max(300, (document.getElementById("q2-main").clientWidth || 1100) - 140) / span;
    v.stages.forEach(function (st, i) {
      if (!(st.t1 > st.t0)) return;
      shapes.push({ type: "rect", xref: "x", yref: "paper", x0: st.t0, x1: st.t1, y0: 0.9, y1: 1,
                    fillcolor: PALETTE[i % PALETTE.length], opacity: 0.35, line: { width: 0 }, layer: "below" });
      shapes.push({ type: "rect", xref: "x", yref: "paper", x0: st.t0, x1: st.t1, y0: 0, y1: 0.9,
                    fillcolor: PALETTE[i % PALETTE.length], opacity: 0.06, line: { width: 0 }, layer: "below" });
      var room = (st.t1 - st.t0) * px, label = null;
      if (room > 6.5 * st.name.length + 8) label = st.name;
      else if (room > 22) label = String(i + 1);
      if (label)
        ann.push({ x: (st.t0 + st.t1) / 2, y: 0.95, xref: "x", yref: "paper", text: label,
                   showarrow: false, font: { size: 10 }, hovertext: (i + 1) + ". " + st.name });
    });
    // Pass bands: the top-level passes, unless there are too many to see
    // (then the stage bands and the hover say where a point is).
    var tops = v.passes.filter(function (p) { return p.depth === 0 && p.t1 > p.t0; });
    if (tops.length > BANDS) {
      caption.textContent += " (" + tops.length.toLocaleString() + " top-level passes: no pass bands)";
      tops = [];
    }
    tops.forEach(function (p, i) {
      shapes.push({ type: "rect", xref: "x", yref: "paper", x0: p.t0, x1: p.t1, y0: 0, y1: 0.04,
                    fillcolor: PALETTE[(p.i + 3) % PALETTE.length], opacity: 0.8, line: { width: 0 } });
    });
    if (tl.peak) {
      var label = tl.peak.label || "";
      traces.push({ x: [tl.peak.t], y: [tl.peak.rss_bytes / 1e6], type: "scatter", mode: "markers", name: "peak",
                    marker: { color: "#cf222e", size: 11, symbol: "x" }, text: [label],
                    hovertemplate: "peak %{y:.1f} MB at %{x:.3f} s<br>%{text}<extra></extra>" });
      ann.push({ x: tl.peak.t, y: tl.peak.rss_bytes / 1e6, xref: "x", yref: "y", ax: 0, ay: -30,
                 text: "peak " + fmt(tl.peak.rss_bytes / 1e6, 1) + " MB" + (label ? " (" + (label.length > 40 ? label.slice(0, 38) + "…" : label) + ")" : ""),
                 arrowcolor: "#cf222e", font: { color: "#cf222e", size: 11 },
                 xanchor: tl.peak.t > (t0 + t1) / 2 ? "right" : "left" });
    }
    plot(node, traces, { shapes: shapes, annotations: ann,
                         xaxis: { title: "seconds since start (stages numbered as below)", range: [t0, t1] },
                         yaxis: { title: "RSS MB", rangemode: "tozero" },
                         yaxis2: { title: "heap MB", overlaying: "y", side: "right", rangemode: "tozero", showgrid: false },
                         margin: { l: 60, r: 60, t: 30, b: 40 }, height: 400 });
    return s;
  }

  // ---- stages: time and IR size -------------------------------------------------
  function stagesSection(v) {
    var s = section("stages", "Stages: time and IR size");
    var st = v.stages;
    // Long stage names (a func.func(...) element of many passes) are
    // shortened in the middle for the axis; the hover has them whole.
    var label = function (x, i) {
      var n = x.name.length > 40 ? x.name.slice(0, 19) + "\u2026" + x.name.slice(-20) : x.name;
      return (i + 1) + ". " + n;
    };
    var names = st.map(label);
    var h = Math.max(260, 22 * st.length + 80);
    var g = el("div", { cls: "grid2" });
    var a = el("div", { cls: "plot", id: "stage-time-plot" }), b = el("div", { cls: "plot", id: "stage-ir-plot" });
    g.appendChild(a); g.appendChild(b); s.appendChild(g);
    var yaxis = { autorange: "reversed", automargin: true, tickfont: { size: 10 } };
    plot(a, [{ type: "bar", orientation: "h", y: names, x: st.map(function (x) { return x.wall_s * 1e3; }), name: "wall ms", marker: { color: "#4e79a7" },
               customdata: st.map(function (x) { return x.name; }), hovertemplate: "%{customdata}<br>%{x:.2f} ms<extra>wall</extra>" },
             { type: "bar", orientation: "h", y: names, x: st.map(function (x) { return x.cpu_s * 1e3; }), name: "CPU ms", marker: { color: "#a0cbe8" },
               customdata: st.map(function (x) { return x.name; }), hovertemplate: "%{customdata}<br>%{x:.2f} ms<extra>CPU</extra>" }],
         { title: { text: "wall / CPU (ms)", font: { size: 13 } }, barmode: "group", yaxis: yaxis, height: h });
    var withIR = st.filter(function (x) { return isNum(x.ir_bytes); });
    if (withIR.length) {
      var n2 = withIR.map(function (x) { return label(x, st.indexOf(x)); });
      plot(b, [{ type: "bar", orientation: "h", y: n2, x: withIR.map(function (x) { return x.ir_bytes / 1e3; }), name: "IR kB", marker: { color: "#f28e2b" },
                 text: withIR.map(function (x) { return isNum(x.ir_lines) ? fmt(x.ir_lines, 0) + " lines" : x.ir_kind; }), textposition: "auto",
                 customdata: withIR.map(function (x) { return x.name; }),
                 hovertemplate: "%{customdata}<br>%{x:.1f} kB, %{text}<extra></extra>" }],
           { title: { text: "IR after the stage (kB; lines)", font: { size: 13 } }, yaxis: yaxis, height: h, xaxis: withIR.some(function (x) { return x.ir_bytes > 0; }) ? { type: "log", dtick: 1 } : { type: "linear" } });
    } else {
      b.textContent = "No IR sizes in this report.";
    }
    // The stage table, as `q2-profile show` prints it.
    var cols = [["Stage", "name", null, "name"], ["kind", "kind"], ["Wall ms", "wall_s", ms], ["CPU ms", "cpu_s", ms],
                ["RSS MB", "rss_after_bytes", function (x) { return mb(x).replace(" MB", ""); }],
                ["Peak MB", "peak_rss_bytes", function (x) { return mb(x).replace(" MB", ""); }],
                ["Heap MB", "heap_after_bytes", function (x) { return mb(x).replace(" MB", ""); }],
                ["Heap peak MB", "heap_peak_bytes", function (x) { return mb(x).replace(" MB", ""); }],
                ["IR kB", "ir_bytes", function (x) { return isNum(x) ? fmt(x / 1e3, 1) : "—"; }],
                ["IR lines", "ir_lines", function (x) { return fmt(x, 0); }],
                ["Ampl.", "ampl", function (x) { return isNum(x) ? fmt(x, 2) + "x" : "—"; }]];
    s.appendChild(sortableTable("stage-table", cols, st, { pageSize: 1000 }));
    return s;
  }

  // ---- sortable, paged table ---------------------------------------------------
  function sortableTable(id, cols, rows, opts) {
    opts = opts || {};
    var wrap = el("div"), controls = el("div", { cls: "controls" });
    var state = { key: opts.sortKey || null, dir: opts.sortKey ? -1 : 0, shown: opts.pageSize || PAGE, filter: "" };
    var table = el("table", { cls: "q2", id: id }), thead = el("thead"), tbody = el("tbody");
    table.appendChild(thead); table.appendChild(tbody);
    var tr = el("tr");
    cols.forEach(function (c) {
      var th = el("th", { text: c[0], cls: c[3] || "", "data-key": c[1] });
      th.addEventListener("click", function () {
        if (state.key === c[1]) state.dir = -state.dir; else { state.key = c[1]; state.dir = typeof rows[0] === "object" && typeof (rows[0] || {})[c[1]] === "string" ? 1 : -1; }
        draw();
      });
      tr.appendChild(th);
    });
    thead.appendChild(tr);
    var info = el("span", { cls: "muted" }), more = el("button", { text: "show more" }), all = el("button", { text: "show all" });
    if (opts.filter) {
      var input = el("input", { type: "search", placeholder: "filter passes, ops, stages…" });
      input.addEventListener("input", function () { state.filter = input.value.toLowerCase(); state.shown = opts.pageSize || PAGE; draw(); });
      controls.appendChild(input);
    }
    controls.appendChild(info); controls.appendChild(more); controls.appendChild(all);
    more.addEventListener("click", function () { state.shown += PAGE; draw(); });
    all.addEventListener("click", function () { state.shown = Infinity; draw(); });
    function draw() {
      Array.prototype.forEach.call(thead.querySelectorAll("th"), function (th) {
        th.classList.remove("sorted-asc", "sorted-desc");
        if (th.getAttribute("data-key") === state.key) th.classList.add(state.dir > 0 ? "sorted-asc" : "sorted-desc");
      });
      var list = rows;
      if (state.filter) list = list.filter(function (r) { return opts.filter(r).toLowerCase().indexOf(state.filter) >= 0; });
      if (state.key) {
        var k = state.key, d = state.dir;
        list = list.slice().sort(function (a, b) {
          var x = a[k], y = b[k];
          var xn = x === null || x === undefined, yn = y === null || y === undefined;
          if (xn || yn) return xn === yn ? 0 : xn ? 1 : -1; // absent last
          return (x < y ? -1 : x > y ? 1 : 0) * d;
        });
      }
      tbody.textContent = "";
      var n = Math.min(list.length, state.shown);
      var frag = document.createDocumentFragment();
      for (var i = 0; i < n; ++i) {
        var r = list[i], row = el("tr");
        if (opts.rowClass) { var cls = opts.rowClass(r); if (cls) row.className = cls; }
        cols.forEach(function (c) {
          var val = r[c[1]];
          row.appendChild(el("td", { cls: c[3] || "", text: c[2] ? c[2](val, r) : (val === null || val === undefined ? "—" : String(val)) }));
        });
        frag.appendChild(row);
      }
      tbody.appendChild(frag);
      info.textContent = n.toLocaleString() + " of " + list.length.toLocaleString() + " rows";
      more.hidden = all.hidden = n >= list.length;
    }
    draw();
    wrap.appendChild(controls);
    var tw = el("div", { cls: "tablewrap" }, table);
    wrap.appendChild(tw);
    return wrap;
  }

  // ---- passes --------------------------------------------------------------------
  function passesSection(v) {
    var s = section("passes", "Passes");
    var rows = v.passes.filter(function (p) { return !p.adaptor; });
    s.appendChild(el("p", { cls: "muted", text: rows.length.toLocaleString() + " pass executions (pipeline adaptors left out). Click a column to sort; the highlighted row holds the RSS peak." }));
    var peak = v.totals.peak_rss_pass, peakStage = v.totals.peak_rss_stage;
    function mbc(x) { return isNum(x) ? fmt(x / 1e6, 1) : "—"; }
    function kbc(x) { return isNum(x) ? fmt(x / 1e3, 1) : "—"; }
    var cols = [["#", "i", function (x) { return String(x); }], ["Pass", "label", null, "name"],
                ["Op", "op", function (x, r) { return x + (r.op_symbol ? " @" + r.op_symbol : ""); }, "op"],
                ["Stage", "stage", null, "name"], ["Wall ms", "wall_s", ms], ["Self ms", "self_wall_s", ms], ["CPU ms", "cpu_s", ms],
                ["RSS MB", "rss_after_bytes", mbc], ["ΔRSS MB", "rss_delta_bytes", mbc], ["Heap MB", "heap_after_bytes", mbc],
                ["Heap peak MB", "heap_peak_bytes", mbc], ["IR kB", "ir_bytes", kbc], ["IR lines", "ir_lines", function (x) { return fmt(x, 0); }],
                ["IR growth kB", "ir_growth_bytes", kbc]];
    s.appendChild(sortableTable("pass-table", cols, rows, {
      sortKey: "wall_s",
      filter: function (r) { return r.label + " " + r.op + " " + r.op_symbol + " " + r.stage; },
      rowClass: function (r) { return r.failed ? "failed" : (r.label === peak && r.stage === peakStage ? "peak" : ""); } }));
    // Top passes by wall (merged per stage and label): readable at any size.
    var merged = {}, order = [];
    rows.forEach(function (p) {
      var k = p.stage + "\u0000" + p.label;
      if (!merged[k]) { merged[k] = { label: p.label, stage: p.stage, wall: 0, n: 0 }; order.push(k); }
      merged[k].wall += p.wall_s; merged[k].n += 1;
    });
    var list = order.map(function (k) { return merged[k]; }).sort(function (a, b) { return b.wall - a.wall; });
    var topN = 25, top = list.slice(0, topN), rest = list.slice(topN);
    var restWall = rest.reduce(function (a, x) { return a + x.wall; }, 0);
    var names = top.map(function (x) { return x.label + (x.n > 1 ? " (x" + x.n + ")" : "") + (x.stage && x.stage !== x.label ? " [" + x.stage + "]" : ""); });
    var vals = top.map(function (x) { return x.wall * 1e3; });
    if (rest.length) { names.push(rest.length + " more passes"); vals.push(restWall * 1e3); }
    var node = el("div", { cls: "plot", id: "top-passes-plot" });
    s.appendChild(node);
    plot(node, [{ type: "bar", orientation: "h", y: names, x: vals, marker: { color: names.map(function (n, i) { return i < top.length ? "#4e79a7" : "#bab0ac"; }) },
                  hovertemplate: "%{y}<br>%{x:.2f} ms<extra></extra>" }],
         { title: { text: "top " + top.length + " passes by wall time (ms)" + (rest.length ? ", the rest summed" : ""), font: { size: 13 } },
           yaxis: { autorange: "reversed", automargin: true, tickfont: { size: 10 } }, height: Math.max(260, 20 * names.length + 80) });
    return s;
  }

  // ---- the pass tree -------------------------------------------------------------------
  function treeSection(v) {
    var s = section("tree", "Pass tree");
    s.appendChild(el("p", { cls: "muted", text: "Nested as MLIR nests the passes; a pass run on several ops is one row (xN). Wall, share of the total, RSS after, heap peak, IR after." }));
    var total = v.totals.tree_wall_s;
    function rowOf(n) {
      var label = n.label + (n.count > 1 ? " (x" + n.count + " " + n.op + ")" : "") + (n.failed ? "  FAILED" : "");
      return el("div", { cls: "tree-row" }, el("span", { text: label }), el("span", { text: ms(n.wall_s) + " ms" }),
                el("span", { text: total > 0 ? fmt(100 * n.wall_s / total, 1) + "%" : "" }),
                el("span", { text: mb(n.rss_after_bytes) }), el("span", { text: isNum(n.ir_bytes) ? fmt(n.ir_bytes / 1e3, 1) + " kB" : "—" }));
    }
    function nodeOf(n) {
      var kids = n.children || [];
      if (!kids.length) return el("div", { style: "padding-left:18px" }, rowOf(n));
      var d = el("details", { cls: "tree" }), sum = el("summary");
      sum.appendChild(rowOf(n)); d.appendChild(sum);
      var built = false;
      d.addEventListener("toggle", function () {
        if (built || !d.open) return;
        built = true;
        var box = el("div", { style: "padding-left:18px" });
        appendKids(box, kids);
        d.appendChild(box);
      });
      return d;
    }
    function appendKids(box, kids) {
      if (kids.length <= FOLD + 1) { kids.forEach(function (k) { box.appendChild(nodeOf(k)); }); return; }
      var idx = kids.map(function (k, i) { return i; }).sort(function (a, b) { return kids[b].wall_s - kids[a].wall_s; }).slice(0, FOLD);
      var keep = {}; idx.forEach(function (i) { keep[i] = true; });
      var rest = [];
      kids.forEach(function (k, i) { if (keep[i]) box.appendChild(nodeOf(k)); else rest.push(k); });
      var restWall = rest.reduce(function (a, k) { return a + k.wall_s; }, 0);
      var d = el("details", { cls: "tree" }), sum = el("summary");
      sum.appendChild(rowOf({ label: "… " + rest.length + " more", wall_s: restWall, count: 1 }));
      d.appendChild(sum);
      var built = false;
      d.addEventListener("toggle", function () {
        if (built || !d.open) return;
        built = true;
        var inner = el("div");
        rest.forEach(function (k) { inner.appendChild(nodeOf(k)); });
        d.appendChild(inner);
      });
      box.appendChild(d);
    }
    var box = el("div", { id: "pass-tree" });
    appendKids(box, v.tree);
    s.appendChild(box);
    return s;
  }

  // ---- compare ---------------------------------------------------------------------------
  function compareSection(c) {
    var s = section("compare", "Compare: A " + c.a.spec + "  vs  B " + c.b.spec);
    var regress = c.regressions > 0;
    s.appendChild(el("p", {}, el("span", { cls: regress ? "verdict-regression" : "verdict-improvement", id: "compare-verdict",
      text: regress ? "REGRESSION (" + c.regressions + " gated)" : "no regression" }), " — " + c.improvements + " improvements. " + c.rule));
    (c.warnings || []).concat(c.option_differences || []).forEach(function (w) { s.appendChild(el("div", { cls: "muted", text: w })); });
    var rows = c.rows.filter(function (r) { return r.kind !== "pass" || r.verdict !== "same"; });
    var stageWall = c.rows.filter(function (r) { return r.kind === "stage" && r.metric === "wall_s" && r.point === (c.rows[0] || {}).point; });
    if (stageWall.length) {
      var node = el("div", { cls: "plot", id: "compare-plot" });
      s.appendChild(node);
      var names = stageWall.map(function (r) { return r.name; });
      plot(node, [{ type: "bar", orientation: "h", y: names, x: stageWall.map(function (r) { return (r.a || 0) * 1e3; }), name: "A" },
                  { type: "bar", orientation: "h", y: names, x: stageWall.map(function (r) { return (r.b || 0) * 1e3; }), name: "B",
                    marker: { color: stageWall.map(function (r) { return r.verdict === "regression" ? "#cf222e" : r.verdict === "improvement" ? "#1a7f37" : "#f28e2b"; }) } }],
           { barmode: "group", title: { text: "stage wall time (ms), median of runs; B red where it regressed", font: { size: 13 } },
             yaxis: { autorange: "reversed", automargin: true }, height: Math.max(260, 34 * names.length + 80) });
    }
    function val(x, r) { if (!isNum(x)) return "—"; return /_s$/.test(r.metric) ? fmt(x * 1e3, 2) + " ms" : /bytes/.test(r.metric) ? fmt(x / 1e3, 1) + " kB" : fmt(x, 0); }
    var cols = [["point", "point", null, "name"], ["kind", "kind"], ["name", "name", null, "name"], ["metric", "metric"],
                ["A", "a", val], ["B", "b", val], ["Δ%", "rel_pct", function (x) { return isNum(x) ? (x > 0 ? "+" : "") + fmt(x, 1) + "%" : "—"; }],
                ["verdict", "verdict"]];
    s.appendChild(sortableTable("compare-table", cols, rows, {
      filter: function (r) { return r.point + " " + r.name + " " + r.metric + " " + r.verdict; },
      rowClass: function (r) { return r.verdict === "regression" ? "failed" : ""; } }));
    return s;
  }

  // ---- sweep -------------------------------------------------------------------------------------
  function sweepSection(sw) {
    var s = section("sweep", "Sweep");
    var pts = sw.points || [];
    s.appendChild(el("p", { cls: "muted", text: pts.length + " points from " + (sw.dirs || []).join(", ") + "; x = n_est × n_trotter × n_terms (the size of the circuit)." }));
    var series = {};
    pts.forEach(function (p) {
      if (p.status !== "ok") return;
      var k = p.molecule + " " + p.mode;
      (series[k] = series[k] || []).push(p);
    });
    var g = el("div", { cls: "grid2" });
    var a = el("div", { cls: "plot", id: "sweep-time-plot" }), b = el("div", { cls: "plot", id: "sweep-rss-plot" });
    g.appendChild(a); g.appendChild(b); s.appendChild(g);
    function curves(field, scale) {
      return Object.keys(series).map(function (k, i) {
        var ps = series[k].slice().sort(function (p, q) { return (p.x || 0) - (q.x || 0); });
        return { x: ps.map(function (p) { return isNum(p.x) ? p.x : p.n_est * p.n_trotter; }), y: ps.map(function (p) { return isNum(p[field]) ? p[field] * scale : null; }),
                 text: ps.map(function (p) { return p.key; }), mode: "lines+markers", name: k, line: { color: PALETTE[i % PALETTE.length] },
                 hovertemplate: "%{text}<br>x %{x}<br>%{y:.3f}<extra></extra>" };
      });
    }
    plot(a, curves("compile_s", 1), { title: { text: "compile time (s)", font: { size: 13 } }, xaxis: { title: "x", type: "log" }, yaxis: { type: "log" } });
    plot(b, curves("peak_rss_mb", 1), { title: { text: "peak RSS (MB)", font: { size: 13 } }, xaxis: { title: "x", type: "log" }, yaxis: { type: "log" } });
    var cols = [["point", "key", null, "name"], ["status", "status"], ["reason", "reason"], ["n_est", "n_est"], ["n_trotter", "n_trotter"],
                ["x", "x", function (x) { return fmt(x, 0); }], ["compile s", "compile_s", function (x) { return fmt(x, 3); }],
                ["peak RSS MB", "peak_rss_mb", function (x) { return fmt(x, 1); }]];
    s.appendChild(sortableTable("sweep-table", cols, pts, { filter: function (r) { return r.key + " " + r.status + " " + r.reason; },
      rowClass: function (r) { return r.status !== "ok" ? "failed" : ""; } }));
    return s;
  }

  // ---- the page ----------------------------------------------------------------------------------
  function renderReport(box, v) {
    box.textContent = "";
    [summary, timeline, stagesSection, passesSection, treeSection].forEach(function (f) { box.appendChild(f(v)); });
    flush();
  }

  function render() {
    document.getElementById("q2-title").textContent = data.title || "q2 profile";
    var main = document.getElementById("q2-main"), nav = document.getElementById("q2-nav");
    main.textContent = "";
    var views = data.views || [];
    if (views.length > 1) {
      var sel = el("select", { id: "report-select" });
      views.forEach(function (v, i) { sel.appendChild(el("option", { value: String(i), text: v.label })); });
      nav.appendChild(el("label", {}, "report: ", sel));
    }
    ["summary", "timeline", "stages", "passes", "tree"].forEach(function (id) { if (views.length) nav.appendChild(el("a", { href: "#" + id, text: id })); });
    if (data.compare) nav.appendChild(el("a", { href: "#compare", text: "compare" }));
    if (data.sweep) nav.appendChild(el("a", { href: "#sweep", text: "sweep" }));
    if (data.compare) main.appendChild(compareSection(data.compare));
    if (data.sweep) main.appendChild(sweepSection(data.sweep));
    flush();
    if (views.length) {
      var box = el("div", { id: "report-view" });
      main.appendChild(box);
      renderReport(box, views[0]);
      if (sel) sel.addEventListener("change", function () { renderReport(box, views[+sel.value]); });
    }
  }

  try {
    render();
    if (document.body.getAttribute("data-q2-status") !== "error")
      document.body.setAttribute("data-q2-status", "ok");
  } catch (e) {
    window.q2Errors.push(String(e && e.stack || e));
    var pre = document.getElementById("q2-errors");
    pre.hidden = false;
    pre.textContent += "script error: " + (e && e.stack || e) + "\n";
    document.body.setAttribute("data-q2-status", "error");
    throw e;
  }
})();
