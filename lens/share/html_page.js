// Lens's exported run page (lens/share/html.py writes the data this draws).
// Every recorded text is set with textContent or as an SVG attribute value:
// nothing from the data is ever parsed as markup. No network, no storage.
"use strict";
(function () {
  const SVG = "http://www.w3.org/2000/svg";
  const data = JSON.parse(document.getElementById("lens-data").textContent);
  const S = data.strings;
  const str = (n) => (n === null || n === undefined ? "" : S[n]);
  const PAGE = 20; // served-context pieces per page, as the app pages a long conversation
  const state = { scope: 0, step: 0, view: "steps", pane: "step" };
  const root = document.getElementById("lens-app");

  // ── small builders ─────────────────────────────────────────────────
  function el(tag, cls, text) {
    const node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = text;
    return node;
  }
  function svg(tag, attrs) {
    const node = document.createElementNS(SVG, tag);
    for (const name in attrs) node.setAttribute(name, String(attrs[name]));
    return node;
  }
  function button(label, onClick, cls) {
    const b = el("button", cls, label);
    b.type = "button";
    b.addEventListener("click", onClick);
    return b;
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
    return node;
  }
  // A recorded value: [string number, characters the export left out].
  function valueBox(ref) {
    const box = el("div", "value");
    const whole = str(ref[0]);
    const pre = el("pre", "text", whole.length > data.clip ? whole.slice(0, data.clip) : whole);
    box.appendChild(pre);
    if (whole.length > data.clip) {
      const more = button("Show all " + whole.length.toLocaleString("en") + " characters",
        () => { pre.textContent = whole; more.remove(); }, "link");
      box.appendChild(more);
    }
    if (ref[1] > 0) {
      box.appendChild(el("div", "note", ref[1].toLocaleString("en") +
        " more characters are in the recording, not in this export."));
    }
    return box;
  }
  function caption(text) { return el("div", "caption", text); }
  // "1 piece", "3 pieces": a count with its noun, never "piece(s)".
  function counted(n, noun) {
    const plural = /(s|x|ch|sh)$/.test(noun) ? noun + "es" : noun + "s";
    return n + " " + (n === 1 ? noun : plural);
  }
  function scopeOf(n) { return data.scopes[n]; }
  function goTo(place, view) {
    if (!place) return;
    state.scope = place[0];
    state.step = place[1];
    if (view) state.view = view;
    render();
  }
  // A link's words, as the app's (lens.step_places.step_words): the step, the
  // nearest before what no step shows, or the first step, for what came before every step.
  function navLabel(nav) {
    return nav.exact ? "Go to step" : nav.before ? "Before step" : "Nearest step";
  }
  function stepLink(place, label) {
    if (!place) return null;
    const scope = scopeOf(place[0]);
    let text = (label || "Go to step") + " " + (place[1] + 1) + " of " + scope.steps.length;
    if (place[0] !== 0) text += " in ▸ " + str(scope.name);
    return button(text, () => goTo(place, "steps"), "link");
  }

  // ── the run bar ────────────────────────────────────────────────────
  function runBar() {
    const run = data.run;
    const bar = el("header", "run-bar");
    const parts = [str(run.file), "run " + str(run.runId)];
    if (run.name !== null) parts.push(str(run.name));
    bar.appendChild(el("span", "run-name", parts.join(" · ")));
    const kind = run.outcome[0];  // said by the chips under the bar, apart from the file's
    bar.appendChild(el("span", "caption", run.figures));
    // The steps show part of the run the figures count (a paused and resumed run).
    if (run.stepsNote) bar.appendChild(el("span", "caption", run.stepsNote));
    if (data.redacted !== null) {
      const note = el("span", "badge redacted", "redacted");
      note.title = "Masked before this page was built: " + data.redacted;
      bar.appendChild(note);
    }
    const details = el("details", "run-details");
    details.appendChild(el("summary", null, "Run details"));
    details.appendChild(caption("How the run ended: " + kind + "."));
    const said = [str(run.outcome[1]), str(run.outcome[2])].filter((t) => t);
    if (said.length) details.appendChild(el("pre", "text", said.join("\n")));
    const facts = el("dl", "facts");
    for (const [name, value] of run.facts) {
      facts.appendChild(el("dt", null, name));
      facts.appendChild(el("dd", null, str(value)));
    }
    details.appendChild(facts);
    if (run.gaps.length) {
      details.appendChild(caption(counted(run.gaps.length, "thing") + " this file does not carry or " +
        "this projection cannot show:"));
      details.appendChild(el("pre", "text", run.gaps.map((g) => "• " + str(g)).join("\n")));
    }
    if (data.redacted !== null) {
      details.appendChild(caption("Redacted before this page was built (the same mask for " +
        "the same value): " + data.redacted + "."));
    }
    details.appendChild(caption("Exported from Lens (" + data.profile + " projection). " +
      "Keys: " + data.keys.next + " next step, " + data.keys.previous + " previous."));
    bar.appendChild(details);
    return bar;
  }

  // ── the view switch ────────────────────────────────────────────────
  const VIEWS = [["steps", "Steps"], ["timeline", "Timeline"], ["route", "Why this skill?"],
    ["causes", "Likely causes"]];
  function switcher(choices, current, choose, label) {
    const row = el("div", "switch");
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", label);
    for (const [key, text] of choices) {
      const b = button(text, () => choose(key), key === current ? "on" : "");
      b.setAttribute("aria-pressed", key === current ? "true" : "false");
      row.appendChild(b);
    }
    return row;
  }

  // ── steps: breadcrumb, controls, label, diagram, detail ────────────
  function breadcrumb(scope) {
    const row = el("div", "crumbs");
    row.appendChild(el("span", "caption", "Scope"));
    for (const n of scope.crumbs) {
      const here = n === state.scope;
      const b = button(str(scopeOf(n).name), () => goTo([n, 0]), here ? "on" : "");
      b.disabled = here;
      row.appendChild(b);
    }
    if (scope.children.length) {
      row.appendChild(el("span", "caption", "· enter"));
      const pick = el("select");
      pick.setAttribute("aria-label", "Enter a child scope");
      pick.appendChild(el("option", null, "choose…"));
      for (const n of scope.children) {
        const option = el("option", null, "▸ " + str(scopeOf(n).name) + " (" +
          scopeOf(n).steps.length + " steps)");
        option.value = String(n);
        pick.appendChild(option);
      }
      pick.addEventListener("change", () => { if (pick.value !== "choose…") goTo([Number(pick.value), 0]); });
      row.appendChild(pick);
    }
    return row;
  }

  function move(to) {
    const count = scopeOf(state.scope).steps.length;
    const next = Math.max(0, Math.min(count - 1, to));
    if (next !== state.step) { state.step = next; render(); }
  }

  function controls(count) {
    const row = el("div", "controls");
    const first = button("«", () => move(0));
    first.title = "first step";
    const prev = button("‹ Prev", () => move(state.step - 1));
    prev.title = "previous step (key " + data.keys.previous + ")";
    const next = button("Next ›", () => move(state.step + 1));
    next.title = "next step (key " + data.keys.next + ")";
    const last = button("»", () => move(count - 1));
    last.title = "last step";
    first.disabled = prev.disabled = state.step === 0;
    next.disabled = last.disabled = state.step >= count - 1;
    row.append(first, prev);
    if (count > 1) {
      const slider = el("input", "slider");
      slider.type = "range";
      slider.min = "1";
      slider.max = String(count);
      slider.value = String(state.step + 1);
      slider.setAttribute("aria-label", "Step");
      slider.addEventListener("input", () => move(Number(slider.value) - 1));
      row.appendChild(slider);
    } else {
      row.appendChild(caption("This scope has a single step."));
    }
    row.append(next, last);
    return row;
  }

  function diagram(chart) {
    const rows = chart.rows.map((n) => data.rows[n]);
    const frame = rows.filter((r) => r[0] === "f");
    const left = frame.length ? frame[0][1] : 0, top = frame.length ? frame[0][2] : 0;
    const right = frame.length > 1 ? frame[1][1] : 100;
    const pad = data.diagramPad;
    const width = Math.max(right - left, 1), height = chart.height;
    const picture = svg("svg", { viewBox: [left, top - pad, width, height].join(" "),
      width: width, height: height, role: "img", "aria-label": "actor-arrow diagram",
      class: "diagram" });
    const styles = data.arrowStyles;
    for (const r of rows) {
      if (r[0] !== "s") continue;
      const [colour, lineWidth, dash] = styles[r[1]];
      const line = svg("line", { x1: r[2], y1: r[3], x2: r[4], y2: r[5], stroke: colour,
        "stroke-width": lineWidth, "stroke-linecap": "butt" });
      if (dash.length) line.setAttribute("stroke-dasharray", dash.join(" "));
      picture.appendChild(line);
    }
    for (const r of rows) {
      if (r[0] !== "h") continue;
      const length = Math.sqrt(r[6]), angle = Math.atan2(r[5] - r[3], r[4] - r[2]) * 180 / Math.PI;
      picture.appendChild(svg("polygon", {
        points: [length / 2, 0, -length / 2, -length / 2.4, -length / 2, length / 2.4].join(" "),
        fill: r[7], transform: "translate(" + r[2] + " " + r[3] + ") rotate(" + angle + ")" }));
    }
    for (const r of rows) {
      if (r[0] !== "t") continue;
      const lines = str(r[4]).split("\n");
      const lineHeight = r[5] * data.lineHeight;
      const text = svg("text", { x: r[2], y: r[3], "font-size": r[5], fill: r[6],
        "text-anchor": "middle", "dominant-baseline": "central", class: "label-" + r[1] });
      lines.forEach((line, n) => {
        const span = svg("tspan", { x: r[2], dy: n === 0 ? -(lines.length - 1) / 2 * lineHeight : lineHeight });
        span.textContent = line;
        text.appendChild(span);
      });
      if (r[7].length) {
        const hover = svg("title", {});
        hover.textContent = r[7].map(str).join("\n");
        text.appendChild(hover);
      }
      picture.appendChild(text);
    }
    for (const r of rows) {
      if (r[0] !== "n") continue;
      const [, style, x, y, , size, colour, shape, stroke, ring, opacity, hover, drill] = r;
      const side = Math.sqrt(size);
      const node = shape === "square"
        ? svg("rect", { x: x - side / 2, y: y - side / 2, width: side, height: side, rx: 3 })
        : svg("circle", { cx: x, cy: y, r: side / 2 });
      node.setAttribute("fill", colour);
      node.setAttribute("stroke", stroke);
      node.setAttribute("stroke-width", ring);
      node.setAttribute("opacity", opacity);
      node.setAttribute("class", "node" + (style ? " node-" + style : ""));
      const name = hover.length ? str(hover[0]) : "";
      node.setAttribute("aria-label", name);
      const title = svg("title", {});
      title.textContent = hover.map(str).join("\n");
      node.appendChild(title);
      if (drill !== null && drill !== undefined && drill !== state.scope) {
        node.setAttribute("tabindex", "0");
        node.setAttribute("role", "button");
        node.classList.add("drill");
        node.addEventListener("click", () => goTo([drill, 0]));
        node.addEventListener("keydown", (e) => { if (e.key === "Enter") goTo([drill, 0]); });
      }
      picture.appendChild(node);
    }
    return picture;
  }

  function toolBox(tool) {
    const box = el("div", "tool-call" + (tool.failed ? " failed" : ""));
    let head = str(tool.name);
    if (tool.id !== null) head += " · call " + str(tool.id);
    if (tool.duration) head += " · " + tool.duration;
    box.appendChild(el("div", "tool-head", head));
    if (tool.args === null) box.appendChild(caption("Arguments: not in the recording."));
    else { box.appendChild(caption("Arguments")); box.appendChild(valueBox(tool.args)); }
    if (tool.result === null) box.appendChild(caption("Result: not in the recording."));
    else {
      box.appendChild(tool.failed
        ? el("div", "alert error", "This tool call failed (error: true). Its error text:")
        : caption("Result"));
      box.appendChild(valueBox(tool.result));
    }
    return box;
  }

  function stepPane(step) {
    const pane = el("div", "pane");
    const d = step.detail;
    pane.appendChild(el("div", "heading", str(d.heading)));
    if (step.causes.length) {
      pane.appendChild(caption("What went wrong here (" + step.causes.length +
        "; all of them in Likely causes)"));
      pane.appendChild(el("pre", "text said", step.causes.map((n) => {
        const c = data.causes[n];
        return (c.error ? "✖ " : "⚠ ") + str(c.headline);
      }).join("\n")));
    }
    if (d.absent.length) {
      pane.appendChild(caption(d.absent.map((n) => "Not in the recording: " + str(n) + ".").join("\n")));
    }
    for (const [title, value] of d.texts) {
      pane.appendChild(caption(str(title)));
      pane.appendChild(valueBox(value));
    }
    for (const [title, tools] of [["Tools it asked for", d.asked],
      ["Tool results fed back into this call", d.results]]) {
      if (!tools.length) continue;
      pane.appendChild(el("div", "subheading", title));
      for (const tool of tools) pane.appendChild(toolBox(tool));
    }
    if (d.branches.length) {
      pane.appendChild(el("div", "subheading", "Branches (" + d.branches.length + ")"));
      pane.appendChild(el("pre", "text", d.branches.map((b) => "• " + str(b)).join("\n")));
    }
    const facts = el("details", "stage-facts");
    facts.appendChild(el("summary", null, "Stage facts (" + d.facts.length + ")"));
    facts.appendChild(el("pre", "text", d.facts.map(([n, v]) => n + ": " + str(v)).join("\n")));
    pane.appendChild(facts);
    return pane;
  }

  function servedPane(step) {
    const pane = el("div", "pane served");
    if (!data.calls.length) {
      pane.appendChild(caption("Served context: no model call was recorded in this run."));
      return pane;
    }
    if (step.served === null) {
      pane.appendChild(caption("Served context: this step is not a model call, and no model " +
        "call started before it."));
      return pane;
    }
    const [id, exact] = step.served;
    const call = data.calls[id];
    if (!exact) {
      pane.appendChild(caption("Served context: this step is not a model call; showing the " +
        "last model call that started before it."));
      const link = stepLink(call.start && call.start.to, "Its step:");
      if (link) pane.appendChild(link);
    }
    pane.appendChild(el("div", "heading", str(call.title)));
    for (const n of call.notices) pane.appendChild(el("div", "alert warning", str(n)));
    for (const slot of call.slots) pane.appendChild(slotSection(slot));
    pane.appendChild(el("div", "subheading", "Output (" + str(call.outputStatus) + ")"));
    if (call.output !== null) pane.appendChild(valueBox(call.output));
    if (call.tools.length) {
      pane.appendChild(el("div", "subheading", "Tools it asked for (" + call.tools.length + ")"));
      for (const tool of call.tools) {
        const box = el("div", "tool-call" + (tool.error ? " failed" : ""));
        box.appendChild(el("div", "tool-head", str(tool.name) +
          (tool.id !== null ? " · call " + str(tool.id) : "") + " · " + tool.status));
        if (tool.args !== null) { box.appendChild(caption("Arguments")); box.appendChild(valueBox(tool.args)); }
        if (tool.result !== null) {
          box.appendChild(tool.error ? el("div", "alert error", "Error text") : caption("Result"));
          box.appendChild(valueBox(tool.result));
        }
        for (const note of tool.notes) box.appendChild(valueBox(note));
        pane.appendChild(box);
      }
    }
    if (call.failure !== null) {
      pane.appendChild(el("div", "alert error", "A fatal error was recorded while this call was open:"));
      pane.appendChild(valueBox(call.failure));
    }
    if (str(call.usage)) pane.appendChild(caption(str(call.usage)));
    if (call.skills !== null) { pane.appendChild(caption("Skills evaluated")); pane.appendChild(valueBox(call.skills)); }
    if (call.events.length) {
      pane.appendChild(caption("Recorded before this call"));
      for (const ev of call.events) pane.appendChild(valueBox(ev));
    }
    const facts = el("details", "stage-facts");
    facts.appendChild(el("summary", null, "Call facts (" + call.facts.length + ")"));
    facts.appendChild(el("pre", "text", call.facts.map(([n, v]) => str(n) + ": " + str(v)).join("\n")));
    pane.appendChild(facts);
    return pane;
  }

  function slotSection(slot) {
    const section = el("details", "slot");
    section.open = true;
    section.appendChild(el("summary", null, str(slot.title) + " · " + counted(slot.pieces.length, "piece")));
    section.appendChild(caption(str(slot.status) + " · budget: " + str(slot.budget)));
    for (const n of slot.notes) section.appendChild(caption(str(n)));
    if (slot.droppedCount) section.appendChild(caption(counted(slot.droppedCount, "piece") + " dropped:"));
    for (const d of slot.dropped) section.appendChild(valueBox(d));
    const list = el("div", "pieces");
    section.appendChild(list);
    const pages = Math.max(1, Math.ceil(slot.pieces.length / PAGE));
    const changed = slot.pieces.findIndex((p) => p[2]);
    let page = changed > 0 ? Math.floor(changed / PAGE) : 0;
    const pager = el("div", "pager");
    function draw() {
      clear(list);
      for (const piece of slot.pieces.slice(page * PAGE, (page + 1) * PAGE)) list.appendChild(pieceBox(piece));
      clear(pager);
      if (pages > 1) {
        const back = button("‹", () => { page -= 1; draw(); });
        back.disabled = page === 0;
        const on = button("›", () => { page += 1; draw(); });
        on.disabled = page >= pages - 1;
        pager.append(back, el("span", "caption", "page " + (page + 1) + " of " + pages), on);
      }
    }
    section.appendChild(pager);
    draw();
    return section;
  }

  function pieceBox(piece) {
    const [role, provenance, change, error, content, nav] = piece;
    const box = el("div", "piece" + (error ? " failed" : ""));
    let head = str(role) + " · " + str(provenance);
    if (change) head += " · " + change + " since the previous call";
    box.appendChild(el("div", "piece-head", head));
    if (content !== null) box.appendChild(valueBox(content));
    else box.appendChild(caption("No content recorded."));
    if (nav && nav.to) box.appendChild(stepLink(nav.to, navLabel(nav)));
    return box;
  }

  function stepsView(main) {
    const scope = scopeOf(state.scope);
    main.appendChild(breadcrumb(scope));
    if (!scope.steps.length) {
      main.appendChild(el("div", "alert info", "This scope has no steps in this projection."));
      return;
    }
    const step = scope.steps[state.step];
    main.appendChild(controls(scope.steps.length));
    const label = el("div", "step-label", str(step.caption));
    label.id = "step-label";
    label.setAttribute("aria-live", "polite");
    main.appendChild(label);
    const columns = el("div", "columns");
    const left = el("div", "column diagram-column");
    left.appendChild(el("div", "headline", str(step.headline)));
    left.appendChild(diagram(step.diagram));
    left.appendChild(caption("Orange: this step's arrows (red dashed: halted or refused · teal " +
      "dashed: via a fallback or retried) · grey: earlier steps · ■ a subflow: click it to " +
      "drill in · keys: " + data.keys.next + " next, " + data.keys.previous + " previous, ←/→ on the slider."));
    const right = el("div", "column detail-column");
    right.appendChild(switcher([["step", "This step"], ["served", "Served context"]], state.pane,
      (key) => { state.pane = key; render(); }, "Detail"));
    right.appendChild(state.pane === "served" ? servedPane(step) : stepPane(step));
    columns.append(left, right);
    main.appendChild(columns);
  }

  // ── the timeline ───────────────────────────────────────────────────
  const SPAN_COLOURS = { model: "#7048e8", tool: "#2b8a3e", failed: "#c92a2a" };
  function timelineView(main) {
    const t = data.timeline;
    if (!t.spans.length) {
      main.appendChild(el("div", "alert info", "No model or tool call in this run carries a " +
        "time, so there is no timeline to draw."));
      return;
    }
    const scope = scopeOf(state.scope);
    const current = new Set((scope.steps.length ? scope.steps[state.step].spans : [])
      .map((s) => s[0] + ":" + s[1]));
    const calls = t.spans.filter((s) => s[0] === "model").length;
    let summary = counted(calls, "model call") + " and " + counted(t.spans.length - calls, "tool call") +
      " in " + counted(t.lanes.length, "scope") + "; " + t.spans.filter((s) => s[6]).length + " failed.";
    if (t.unplaced) summary += " " + counted(t.unplaced, "call") + (t.unplaced === 1 ? " carries" : " carry") +
      " no time and " + (t.unplaced === 1 ? "is" : "are") + " not drawn.";
    if (t.summary) summary += " Marked: " + t.summary + " (hover a mark for the framework's words).";
    main.appendChild(caption(summary + " Outlined: the calls of step " + (state.step + 1) +
      " of " + str(scope.name) + ". Click a bar to go to its step."));
    const labelWidth = 170, width = 1100, rowHeight = 46, axis = 24;
    const horizon = Math.max(1, ...t.spans.map((s) => s[4]), ...t.marks.map((m) => m[2]));
    const x = (ms) => labelWidth + (ms / horizon) * (width - labelWidth - 10);
    const height = t.lanes.length * rowHeight + axis;
    const picture = svg("svg", { viewBox: "0 0 " + width + " " + height, width: width,
      height: height, class: "timeline", role: "img", "aria-label": "timeline" });
    t.lanes.forEach((lane, n) => {
      const label = svg("text", { x: 4, y: n * rowHeight + rowHeight / 2, "dominant-baseline": "central",
        "font-size": 12, fill: "#495057" });
      label.textContent = str(lane).length > 24 ? str(lane).slice(0, 23) + "…" : str(lane);
      const title = svg("title", {});
      title.textContent = str(lane);
      label.appendChild(title);
      picture.appendChild(label);
      picture.appendChild(svg("line", { x1: labelWidth, x2: width - 10, y1: (n + 1) * rowHeight,
        y2: (n + 1) * rowHeight, stroke: "#e9ecef" }));
    });
    const hasTools = t.spans.some((s) => s[0] === "tool");
    for (const s of t.spans) {
      const [kind, id, lane, start, end, label, failed, open, place] = s;
      const top = lane * rowHeight + (hasTools ? (kind === "model" ? 6 : 25) : 14);
      const bar = svg("rect", { x: x(start), y: top, width: Math.max(2, x(end) - x(start)),
        height: 15, fill: failed ? SPAN_COLOURS.failed : SPAN_COLOURS[kind],
        class: "span" + (open ? " open" : "") + (current.has(kind + ":" + id) ? " current" : "") });
      const title = svg("title", {});
      title.textContent = (kind === "model" ? "model call " : "tool ") + str(label) + " · " +
        Math.round(end - start) + " ms" + (failed ? " · failed" : "") + (open ? " · did not end" : "");
      bar.appendChild(title);
      if (place) bar.addEventListener("click", () => goTo(place, "steps"));
      picture.appendChild(bar);
    }
    for (const m of t.marks) {
      const [kind, lane, at, type, detail] = m;
      const cx = x(at), cy = lane * rowHeight + 23;
      const mark = svg("polygon", { points: [cx, cy - 6, cx + 6, cy, cx, cy + 6, cx - 6, cy].join(" "),
        fill: "#e8590c", class: "mark" });
      const title = svg("title", {});
      title.textContent = kind + " · " + str(type) + (str(detail) ? ": " + str(detail) : "");
      mark.appendChild(title);
      picture.appendChild(mark);
    }
    for (let n = 0; n <= 4; n += 1) {
      const ms = horizon * n / 4;
      const tick = svg("text", { x: x(ms), y: height - 6, "font-size": 11, fill: "#868e96",
        "text-anchor": n === 0 ? "start" : n === 4 ? "end" : "middle" });
      tick.textContent = Math.round(ms).toLocaleString("en") + " ms";
      picture.appendChild(tick);
    }
    const holder = el("div", "scroll");
    holder.appendChild(picture);
    main.appendChild(holder);
    main.appendChild(caption("Purple: model calls · green: tool calls · red: failed · dashed " +
      "outline: never ended · ◆ retries, fallbacks, recoveries, pauses and check-ins. Times are ms " +
      "from the run's first recorded call."));
  }

  // ── the route ──────────────────────────────────────────────────────
  function routeView(main) {
    const r = data.route;
    if (r.message !== undefined) {
      main.appendChild(el("div", "alert info", str(r.message)));
      procedureTables(main, r.procedures);
      return;
    }
    if (r.trips.length) {
      main.appendChild(el("div", "alert warning", counted(r.trips.length, "governor trip") + ": the route misbehaved."));
      const trips = el("pre", "text", r.trips.map(str).join("\n"));
      trips.title = r.governorHelp;
      main.appendChild(trips);
    }
    if (str(r.path)) main.appendChild(el("pre", "text route-path", "Route: " + str(r.path)));
    main.appendChild(caption(r.rows.length + " hops. Click a hop to go to the step of its iteration."));
    const holder = el("div", "scroll");
    const table = el("table", "hops");
    const head = el("tr");
    for (const name of r.columns) head.appendChild(el("th", null, name));
    table.appendChild(head);
    r.rows.forEach((row, n) => {
      const line = el("tr");
      for (const cell of row) line.appendChild(el("td", null, str(cell)));
      if (r.to[n] !== null) {
        line.classList.add("clickable");
        line.tabIndex = 0;
        line.addEventListener("click", () => goTo([0, r.to[n]], "steps"));
      }
      table.appendChild(line);
    });
    holder.appendChild(table);
    main.appendChild(holder);
    if (str(r.reasons)) {
      main.appendChild(caption("Each hop's reason, in full"));
      main.appendChild(el("pre", "text", str(r.reasons)));
    }
    procedureTables(main, r.procedures);
  }

  // Each skill's declared procedure as the run walked it (lens/procedure_view.py).
  function procedureTables(main, procedures) {
    for (const p of procedures || []) {
      main.appendChild(el("pre", "text", str(p.summary)));
      const holder = el("div", "scroll");
      const table = el("table", "hops");
      const head = el("tr");
      for (const name of p.columns) head.appendChild(el("th", null, name));
      table.appendChild(head);
      for (const row of p.rows) {
        const line = el("tr");
        for (const cell of row) line.appendChild(el("td", null, str(cell)));
        table.appendChild(line);
      }
      holder.appendChild(table);
      main.appendChild(holder);
    }
  }

  // Where a cause's answer came from, in the app's words (lens/cause_lineage.py):
  // its label, opening onto the whole line and a link to each stage's step.
  function cameFromLine(came) {
    if (!came.stages.length) return caption(str(came.words));
    const box = el("details", "came-from");
    box.appendChild(el("summary", null, str(came.label)));
    box.appendChild(caption(str(came.words)));
    const row = el("div", "stage-links");
    for (const [label, place] of came.stages) {
      if (place) row.appendChild(button(str(label), () => goTo(place, "steps"), "link"));
      else row.appendChild(el("span", "caption", str(label)));
    }
    box.appendChild(row);
    return box;
  }

  // ── likely causes ──────────────────────────────────────────────────
  function causesView(main) {
    main.appendChild(el("h2", null, "Likely causes"));
    for (const n of data.notes) main.appendChild(el("pre", "text", str(n)));
    if (!data.causes.length) {
      main.appendChild(el("div", "alert success", "Nothing in this run failed: no failed tool, " +
        "provider error, rejected route, governor trip or cut context was recorded."));
      return;
    }
    main.appendChild(caption("What most often explains a wrong answer, most likely first. Each " +
      "leads to the step that shows it."));
    for (const cause of data.causes) {
      const box = el("div", "cause");
      // The headline leads, in words; the kind and the payload are one click down.
      box.appendChild(el("div", "alert " + (cause.error ? "error" : "warning"), str(cause.headline)));
      box.appendChild(el("pre", "text", str(cause.why)));
      if (cause.cameFrom) box.appendChild(cameFromLine(cause.cameFrom));
      const recorded = el("details", "recorded");
      recorded.appendChild(el("summary", null, "What was recorded"));
      recorded.appendChild(el("div", "caption", "Kind: " + cause.kind));
      if (cause.detail !== null) recorded.appendChild(valueBox(cause.detail));
      box.appendChild(recorded);
      const nav = cause.nav;
      if (nav && nav.to) box.appendChild(stepLink(nav.to, navLabel(nav)));
      else if (nav && nav.why !== null) box.appendChild(caption("No step: " + str(nav.why)));
      main.appendChild(box);
    }
  }

  // ── the first screen: how the run ended, then its top causes ───────
  function answerFirst() {
    const first = data.first;
    const box = el("section", "answer-first");
    const chips = el("div", "chips");
    for (const [label, colour] of first.chips) {
      chips.appendChild(el("span", "chip chip-" + colour.replace(/[^a-z]/g, ""), label));
    }
    box.appendChild(chips);
    box.appendChild(el("p", "outcome-sentence", str(first.sentence)));
    const top = data.causes.slice(0, first.top);
    if (!top.length) {
      box.appendChild(caption("No likely cause was found: no failed tool, provider error, " +
        "rejected route, framework verdict or cut context is recorded."));
      return box;
    }
    const list = el("div", "top-causes");
    for (const cause of top) {
      const item = el("div", "top-cause " + (cause.error ? "error" : "warning"));
      item.appendChild(el("div", "text", str(cause.headline)));
      const nav = cause.nav;
      if (nav && nav.to) item.appendChild(stepLink(nav.to, navLabel(nav)));
      else if (nav && nav.why !== null) item.appendChild(caption("No step: " + str(nav.why)));
      if (cause.cameFrom) item.appendChild(cameFromLine(cause.cameFrom));
      list.appendChild(item);
    }
    box.appendChild(list);
    if (data.causes.length > top.length) {
      box.appendChild(caption((data.causes.length - top.length) + " more in Likely causes."));
    }
    return box;
  }

  // ── the page ───────────────────────────────────────────────────────
  const bar = runBar();
  const views = el("div", "views");
  const main = el("main");
  root.append(bar, answerFirst(), views, main);

  function render() {
    const scope = scopeOf(state.scope);
    if (state.step >= scope.steps.length) state.step = Math.max(0, scope.steps.length - 1);
    const focused = document.activeElement && document.activeElement.classList &&
      document.activeElement.classList.contains("slider");
    clear(views).appendChild(switcher(VIEWS, state.view, (key) => { state.view = key; render(); }, "View"));
    clear(main);
    if (state.view === "timeline") timelineView(main);
    else if (state.view === "route") routeView(main);
    else if (state.view === "causes") causesView(main);
    else stepsView(main);
    if (focused) {
      const slider = main.querySelector(".slider");
      if (slider) slider.focus();
    }
  }

  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    const typing = target instanceof HTMLElement && (target.isContentEditable ||
      target.tagName === "TEXTAREA" || target.tagName === "SELECT" ||
      (target.tagName === "INPUT" && target.type !== "range"));
    if (typing || state.view !== "steps") return;
    const key = event.key.toUpperCase();
    if (key === data.keys.next) { move(state.step + 1); event.preventDefault(); }
    else if (key === data.keys.previous) { move(state.step - 1); event.preventDefault(); }
  });

  render();
})();
