// trace view: draws the space-time diagram of a run (or two, for a diff)
// from the data trace-view put in the page. Written by hand, no library:
// lanes are columns, time goes down, one row per Lamport clock tick. Only
// the rows and lanes in sight are drawn, so 100,000 events scroll as
// smoothly as ten. Causal pasts and futures are computed here, from the
// arrows: the window the page shows is convex in happened-before, so
// they are exact.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("trace-data").textContent);
  const CODES = DATA.codes;
  const KIND = {};
  CODES.kinds.forEach((n, i) => { KIND[n] = i; });
  const LINK = {};
  CODES.links.forEach((n, i) => { LINK[n] = i; });
  const SPAWN_LINK = -2; // an arrow from a spawn to the child's first event
  const HEAD_H = 46;
  const TOP_PAD = 14;
  const MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";

  // Colours: one per kind of arrow; past and future of a selection.
  const LINK_COLOR = {
    message: "#1f6feb", delivery: "#7aa7e6", converted: "#8250df",
    link: "#9a6700", unlink: "#bf8700", exit: "#cf222e", exit_link: "#cf222e",
    monitor: "#6639ba", demonitor: "#8c6fd1", down: "#953800", spawn: "#1a7f37",
  };
  const DASHED = { delivery: [4, 3], unlink: [5, 3], exit_link: [6, 3], demonitor: [5, 3], spawn: [6, 4], converted: [2, 3] };
  const PAST = "#0969da", FUTURE = "#e16f24", FIND = "#d4a72c", MARK_AT = "#cf222e", MARK_SLICE = "#a475f9", RACE = "#e16f24";

  function linkName(code) { return code === SPAWN_LINK ? "spawn" : CODES.links[code]; }

  // ---- One run's data, ready to draw and to query ----------------------
  class Run {
    constructor(d, index) {
      this.index = index;
      this.d = d;
      this.title = d.title;
      this.lanes = d.lanes;
      const ev = d.events;
      const n = ev.l.length;
      this.n = n;
      this.lane = Int32Array.from(ev.l);
      this.idx = Float64Array.from(ev.i);
      this.row = Int32Array.from(ev.r);
      this.kind = Uint8Array.from(ev.k);
      this.flag = Uint8Array.from(ev.f);
      this.cause = Int32Array.from(ev.c);
      this.link = Int8Array.from(ev.a);
      this.obj = Int32Array.from(ev.o);
      this.seq = Float64Array.from(ev.q);
      this.text = ev.t;
      this.ns = ev.ns;
      this.rows = d.rows;
      const L = this.lanes.length;
      // Events of each lane, in its order (a derivation keeps program order),
      // and each event's position there. Object lanes list their operations.
      const count = new Int32Array(L);
      for (let g = 0; g < n; g++) {
        count[this.lane[g]]++;
        if (this.obj[g] >= 0) count[this.obj[g]]++;
      }
      this.laneEvents = [];
      for (let l = 0; l < L; l++) this.laneEvents.push(new Int32Array(count[l]));
      const fill = new Int32Array(L);
      this.pos = new Int32Array(n);
      for (let g = 0; g < n; g++) {
        const l = this.lane[g];
        this.pos[g] = fill[l];
        this.laneEvents[l][fill[l]++] = g;
        const o = this.obj[g];
        if (o >= 0) this.laneEvents[o][fill[o]++] = g;
      }
      // An operation's place on its object's lane: the one before it there
      // happened before it (happened-before orders an object's operations).
      this.opos = new Int32Array(n).fill(-1);
      for (let l = 0; l < L; l++) {
        if (this.lanes[l].kind === "process") continue;
        const evs = this.laneEvents[l];
        evs.sort((a, b) => this.row[a] - this.row[b]);
        for (let q = 0; q < evs.length; q++) this.opos[evs[q]] = q;
      }
      // Events by row (counting sort).
      const rs = new Int32Array(this.rows + 1);
      for (let g = 0; g < n; g++) rs[this.row[g] + 1]++;
      for (let r = 0; r < this.rows; r++) rs[r + 1] += rs[r];
      this.rowStart = rs;
      this.byRow = new Int32Array(n);
      const at = rs.slice(0, this.rows);
      for (let g = 0; g < n; g++) this.byRow[at[this.row[g]]++] = g;
      // What each event caused: receipts of its sends, the first event of
      // the processes it spawned.
      const ec = new Int32Array(n + 1);
      for (let g = 0; g < n; g++) if (this.cause[g] >= 0) ec[this.cause[g] + 1]++;
      this.spawned = new Map();
      for (let l = 0; l < L; l++) {
        const s = this.lanes[l].spawn;
        if (s !== null && s !== undefined && this.laneEvents[l].length) {
          ec[s + 1]++;
          this.spawned.set(this.laneEvents[l][0], s);
        }
      }
      for (let g = 0; g < n; g++) ec[g + 1] += ec[g];
      this.effStart = ec;
      this.effects = new Int32Array(ec[n]);
      const ef = ec.slice(0, n);
      for (let g = 0; g < n; g++) if (this.cause[g] >= 0) this.effects[ef[this.cause[g]]++] = g;
      for (let l = 0; l < L; l++) {
        const s = this.lanes[l].spawn;
        if (s !== null && s !== undefined && this.laneEvents[l].length) this.effects[ef[s]++] = this.laneEvents[l][0];
      }
      this.buildArrows();
      this.races = d.races || [];
      this.raceOf = new Set();
      for (const [a, b] of this.races) { this.raceOf.add(a); this.raceOf.add(b); }
      this.lower = null; // lower-cased search text, made on the first search
    }

    // Arrows sorted by their start row; those spanning many rows apart.
    buildArrows() {
      const from = [], to = [], link = [];
      for (let g = 0; g < this.n; g++) {
        if (this.cause[g] >= 0) { from.push(this.cause[g]); to.push(g); link.push(this.link[g]); }
      }
      for (const [first, s] of this.spawned) { from.push(s); to.push(first); link.push(SPAWN_LINK); }
      const order = from.map((_, i) => i).sort((a, b) => this.row[from[a]] - this.row[from[b]]);
      const SHORT = 512;
      this.arrowSpan = SHORT;
      const sf = [], st = [], sl = [], lf = [], lt = [], ll = [];
      for (const i of order) {
        const span = this.row[to[i]] - this.row[from[i]];
        if (span <= SHORT) { sf.push(from[i]); st.push(to[i]); sl.push(link[i]); } else { lf.push(from[i]); lt.push(to[i]); ll.push(link[i]); }
      }
      this.short = { from: Int32Array.from(sf), to: Int32Array.from(st), link: Int32Array.from(sl) };
      this.long = { from: Int32Array.from(lf), to: Int32Array.from(lt), link: Int32Array.from(ll) };
      this.arrowCount = from.length;
      this.arrowsByLink = {};
      for (const c of link) { const k = linkName(c); this.arrowsByLink[k] = (this.arrowsByLink[k] || 0) + 1; }
    }

    name(g) { return this.lanes[this.lane[g]].name + "#" + this.idx[g]; }

    find(name) {
      const m = /^(.*)#(\d+)$/.exec(name.trim());
      if (!m) return -1;
      const l = this.lanes.findIndex((x) => x.name === m[1] && x.kind === "process");
      if (l < 0) return -1;
      const evs = this.laneEvents[l], want = Number(m[2]);
      for (let q = 0; q < evs.length; q++) if (this.idx[evs[q]] === want) return evs[q];
      return -1;
    }

    // The causal past of g (bit 1) and its future (bit 2): a prefix, and a
    // suffix, of every lane, grown along the arrows and along each shared
    // object's order of operations.
    marks(g) {
      const L = this.lanes.length;
      const mark = new Uint8Array(this.n);
      const hi = new Int32Array(L).fill(-1);
      const stack = [g];
      while (stack.length) {
        const x = stack.pop();
        const l = this.lane[x], p = this.pos[x];
        if (p <= hi[l]) continue;
        const evs = this.laneEvents[l];
        for (let q = hi[l] + 1; q <= p; q++) {
          const y = evs[q];
          mark[y] |= 1;
          if (this.cause[y] >= 0) stack.push(this.cause[y]);
          const s = this.spawned.get(y);
          if (s !== undefined) stack.push(s);
          if (this.opos[y] > 0) stack.push(this.laneEvents[this.obj[y]][this.opos[y] - 1]);
        }
        hi[l] = p;
      }
      const lo = new Int32Array(L).fill(0x7fffffff);
      stack.push(g);
      while (stack.length) {
        const x = stack.pop();
        const l = this.lane[x], p = this.pos[x];
        if (p >= lo[l]) continue;
        const evs = this.laneEvents[l];
        const end = Math.min(lo[l], evs.length);
        for (let q = p; q < end; q++) {
          const y = evs[q];
          mark[y] |= 2;
          for (let k = this.effStart[y]; k < this.effStart[y + 1]; k++) stack.push(this.effects[k]);
          const o = this.obj[y];
          if (o >= 0 && this.opos[y] + 1 < this.laneEvents[o].length) stack.push(this.laneEvents[o][this.opos[y] + 1]);
        }
        lo[l] = p;
      }
      return mark;
    }

    search(q) {
      if (!this.lower) this.lower = this.text.map((t, g) => (this.lanes[this.lane[g]].label + " " + this.name(g) + " " + t).toLowerCase());
      const out = [];
      for (let g = 0; g < this.n; g++) if (this.lower[g].includes(q)) out.push(g);
      out.sort((a, b) => this.row[a] - this.row[b] || this.lane[a] - this.lane[b]);
      return out;
    }
  }

  // ---- Glyphs ------------------------------------------------------------
  function glyph(ctx, run, g, x, y, s) {
    const k = CODES.kinds[run.kind[g]];
    const f = run.flag[g];
    ctx.lineWidth = Math.max(1, s / 4);
    switch (k) {
      case "spawn": box(ctx, x, y, s, LINK_COLOR.spawn, true); break;
      case "send": dot(ctx, x, y, s, LINK_COLOR.message, true); break;
      case "deliver": dot(ctx, x, y, s * 0.7, LINK_COLOR.delivery, false); break;
      case "receive": dot(ctx, x, y, s, LINK_COLOR.message, false); break;
      case "timeout": diamond(ctx, x, y, s, "#9a6700", false); break;
      case "signal": tri(ctx, x, y, s, LINK_COLOR[CODES.links[f]] || "#57606a", true); break;
      case "signal_taken": tri(ctx, x, y, s, LINK_COLOR[CODES.links[f]] || "#57606a", false); break;
      case "nondet": diamond(ctx, x, y, s * 0.7, "#8c959f", true); break;
      case "output": box(ctx, x, y, s * 0.8, "#8c959f", false); break;
      case "exit":
        if (f) cross(ctx, x, y, s, "#cf222e"); else bar(ctx, x, y, s, "#1f2328");
        break;
      case "shared": box(ctx, x, y, s * 0.8, "#bc4c00", CODES.access[f] !== "read"); break;
      case "blocked":
        if (f) stuck(ctx, x, y, s); else idle(ctx, x, y, s);
        break;
      default: dot(ctx, x, y, s, "#57606a", true);
    }
  }
  function dot(ctx, x, y, s, c, fill) {
    ctx.beginPath(); ctx.arc(x, y, s / 2, 0, 2 * Math.PI);
    if (fill) { ctx.fillStyle = c; ctx.fill(); } else { ctx.fillStyle = "#fff"; ctx.fill(); ctx.strokeStyle = c; ctx.stroke(); }
  }
  function box(ctx, x, y, s, c, fill) {
    if (fill) { ctx.fillStyle = c; ctx.fillRect(x - s / 2, y - s / 2, s, s); } else { ctx.fillStyle = "#fff"; ctx.fillRect(x - s / 2, y - s / 2, s, s); ctx.strokeStyle = c; ctx.strokeRect(x - s / 2, y - s / 2, s, s); }
  }
  function diamond(ctx, x, y, s, c, fill) {
    const h = s / 2;
    ctx.beginPath(); ctx.moveTo(x, y - h); ctx.lineTo(x + h, y); ctx.lineTo(x, y + h); ctx.lineTo(x - h, y); ctx.closePath();
    if (fill) { ctx.fillStyle = c; ctx.fill(); } else { ctx.fillStyle = "#fff"; ctx.fill(); ctx.strokeStyle = c; ctx.stroke(); }
  }
  function tri(ctx, x, y, s, c, fill) {
    const h = s / 2;
    ctx.beginPath(); ctx.moveTo(x - h, y - h); ctx.lineTo(x + h, y); ctx.lineTo(x - h, y + h); ctx.closePath();
    if (fill) { ctx.fillStyle = c; ctx.fill(); } else { ctx.fillStyle = "#fff"; ctx.fill(); ctx.strokeStyle = c; ctx.stroke(); }
  }
  function bar(ctx, x, y, s, c) { ctx.fillStyle = c; ctx.fillRect(x - s * 0.7, y - s / 6 - 1, s * 1.4, s / 3 + 2); }
  function cross(ctx, x, y, s, c) {
    const h = s * 0.6;
    ctx.strokeStyle = c; ctx.lineWidth = Math.max(2, s / 3);
    ctx.beginPath(); ctx.moveTo(x - h, y - h); ctx.lineTo(x + h, y + h); ctx.moveTo(x + h, y - h); ctx.lineTo(x - h, y + h); ctx.stroke();
  }
  function idle(ctx, x, y, s) { ctx.fillStyle = "#8c959f"; ctx.fillRect(x - s / 2, y - s / 2, s / 3, s); ctx.fillRect(x + s / 6, y - s / 2, s / 3, s); }
  function stuck(ctx, x, y, s) {
    dot(ctx, x, y, s, "#cf222e", false);
    ctx.beginPath(); ctx.moveTo(x - s / 3, y + s / 3); ctx.lineTo(x + s / 3, y - s / 3); ctx.stroke();
  }

  // ---- A pane: one run's diagram, scrolled and zoomed ---------------------
  const view = { rowH: 22, laneW: 220 };
  const LANE_COLLAPSED = 18;
  const LANE_INSET = 24;

  class Pane {
    constructor(run, parent, titled) {
      this.run = run;
      const el = document.createElement("div");
      el.className = "pane";
      if (titled) {
        const t = document.createElement("div");
        t.className = "pane-title"; t.textContent = (run.index === 0 ? "a: " : "b: ") + run.title;
        el.appendChild(t);
      }
      this.head = document.createElement("canvas");
      this.head.className = "pane-head";
      el.appendChild(this.head);
      const body = document.createElement("div");
      body.className = "pane-body";
      this.canvas = document.createElement("canvas");
      this.scroller = document.createElement("div");
      this.scroller.className = "scroller";
      this.spacer = document.createElement("div");
      this.spacer.className = "spacer";
      this.scroller.appendChild(this.spacer);
      body.appendChild(this.canvas);
      body.appendChild(this.scroller);
      el.appendChild(body);
      parent.appendChild(el);
      this.body = body;
      this.order = run.lanes.map((_, l) => l);
      this.hidden = run.lanes.map((l) => !!l.hidden);
      this.collapsed = run.lanes.map(() => false);
      this.mark = null; // causal marks of the selection
      this.selected = -1;
      this.found = new Set();
      this.at = new Set();
      this.slice = new Set();
      this.pending = false;
      this.frames = 0;
      this.layoutLanes();
      this.scroller.addEventListener("scroll", () => this.redraw());
      this.scroller.addEventListener("click", (e) => this.onClick(e));
      this.scroller.addEventListener("mousemove", (e) => this.onMove(e));
      this.scroller.addEventListener("mouseleave", () => tip(null));
      this.scroller.addEventListener("wheel", (e) => this.onWheel(e), { passive: false });
      this.head.addEventListener("click", (e) => this.onHeadClick(e));
      new ResizeObserver(() => this.redraw()).observe(body);
    }

    laneWidth(l) { return this.hidden[l] ? 0 : this.collapsed[l] ? LANE_COLLAPSED : view.laneW; }

    layoutLanes() {
      const L = this.run.lanes.length;
      this.left = new Float64Array(L);
      let x = 8;
      for (const l of this.order) { this.left[l] = x; x += this.laneWidth(l); }
      this.width = x + 8;
      this.height = TOP_PAD * 2 + this.run.rows * view.rowH;
      this.spacer.style.width = this.width + "px";
      this.spacer.style.height = this.height + "px";
    }

    // A lane's line runs near its left edge; its events' texts fill the rest.
    cx(l) { return this.left[l] + Math.min(LANE_INSET, this.laneWidth(l) / 2); }
    cy(g) { return TOP_PAD + this.run.row[g] * view.rowH + view.rowH / 2; }

    redraw() {
      if (this.pending) return;
      this.pending = true;
      requestAnimationFrame(() => { this.pending = false; this.draw(); });
    }

    draw() {
      const t0 = performance.now();
      const dpr = window.devicePixelRatio || 1;
      const w = this.body.clientWidth, h = this.body.clientHeight;
      for (const [c, ch] of [[this.canvas, h], [this.head, HEAD_H]]) {
        if (c.width !== Math.round(w * dpr) || c.height !== Math.round(ch * dpr)) {
          c.width = Math.round(w * dpr); c.height = Math.round(ch * dpr);
          c.style.width = w + "px"; c.style.height = ch + "px";
        }
      }
      const sx = this.scroller.scrollLeft, sy = this.scroller.scrollTop;
      const ctx = this.canvas.getContext("2d");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = "#fff";
      ctx.fillRect(0, 0, w, h);
      ctx.translate(-sx, -sy);
      const r0 = Math.max(0, Math.floor((sy - TOP_PAD) / view.rowH) - 1);
      const r1 = Math.min(this.run.rows - 1, Math.ceil((sy + h - TOP_PAD) / view.rowH) + 1);
      this.drawLanes(ctx, sx, sy, w, h);
      if (this.run.rows > 0) {
        this.drawRaces(ctx, r0, r1);
        this.drawArrows(ctx, r0, r1);
        this.drawEvents(ctx, r0, r1, sx, w);
      }
      this.drawHead(sx, w, dpr);
      this.frames++;
      this.lastDrawMs = performance.now() - t0;
    }

    visibleLane(l, sx, w) { return !this.hidden[l] && this.left[l] + this.laneWidth(l) >= sx && this.left[l] <= sx + w; }

    drawLanes(ctx, sx, sy, w, h) {
      const run = this.run;
      ctx.lineWidth = 1;
      for (const l of this.order) {
        if (!this.visibleLane(l, sx, w)) continue;
        const evs = run.laneEvents[l];
        if (!evs.length) continue;
        const x = this.cx(l);
        const lane = run.lanes[l];
        const y0 = this.cy(evs[0]);
        const y1 = lane.end === "more" ? this.height : this.cy(evs[evs.length - 1]);
        ctx.strokeStyle = lane.kind === "process" ? "#d0d7de" : "#e6c9a8";
        ctx.lineWidth = lane.kind === "process" ? 2 : 6;
        ctx.setLineDash(lane.end === "more" || lane.end === "open" ? [] : []);
        ctx.beginPath(); ctx.moveTo(x, Math.max(y0, sy - 10)); ctx.lineTo(x, Math.min(y1, sy + h + 10)); ctx.stroke();
        if (lane.end === "more") {
          ctx.setLineDash([3, 4]);
          ctx.beginPath(); ctx.moveTo(x, Math.max(this.cy(evs[evs.length - 1]), sy)); ctx.lineTo(x, Math.min(y1, sy + h)); ctx.stroke();
          ctx.setLineDash([]);
        }
      }
    }

    related(g) {
      if (!this.mark) return 3;
      return this.mark[g];
    }

    drawArrows(ctx, r0, r1) {
      const run = this.run;
      const one = (from, to, link) => {
        const lf = run.lane[from], lt = run.lane[to];
        if (this.hidden[lf] || this.hidden[lt]) return;
        const name = linkName(link);
        let color = LINK_COLOR[name] || "#57606a", alpha = 1;
        if (this.mark) {
          const a = this.mark[from] & this.mark[to];
          if (a & 1) color = PAST; else if (a & 2) color = FUTURE; else alpha = 0.15;
        }
        ctx.globalAlpha = alpha;
        ctx.strokeStyle = color; ctx.fillStyle = color;
        ctx.lineWidth = name === "message" ? 1.5 : 1.2;
        ctx.setLineDash(DASHED[name] || []);
        const x1 = this.cx(lf), y1 = this.cy(from), x2 = this.cx(lt), y2 = this.cy(to);
        ctx.beginPath();
        let ax = x1, ay = y1;
        if (lf === lt) {
          const bulge = Math.min(view.laneW / 2.5, 40);
          ctx.moveTo(x1, y1); ctx.quadraticCurveTo(x1 + bulge, (y1 + y2) / 2, x2, y2);
          ax = x1 + bulge; ay = (y1 + y2) / 2;
        } else { ctx.moveTo(x1, y1); ctx.lineTo(x2, y2); }
        ctx.stroke();
        ctx.setLineDash([]);
        head(ctx, ax, ay, x2, y2, view.rowH < 8 ? 4 : 7);
        ctx.globalAlpha = 1;
      };
      const s = run.short;
      let lo = 0, hi = s.from.length;
      const start = r0 - run.arrowSpan;
      while (lo < hi) { const m = (lo + hi) >> 1; if (run.row[s.from[m]] < start) lo = m + 1; else hi = m; }
      for (let i = lo; i < s.from.length && run.row[s.from[i]] <= r1; i++) {
        if (run.row[s.to[i]] >= r0) one(s.from[i], s.to[i], s.link[i]);
      }
      const L = run.long;
      for (let i = 0; i < L.from.length; i++) {
        if (run.row[L.from[i]] <= r1 && run.row[L.to[i]] >= r0) one(L.from[i], L.to[i], L.link[i]);
      }
    }

    drawRaces(ctx, r0, r1) {
      const run = this.run;
      ctx.strokeStyle = RACE; ctx.lineWidth = 2;
      for (const [a, b] of run.races) {
        const o = run.obj[a];
        if (o < 0 || this.hidden[o]) continue;
        const ra = run.row[a], rb = run.row[b];
        if (Math.max(ra, rb) < r0 || Math.min(ra, rb) > r1) continue;
        const x = this.cx(o) - 10, y1 = this.cy(a), y2 = this.cy(b);
        ctx.beginPath(); ctx.moveTo(x + 4, y1); ctx.lineTo(x, y1); ctx.lineTo(x, y2); ctx.lineTo(x + 4, y2); ctx.stroke();
      }
    }

    drawEvents(ctx, r0, r1, sx, w) {
      const run = this.run;
      const s = Math.max(3, Math.min(12, view.rowH * 0.55));
      const labels = view.rowH >= 13 && view.laneW >= 70;
      ctx.font = "11px " + MONO;
      const charW = ctx.measureText("m").width || 7;
      for (let k = run.rowStart[r0]; k < run.rowStart[r1 + 1]; k++) {
        const g = run.byRow[k];
        const l = run.lane[g];
        const y = this.cy(g);
        const o = run.obj[g];
        const rel = this.related(g);
        ctx.globalAlpha = rel ? 1 : 0.2;
        if (o >= 0 && !this.hidden[o] && !this.hidden[l]) {
          const xo = this.cx(o);
          ctx.strokeStyle = "#bc4c00"; ctx.lineWidth = 1; ctx.setLineDash([2, 3]);
          ctx.beginPath(); ctx.moveTo(this.cx(l), y); ctx.lineTo(xo, y); ctx.stroke(); ctx.setLineDash([]);
          box(ctx, xo, y, s * 0.9, run.raceOf.has(g) ? RACE : "#bc4c00", CODES.access[run.flag[g]] !== "read");
          if (view.rowH >= 12 && !this.collapsed[o]) {
            ctx.fillStyle = "#bc4c00"; ctx.textBaseline = "middle";
            ctx.fillText("@" + run.seq[g], xo + s + 12, y);
            ctx.textBaseline = "alphabetic";
          }
        }
        if (!this.visibleLane(l, sx, w)) { ctx.globalAlpha = 1; continue; }
        const x = this.cx(l);
        if (this.mark && rel) {
          ctx.fillStyle = g === this.selected ? "#1f2328" : rel & 1 ? PAST : FUTURE;
          ctx.globalAlpha = 0.25;
          ctx.beginPath(); ctx.arc(x, y, s, 0, 2 * Math.PI); ctx.fill();
          ctx.globalAlpha = 1;
        }
        glyph(ctx, run, g, x, y, s);
        if (g === this.selected) { ring(ctx, x, y, s + 3, "#1f2328", 2); }
        if (this.at.has(g)) ring(ctx, x, y, s + 5, MARK_AT, 2.5);
        else if (this.slice.has(g)) ring(ctx, x, y, s + 4, MARK_SLICE, 2);
        if (this.found.has(g)) ring(ctx, x, y, s + 2, FIND, 2.5);
        if (labels && !this.collapsed[l]) {
          const room = Math.floor((view.laneW - LANE_INSET - s - 6) / charW);
          if (room > 3) {
            const t = run.text[g];
            ctx.fillStyle = rel & 1 && this.mark ? PAST : rel & 2 && this.mark ? FUTURE : "#424a53";
            ctx.textBaseline = "middle";
            ctx.fillText(t.length > room ? t.slice(0, room - 1) + "\u2026" : t, x + s + 2, y);
            ctx.textBaseline = "alphabetic";
          }
        }
        ctx.globalAlpha = 1;
      }
    }

    drawHead(sx, w, dpr) {
      const ctx = this.head.getContext("2d");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = "#f6f8fa"; ctx.fillRect(0, 0, w, HEAD_H);
      ctx.translate(-sx, 0);
      ctx.font = "12px " + MONO;
      this.buttons = [];
      for (const l of this.order) {
        if (!this.visibleLane(l, sx, w)) continue;
        const lane = this.run.lanes[l];
        const x = this.left[l], lw = this.laneWidth(l);
        ctx.strokeStyle = "#d0d7de"; ctx.lineWidth = 1;
        ctx.beginPath(); ctx.moveTo(x + lw, 4); ctx.lineTo(x + lw, HEAD_H - 4); ctx.stroke();
        if (this.collapsed[l]) {
          ctx.fillStyle = "#57606a"; ctx.fillText("\u25b8", x + 4, 18);
          this.buttons.push({ x0: x, x1: x + lw, l, act: "expand" });
          continue;
        }
        const end = { crash: "#cf222e", stuck: "#cf222e", idle: "#57606a" }[lane.end];
        ctx.fillStyle = lane.kind === "process" ? "#1f2328" : "#bc4c00";
        const chars = Math.max(1, Math.floor((lw - 8) / 7.3));
        const first = lane.kind === "process" ? lane.name : lane.label;
        ctx.fillText(first.length > chars ? first.slice(0, chars - 1) + "\u2026" : first, x + 4, 17);
        ctx.fillStyle = end || "#57606a";
        const second = lane.kind === "process"
          ? lane.label.slice(lane.name.length).trim() + (lane.end === "more" || lane.end === "open" ? "" : " " + lane.end)
          : lane.total + (lane.total === 1 ? " operation" : " operations");
        ctx.fillText(second.length > chars ? second.slice(0, chars - 1) + "\u2026" : second, x + 4, 33);
        // Buttons: move left, move right, collapse, hide.
        const acts = [["\u25c2", "left"], ["\u25b8", "right"], ["\u2013", "collapse"], ["\u00d7", "hide"]];
        let bx = x + lw - 4 - acts.length * 13;
        if (bx < x + 40) continue;
        ctx.fillStyle = "#8c959f";
        for (const [glyphText, act] of acts) {
          ctx.fillText(glyphText, bx + 2, 42);
          this.buttons.push({ x0: bx, x1: bx + 13, y0: 30, l, act });
          bx += 13;
        }
      }
    }

    onHeadClick(e) {
      const x = e.offsetX + this.scroller.scrollLeft, y = e.offsetY;
      const b = (this.buttons || []).find((b) => x >= b.x0 && x < b.x1 && (b.y0 === undefined || y >= b.y0));
      if (b) laneAction(this, b.l, b.act);
    }

    // The event under a point of the scroller (content coordinates).
    hit(x, y) {
      const run = this.run;
      const r = Math.floor((y - TOP_PAD) / view.rowH);
      if (r < 0 || r >= run.rows) return -1;
      // The event whose lane holds x (its glyph or its text), else the nearest.
      let best = -1, bd = 1e9;
      for (let k = run.rowStart[r]; k < run.rowStart[r + 1]; k++) {
        const g = run.byRow[k];
        const l = run.lane[g];
        if (this.hidden[l]) continue;
        const c = this.cx(l);
        if (x >= c - 12 && x < this.left[l] + this.laneWidth(l)) return g;
        const d = Math.abs(c - x);
        if (d < bd) { bd = d; best = g; }
      }
      return bd <= 12 ? best : -1;
    }

    onClick(e) {
      const r = this.scroller.getBoundingClientRect();
      const g = this.hit(e.clientX - r.left + this.scroller.scrollLeft, e.clientY - r.top + this.scroller.scrollTop);
      if (g >= 0) select(this, g); else select(this, -1);
    }

    onMove(e) {
      const r = this.scroller.getBoundingClientRect();
      const g = this.hit(e.clientX - r.left + this.scroller.scrollLeft, e.clientY - r.top + this.scroller.scrollTop);
      tip(g >= 0 ? { x: e.clientX, y: e.clientY, text: this.run.name(g) + "  " + this.run.text[g] } : null);
    }

    onWheel(e) {
      if (!e.ctrlKey) return;
      e.preventDefault();
      zoom(e.deltaY < 0 ? 1.25 : 0.8, this, e);
    }

    // Scrolls so that g is in sight; its point in client coordinates.
    reveal(g, center) {
      const l = this.run.lane[g];
      if (this.hidden[l]) { this.hidden[l] = false; this.layoutLanes(); renderLaneLists(); }
      if (this.collapsed[l]) { this.collapsed[l] = false; this.layoutLanes(); }
      const x = this.cx(l), y = this.cy(g);
      const sc = this.scroller;
      const inX = x >= sc.scrollLeft + 20 && x <= sc.scrollLeft + sc.clientWidth - 20;
      const inY = y >= sc.scrollTop + 20 && y <= sc.scrollTop + sc.clientHeight - 20;
      if (center || !inX) sc.scrollLeft = Math.max(0, x - sc.clientWidth / 2);
      if (center || !inY) sc.scrollTop = Math.max(0, y - sc.clientHeight / 2);
      this.draw();
      const r = sc.getBoundingClientRect();
      return { x: r.left + x - sc.scrollLeft, y: r.top + y - sc.scrollTop };
    }
  }

  function ring(ctx, x, y, r, c, lw) {
    ctx.strokeStyle = c; ctx.lineWidth = lw;
    ctx.beginPath(); ctx.arc(x, y, r, 0, 2 * Math.PI); ctx.stroke();
  }

  function head(ctx, x1, y1, x2, y2, size) {
    const a = Math.atan2(y2 - y1, x2 - x1);
    ctx.beginPath();
    ctx.moveTo(x2, y2);
    ctx.lineTo(x2 - size * Math.cos(a - 0.4), y2 - size * Math.sin(a - 0.4));
    ctx.lineTo(x2 - size * Math.cos(a + 0.4), y2 - size * Math.sin(a + 0.4));
    ctx.closePath(); ctx.fill();
  }

  // ---- The page ------------------------------------------------------------
  const runs = DATA.runs.map((d, i) => new Run(d, i));
  const panesEl = document.getElementById("panes");
  const panes = runs.map((r) => new Pane(r, panesEl, runs.length > 1));
  const $ = (id) => document.getElementById(id);
  let search = { q: "", hits: [], at: -1 };

  $("title").textContent = DATA.title;
  document.title = DATA.title;
  $("note").textContent = runs.map((r) => windowNote(r.d.window)).join("; ");
  const cut = runs.find((r) => r.d.window.next);
  if (cut) {
    // A window of a larger selection: say so where it cannot be missed.
    const b = $("banner");
    b.hidden = false;
    b.append("This page holds a window of " + cut.d.window.shown + " events. The next window begins at " + cut.d.window.next + ": ",
      el("code", {}, "trace view LOG --from '" + cut.d.window.next + "'"),
      "; --until EVENT chooses where one ends, --around EVENT shows an event's causal slice, --window N sets the size.");
  }

  function windowNote(w) {
    let s = w.shown + (w.shown === 1 ? " event" : " events");
    if (w.total !== null && w.total !== undefined && w.total !== w.shown) s += " of " + w.total;
    return s + " \u2014 " + w.selection;
  }

  function select(pane, g) {
    const t0 = performance.now();
    pane.selected = g;
    pane.mark = g >= 0 ? pane.run.marks(g) : null;
    pane.draw();
    showDetails(pane, g);
    pane.selectMs = performance.now() - t0;
  }

  function el(tag, attrs, ...kids) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === "class") e.className = v; else if (k.startsWith("on")) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
    }
    for (const k of kids) e.append(k);
    return e;
  }

  function evLink(pane, g) {
    return el("a", { class: "ev", onclick: () => { pane.reveal(g, false); select(pane, g); } }, pane.run.name(g));
  }

  function showDetails(pane, g) {
    const body = $("detail-body");
    body.textContent = "";
    body.classList.toggle("muted", g < 0);
    if (g < 0) { body.textContent = "Click an event: its causal past turns blue, its causal future orange."; return; }
    const run = pane.run;
    const lane = run.lanes[run.lane[g]];
    let past = 0, future = 0;
    const pastLanes = new Set(), futureLanes = new Set();
    for (let x = 0; x < run.n; x++) {
      if (pane.mark[x] & 1) { past++; pastLanes.add(run.lane[x]); }
      if (pane.mark[x] & 2) { future++; futureLanes.add(run.lane[x]); }
    }
    const dl = el("dl");
    const row = (k, v) => { dl.append(el("dt", {}, k), el("dd", {}, v)); };
    row("event", el("code", {}, run.name(g)));
    row("process", lane.label);
    row("kind", CODES.kinds[run.kind[g]]);
    if (run.ns) row("time", (run.ns[g] / 1e9).toFixed(9) + " s");
    if (run.cause[g] >= 0) row(run.link[g] >= 0 ? "received" : "cause", evLink(pane, run.cause[g]));
    else if (run.link[g] >= 0) row("received", "from outside the window");
    const s = run.spawned.get(g);
    if (s !== undefined) row("spawned by", evLink(pane, s));
    const effects = [];
    for (let k = run.effStart[g]; k < run.effStart[g + 1]; k++) effects.push(run.effects[k]);
    if (effects.length) {
      const dd = el("span");
      effects.forEach((x, i) => { if (i) dd.append(", "); dd.append(evLink(pane, x)); });
      row("caused", dd);
    }
    row("causal past", past + " events in " + pastLanes.size + (pastLanes.size === 1 ? " process" : " processes"));
    row("causal future", future + " events in " + futureLanes.size + (futureLanes.size === 1 ? " process" : " processes"));
    if (run.raceOf.has(g)) row("race", "its order with a neighbouring operation on " + run.lanes[run.obj[g]].label + " is not fixed by happened-before");
    body.append(el("div", { class: "line" }, lane.label + " #" + run.idx[g] + " " + run.text[g]), dl,
      el("div", { class: "muted small" }, "Replay to here: trace replay --until " + run.name(g) + " (the source line where each process stands is in that report; the log records none)."));
  }

  function tip(t) {
    const e = $("tip");
    if (!t) { e.hidden = true; return; }
    e.hidden = false; e.textContent = t.text;
    e.style.left = Math.min(t.x + 14, window.innerWidth - 620) + "px";
    e.style.top = (t.y + 16) + "px";
  }

  function zoom(f, pane, e) {
    const old = view.rowH;
    view.rowH = Math.max(1, Math.min(48, view.rowH * f));
    view.laneW = Math.max(36, Math.min(420, view.laneW * Math.sqrt(f)));
    for (const p of panes) {
      const sc = p.scroller;
      const anchor = e && p === pane ? e.clientY - sc.getBoundingClientRect().top : sc.clientHeight / 2;
      const rowAt = (sc.scrollTop + anchor - TOP_PAD) / old;
      p.layoutLanes();
      sc.scrollTop = Math.max(0, rowAt * view.rowH + TOP_PAD - anchor);
      p.draw();
    }
  }

  function laneAction(pane, l, act) {
    const i = pane.order.indexOf(l);
    if (act === "left" && i > 0) { pane.order.splice(i, 1); pane.order.splice(i - 1, 0, l); }
    if (act === "right" && i < pane.order.length - 1) { pane.order.splice(i, 1); pane.order.splice(i + 1, 0, l); }
    if (act === "collapse") pane.collapsed[l] = true;
    if (act === "expand") pane.collapsed[l] = false;
    if (act === "hide") pane.hidden[l] = true;
    if (act === "show") pane.hidden[l] = false;
    if (act === "toggle") pane.hidden[l] = !pane.hidden[l];
    pane.layoutLanes();
    pane.draw();
    renderLaneLists();
  }

  function renderLaneLists() {
    const box = $("lane-runs");
    box.textContent = "";
    for (const pane of panes) {
      if (panes.length > 1) box.append(el("div", { class: "muted" }, (pane.run.index === 0 ? "a: " : "b: ") + pane.run.title));
      for (const l of pane.order) {
        const lane = pane.run.lanes[l];
        const cb = el("input", { type: "checkbox", onchange: () => laneAction(pane, l, "toggle") });
        cb.checked = !pane.hidden[l];
        box.append(el("div", { class: "lane-row" }, cb, el("label", { title: lane.label }, lane.label),
          el("button", { title: "collapse or expand", onclick: () => laneAction(pane, l, pane.collapsed[l] ? "expand" : "collapse") }, pane.collapsed[l] ? "\u25b8" : "\u2013"),
          el("button", { title: "move up (left)", onclick: () => laneAction(pane, l, "left") }, "\u25b4"),
          el("button", { title: "move down (right)", onclick: () => laneAction(pane, l, "right") }, "\u25be")));
      }
    }
  }

  function runSearch(q) {
    q = q.trim().toLowerCase();
    search = { q, hits: [], at: -1 };
    for (const p of panes) {
      const hits = q ? p.run.search(q) : [];
      p.found = new Set(hits);
      for (const g of hits) search.hits.push([p, g]);
      p.draw();
    }
    $("found").textContent = q ? search.hits.length + (search.hits.length === 1 ? " match" : " matches") : "";
  }

  function step(d) {
    if (!search.hits.length) return;
    search.at = (search.at + d + search.hits.length) % search.hits.length;
    const [p, g] = search.hits[search.at];
    p.reveal(g, true);
    select(p, g);
    $("found").textContent = (search.at + 1) + " of " + search.hits.length;
  }

  function renderFindings() {
    if (!DATA.findings.length) return;
    $("findings").hidden = false;
    const list = $("finding-list");
    DATA.findings.forEach((f) => {
      const li = el("li", { class: f.kind }, el("div", { class: "ftitle" }, f.title));
      for (const line of f.lines) li.append(el("div", { class: "fline" }, line));
      if (f.outside.length) li.append(el("div", { class: "muted small" }, "not in the window: " + f.outside.join(", ") + " (trace view --around EVENT shows one)"));
      li.addEventListener("click", () => {
        for (const x of list.children) x.classList.remove("active");
        li.classList.add("active");
        for (const p of panes) { p.at = new Set(); p.slice = new Set(); }
        for (const m of f.at) panes[m.run].at.add(m.event);
        for (const m of f.slice) panes[m.run].slice.add(m.event);
        const first = new Set();
        for (const m of f.at) {
          if (first.has(m.run)) continue;
          first.add(m.run);
          panes[m.run].reveal(m.event, true);
          select(panes[m.run], m.event);
        }
        for (const p of panes) p.draw();
      });
      list.append(li);
    });
    for (const p of panes) {
      for (const f of DATA.findings) for (const m of f.at) if (panes[m.run] === p) p.at.add(m.event);
    }
  }

  function renderLegend() {
    const body = $("legend-body");
    const kinds = [["spawn", 0], ["send", 0], ["receive", 0], ["deliver", 0], ["timeout", 0], ["signal", LINK.exit], ["signal_taken", LINK.exit],
      ["nondet", 0], ["output", 0], ["shared", 1], ["exit", 0], ["exit", 1], ["blocked", 0], ["blocked", 1]];
    const names = { "exit,0": "exit (normal)", "exit,1": "exit (crash)", "blocked,0": "left idle at the end", "blocked,1": "left stuck (deadlock)", "shared,1": "operation on shared state", "signal,5": "signal sent (colour: its kind)", "signal_taken,5": "signal taken" };
    const fake = { kind: [0], flag: [0] };
    for (const [k, f] of kinds) {
      const c = el("canvas", { width: 20, height: 16 });
      fake.kind[0] = KIND[k]; fake.flag[0] = f;
      glyph(c.getContext("2d"), fake, 0, 10, 8, 10);
      body.append(el("div", { class: "legend-row" }, c, names[k + "," + f] || k));
    }
    for (const name of ["message", "delivery", "converted", "spawn", "link", "unlink", "exit", "exit_link", "monitor", "demonitor", "down"]) {
      const c = el("canvas", { width: 30, height: 10 });
      const x = c.getContext("2d");
      x.strokeStyle = LINK_COLOR[name]; x.lineWidth = 2; x.setLineDash(DASHED[name] || []);
      x.beginPath(); x.moveTo(2, 5); x.lineTo(28, 5); x.stroke();
      const words = { converted: "exit/'DOWN' signal received as a message", exit_link: "exit signal of a linked process's end", delivery: "delivery into the mailbox", message: "message, send to receive", spawn: "spawn, to the child's first event" };
      body.append(el("div", { class: "legend-row" }, c, words[name] || name + " signal"));
    }
    body.append(el("div", { class: "legend-row small muted" }, "A shared object's lane shows its operations in place, each with its position in the object's order (@n); an orange bracket joins two operations, one of them a change, that nothing but the object's order puts one first: a race. Ctrl+wheel zooms."));
  }

  if (DATA.report) { $("report").hidden = false; $("report-text").textContent = DATA.report; }
  renderFindings();
  renderLaneLists();
  renderLegend();

  $("search").addEventListener("input", (e) => runSearch(e.target.value));
  $("search").addEventListener("keydown", (e) => { if (e.key === "Enter") step(e.shiftKey ? -1 : 1); });
  $("next").addEventListener("click", () => step(1));
  $("prev").addEventListener("click", () => step(-1));
  $("zoomin").addEventListener("click", () => zoom(1.25));
  $("zoomout").addEventListener("click", () => zoom(0.8));
  $("clear").addEventListener("click", () => { for (const p of panes) select(p, -1); });
  document.addEventListener("keydown", (e) => {
    if (e.target.tagName === "INPUT") return;
    if (e.key === "/") { e.preventDefault(); $("search").focus(); }
    if (e.key === "+" || e.key === "=") zoom(1.25);
    if (e.key === "-") zoom(0.8);
    if (e.key === "Escape") for (const p of panes) select(p, -1);
  });

  for (const p of panes) p.draw();

  // What tests (and curious users, from the console) can ask the page.
  const names = (p, bit) => {
    const out = [];
    if (p.mark) for (let g = 0; g < p.run.n; g++) if (p.mark[g] & bit) out.push(p.run.name(g));
    return out;
  };
  window.traceView = {
    ready: true,
    runs: runs.length,
    lanes: (r) => panes[r || 0].order.map((l) => ({ name: runs[r || 0].lanes[l].name, label: runs[r || 0].lanes[l].label, kind: runs[r || 0].lanes[l].kind, hidden: panes[r || 0].hidden[l] })),
    events: (r) => runs[r || 0].n,
    arrows: (r) => ({ total: runs[r || 0].arrowCount, byLink: runs[r || 0].arrowsByLink }),
    locate: (r, name) => { const p = panes[r || 0]; const g = p.run.find(name); return g < 0 ? null : p.reveal(g, true); },
    selectMs: (r) => panes[r || 0].selectMs,
    selected: (r) => { const p = panes[r || 0]; return p.selected >= 0 ? p.run.name(p.selected) : null; },
    past: (r) => names(panes[r || 0], 1),
    future: (r) => names(panes[r || 0], 2),
    lane: (r, l, act) => laneAction(panes[r || 0], l, act),
    scrollTo: (r, top) => { const p = panes[r || 0]; p.scroller.scrollTop = top; p.draw(); return { frames: p.frames, ms: p.lastDrawMs }; },
    height: (r) => panes[r || 0].height,
    search: (q) => { $("search").value = q; runSearch(q); return search.hits.length; },
    findings: () => DATA.findings.length,
    // Where the header button `act` (left, right, collapse, hide, expand)
    // of lane `name` is, in client coordinates.
    laneButton: (r, name, act) => {
      const p = panes[r || 0];
      const l = p.run.lanes.findIndex((x) => x.name === name);
      p.scroller.scrollLeft = Math.max(0, p.left[l] - 20);
      p.draw();
      const b = (p.buttons || []).find((x) => x.l === l && x.act === act);
      if (!b) return null;
      const rect = p.head.getBoundingClientRect();
      return { x: rect.left + (b.x0 + b.x1) / 2 - p.scroller.scrollLeft, y: rect.top + (b.y0 === undefined ? 20 : 38) };
    },
  };
})();
