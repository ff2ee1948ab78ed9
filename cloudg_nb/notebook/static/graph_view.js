// cloudg graph view: the anywidget front end of cloudg_nb.notebook.graph_view.GraphView.
// graph_view.py puts cytoscape.js (vendored beside this file) in front of this code as the
// `cytoscape` constant; the model holds `nodes` and `edges` (positions laid out in Python),
// `title`, `summary` (what is drawn, what groups hide), `legend`, `height`, `selected` (the
// id of the node clicked last, sent back to Python) and `expanded` (the groups clicked open:
// a click on a group adds it, Python redraws and sends the new nodes and edges).

// Colours follow the page's theme (light or dark): the widget's CSS sets --cloudg-graph-*
// variables from JupyterLab's --jp-* ones (with fallbacks); cytoscape takes plain values, so
// they are read here, at render and again whenever the page's theme changes.
const RINGS = ["critical", "high", "medium", "low", "info", "unknown", "none"];
const FILLS = ["internet", "network", "compute", "identity", "data", "keys", "organization",
  "other"];

function rgba(text) {
  const parts = (/rgba?\(([^)]*)\)/.exec(text || "") || [null, ""])[1]
    .split(/[\s,/]+/).filter(Boolean).map(Number);
  return parts.length >= 3 ? { r: parts[0], g: parts[1], b: parts[2], a: parts[3] ?? 1 } : null;
}

function over(colour, below) {
  // a translucent colour (JupyterLab's text is) as the opaque colour it shows on `below`
  const mix = (c, b) => Math.round(c * colour.a + b * (1 - colour.a));
  return `rgb(${mix(colour.r, below.r)}, ${mix(colour.g, below.g)}, ${mix(colour.b, below.b)})`;
}

function themeColours(el) {
  const probe = document.createElement("span");
  probe.style.display = "none";
  el.append(probe);
  const read = (name) => {
    probe.style.color = `var(${name})`;
    return rgba(getComputedStyle(probe).color);
  };
  const white = { r: 255, g: 255, b: 255, a: 1 };
  const page = read("--cloudg-graph-background") || white;
  const background = rgba(over(page, white));
  const colour = (name) => over(read(name) || { ...background, a: 1 }, background);
  const colours = {
    background: over(background, background),
    text: colour("--cloudg-graph-text"),
    dim: colour("--cloudg-graph-text-dim"),
    line: colour("--cloudg-graph-line"),
    accent: colour("--cloudg-graph-accent"),
    ring: Object.fromEntries(RINGS.map((k) => [k, colour(`--cloudg-graph-ring-${k}`)])),
    fill: Object.fromEntries(FILLS.map((k) => [k, colour(`--cloudg-graph-fill-${k}`)])),
  };
  probe.remove();
  return colours;
}

function stylesheet(colours) {
  const ring = (node) => colours.ring[String(node.data("severity") || "none").toLowerCase()]
    || node.data("ring");
  const fill = (node) => colours.fill[node.data("category")] || node.data("fill");
  return [
    {
      selector: "node",
      style: {
        "background-color": fill,
        "border-color": ring,
        "border-width": "data(ring_width)",
        shape: "data(shape)",
        width: "data(size)",
        height: "data(size)",
        label: "data(label)",
        "text-valign": "bottom",
        "text-halign": "center",
        "text-margin-y": 5,
        "text-wrap": "wrap",
        "text-max-width": 150,
        "font-size": 12,
        "line-height": 1.15,
        color: colours.text,
        // a backing under each label keeps it legible where it crosses an edge
        "text-background-color": colours.background,
        "text-background-opacity": 0.85,
        "text-background-padding": 2,
        "text-background-shape": "roundrectangle",
        // zoomed far out, labels would only be soup: they come back on zooming in
        "min-zoomed-font-size": 6,
      },
    },
    { selector: "node.group", style: { "font-weight": "bold", "text-max-width": 170 } },
    {
      selector: "node.entry",
      style: {
        "outline-width": 2,
        "outline-color": colours.text,
        "outline-style": "dashed",
        "outline-offset": 3,
      },
    },
    { selector: "node.sensitive", style: { "font-weight": "bold" } },
    {
      selector: "node:selected",
      style: { "overlay-color": colours.accent, "overlay-opacity": 0.25, "overlay-padding": 6 },
    },
    {
      selector: "edge",
      style: {
        width: "data(width)",
        "line-color": colours.line,
        "curve-style": "bezier",
        "target-arrow-shape": "triangle",
        "target-arrow-color": colours.line,
        "arrow-scale": 1.15,
        "font-size": 10,
        color: colours.dim,
        "text-rotation": "autorotate",
        "text-background-color": colours.background,
        "text-background-opacity": 0.9,
        "text-background-padding": 1,
        "min-zoomed-font-size": 6,
      },
    },
    { selector: "edge.labelled", style: { label: "data(label)" } },
    { selector: "edge.undirected", style: { "target-arrow-shape": "none" } },
    { selector: "edge.virtual", style: { "line-style": "dashed" } },
    {
      selector: "edge.near",
      style: { label: "data(label)", "line-color": colours.accent,
               "target-arrow-color": colours.accent, color: colours.text, "z-index": 10 },
    },
  ];
}

//: Below this zoom, labels are too small to read: the first view never goes below it.
const READABLE_ZOOM = 0.6;
//: Edge labels are drawn when there are this few edges; else on a selected node's edges.
const LABELLED_EDGES = 30;

function elements(model) {
  const given = model.get("nodes") || [];
  const ids = new Set(given.map((n) => String(n.id)));
  const nodes = given.map((n) => ({
    group: "nodes",
    data: { size: 34, ...n, id: String(n.id) },
    position: { x: n.x || 0, y: n.y || 0 },
    classes: [n.entry ? "entry" : "", n.sensitive ? "sensitive" : "",
      n.kind === "group" ? "group" : ""].join(" ").trim(),
  }));
  const given_edges = (model.get("edges") || [])
    .filter((e) => ids.has(String(e.source)) && ids.has(String(e.target)));
  const labelled = given_edges.length <= LABELLED_EDGES;
  const edges = given_edges.map((e, i) => ({
    group: "edges",
    data: { width: 1.6, ...e, id: `edge-${i}`, source: String(e.source),
            target: String(e.target) },
    classes: [e.directed === false ? "undirected" : "", e.virtual ? "virtual" : "",
      labelled ? "labelled" : ""].join(" ").trim(),
  }));
  return [...nodes, ...edges];
}

function row(name, value) {
  const tr = document.createElement("tr");
  const th = document.createElement("th");
  const td = document.createElement("td");
  th.textContent = name;
  td.textContent = value === null || value === undefined ? "—"
    : typeof value === "number" ? value.toLocaleString("en-US")
      : typeof value === "object" ? JSON.stringify(value) : String(value);
  tr.append(th, td);
  return tr;
}

function element(tag, className, text) {
  const e = document.createElement(tag);
  if (className) {
    e.className = className;
  }
  if (text !== undefined) {
    e.textContent = text;
  }
  return e;
}

function swatch(kind, key) {
  // a small sample of what the graph draws, in the theme's colours (CSS variables)
  const s = element("span", `cloudg-graph-swatch cloudg-graph-swatch-${kind}`);
  if (kind === "fill") {
    s.style.background = `var(--cloudg-graph-fill-${key})`;
  } else if (kind === "ring") {
    s.style.borderColor = `var(--cloudg-graph-ring-${key})`;
  } else if (kind === "mark") {
    s.classList.add(`cloudg-graph-mark-${key}`);
    s.textContent = key === "sensitive" ? "Aa" : "";
  }
  return s;
}

function legendEntry(sample, label, count) {
  const item = element("span", "cloudg-graph-legend-item");
  const text = count === undefined || count === null ? label
    : `${label} (${Number(count).toLocaleString("en-US")})`;
  item.append(sample, element("span", "cloudg-graph-legend-label", text));
  return item;
}

function drawLegend(box, legend) {
  box.replaceChildren();
  if (!legend || !legend.categories) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  const section = (name, items) => {
    if (!items.length) {
      return;
    }
    const line = element("div", "cloudg-graph-legend-row");
    line.append(element("span", "cloudg-graph-legend-head", name), ...items);
    box.append(line);
  };
  section("asset (fill)", legend.categories.map(
    (c) => legendEntry(swatch("fill", c.key), c.label, c.assets)));
  section("worst open finding (ring)", legend.severities.map(
    (r) => legendEntry(swatch("ring", r.key), r.label, r.assets)));
  section("edges", (legend.edges || []).map((e) => legendEntry(
    element("span", `cloudg-graph-swatch-edge${e.virtual ? " virtual" : ""}`, "→"),
    e.label, e.count)));
  const notes = [];
  if (legend.direction) {
    notes.push(element("span", "cloudg-graph-legend-label cloudg-graph-direction",
      `→ ${legend.direction}`));
  }
  for (const mark of legend.marks || []) {
    notes.push(legendEntry(swatch("mark", mark.key), mark.label));
  }
  section("reading it", notes);
}

function button(text, title, onClick) {
  const b = element("button", "cloudg-graph-button", text);
  b.title = title;
  b.addEventListener("click", onClick);
  return b;
}

function findingsList(data) {
  const box = element("div", "cloudg-graph-findings");
  const found = data.findings || [];
  const total = data.findings_total || found.length;
  box.append(element("div", "cloudg-graph-section",
    total ? `Open findings (${total})` : "No open findings"));
  const list = element("ul", "cloudg-graph-finding-list");
  for (const f of found) {
    const item = element("li", `cloudg-graph-finding severity-${String(f.severity).toLowerCase()}`);
    item.append(element("span", "cloudg-graph-severity", f.severity),
      element("span", "cloudg-graph-finding-title", f.title || f.id));
    const bits = [f.id, f.cvss_score !== null && f.cvss_score !== undefined
      ? `CVSS ${f.cvss_score}` : "", f.source_tool || ""].filter(Boolean);
    item.append(element("span", "cloudg-graph-finding-meta", bits.join(" · ")));
    list.append(item);
  }
  if (found.length) {
    box.append(list);
  }
  if (total > found.length) {
    box.append(element("div", "cloudg-graph-hint",
      `and ${total - found.length} more: view.findings("${data.id}") has them all`));
  }
  return box;
}

function render({ model, el }) {
  el.classList.add("cloudg-graph");
  const head = element("div", "cloudg-graph-head");
  const titles = element("div", "cloudg-graph-titles");
  const title = element("span", "cloudg-graph-title");
  const summary = element("span", "cloudg-graph-summary");
  titles.append(title, summary);
  const fit = element("button", "cloudg-graph-fit", "fit");
  fit.title = "zoom to show the whole graph";
  head.append(titles, fit);
  const body = element("div", "cloudg-graph-body");
  const canvas = element("div", "cloudg-graph-canvas");
  const side = element("div", "cloudg-graph-side");
  body.append(canvas, side);
  const legend = element("div", "cloudg-graph-legend");
  el.append(head, body, legend);

  const hint = () => {
    side.replaceChildren(element("p", "cloudg-graph-hint",
      "Click a node to see its findings and attributes"
      + ((model.get("legend") || {}).hidden?.groups ? ", a group to expand it" : "")
      + ". Drag to pan, scroll to zoom."));
  };
  // the group clicked open last (its id and what the panel showed of it): once its assets
  // are drawn, the view goes to them and the panel still describes the group
  let opened = null;
  let openedData = null;
  const expand = (groupId, data) => {
    opened = groupId;
    openedData = data || null;
    model.set("expanded", [...(model.get("expanded") || []), groupId]);
    model.save_changes();
  };
  const collapse = (groupId) => {
    model.set("expanded", (model.get("expanded") || []).filter((g) => g !== groupId));
    model.save_changes();
  };
  const show = (data, note) => {
    side.replaceChildren();
    side.append(element("div", "cloudg-graph-node-title", data.name || data.id));
    if (data.kind === "group") {
      const open = (model.get("expanded") || []).includes(data.expand);
      side.append(element("p", "cloudg-graph-hint", note
        || `${Number(data.count).toLocaleString("en-US")} assets drawn as one node.`),
      button(open ? "more" : "expand", "draw more of these assets one by one",
        () => expand(data.expand, data)));
      if (open) {
        side.append(button("collapse group", "fold these assets back into their group",
          () => collapse(data.expand)));
      }
      const bySeverity = Object.entries(data.by_severity || {});
      side.append(element("div", "cloudg-graph-section", bySeverity.length
        ? "Worst open finding of its assets" : "No open findings on its assets"));
      const table = element("table", "cloudg-graph-attributes");
      for (const [severity, n] of bySeverity) {
        table.append(row(severity, `${n} assets`));
      }
      side.append(table);
      if ((data.worst_assets || []).length) {
        side.append(element("div", "cloudg-graph-section", "Its worst"));
        const list = element("ul", "cloudg-graph-finding-list");
        for (const a of data.worst_assets) {
          const item = element("li",
            `cloudg-graph-finding severity-${String(a.severity).toLowerCase()}`);
          item.append(element("span", "cloudg-graph-severity", `${a.severity} · ${a.name}`),
            element("span", "cloudg-graph-finding-title", a.title || ""));
          list.append(item);
        }
        side.append(list);
      }
    } else {
      side.append(findingsList(data));
      if (data.group) {
        side.append(button("collapse group", "fold these assets back into their group",
          () => collapse(data.group)));
      }
    }
    side.append(element("div", "cloudg-graph-section", "Attributes"));
    const table = element("table", "cloudg-graph-attributes");
    for (const [name, value] of Object.entries(data.attributes || {})) {
      table.append(row(name, value));
    }
    side.append(table);
  };
  const setHeight = () => {
    body.style.height = model.get("height") || "460px";
  };
  const onText = () => {
    title.textContent = model.get("title") || "";
    summary.textContent = model.get("summary") || "";
    drawLegend(legend, model.get("legend"));
  };
  setHeight();
  onText();
  hint();

  const colours = themeColours(el); // (the page's once el is on the page: see restyle)
  const cy = cytoscape({
    container: canvas,
    elements: elements(model),
    layout: { name: "preset", fit: true, padding: 30 },
    style: stylesheet(colours),
    minZoom: 0.1,
    maxZoom: 4,
    boxSelectionEnabled: false,
  });
  el.cloudgGraph = cy; // lets a page (and the browser tests) reach the graph
  // The first view: the whole graph if its labels stay readable, else (a wide result) the
  // start of it at a readable zoom - the source and the first hops - to pan from; "fit"
  // shows the whole.
  const firstView = () => {
    cy.resize();
    cy.fit(undefined, 30);
    if (cy.zoom() < READABLE_ZOOM && cy.nodes().nonempty()) {
      const box = cy.nodes().boundingBox({ includeLabels: true });
      const zoom = Math.min(READABLE_ZOOM, (cy.height() - 20) / Math.max(box.h, 1));
      cy.zoom(Math.max(zoom, cy.minZoom()));
      cy.pan({ x: 30 - box.x1 * cy.zoom(),
               y: (cy.height() - (box.y1 + box.y2) * cy.zoom()) / 2 });
    }
  };
  const refit = () => {
    cy.resize();
    cy.fit(undefined, 30);
  };
  const near = (node) => {
    cy.edges(".near").removeClass("near");
    if (node) {
      node.connectedEdges().addClass("near");
    }
  };
  cy.on("tap", "node", (event) => {
    const node = event.target;
    show(node.data());
    near(node);
    model.set("selected", node.id());
    model.save_changes();
    if (node.data("kind") === "group" && node.data("expand")) {
      expand(node.data("expand"), node.data()); // a click on a group opens it
    }
  });
  cy.on("tap", (event) => {
    if (event.target === cy) {
      near(null);
      hint();
    }
  });
  fit.addEventListener("click", refit);
  // nodes and edges arrive together (Python holds them in one message); redraw once
  let pending = false;
  const onData = () => {
    if (pending) {
      return;
    }
    pending = true;
    queueMicrotask(() => {
      pending = false;
      const selected = model.get("selected");
      cy.elements().remove();
      cy.add(elements(model));
      const still = selected ? cy.getElementById(selected) : null;
      if (still && still.nonempty()) {
        still.select();
        show(still.data());
        near(still);
      } else {
        hint();
      }
      const members = opened ? cy.nodes().filter((n) => n.data("group") === opened
        || n.id() === opened || n.id() === `${opened}:more`) : null;
      const described = openedData;
      opened = null;
      openedData = null;
      if (members && members.nonempty()) {
        const drawnOnes = members.filter((n) => n.data("kind") === "asset").length;
        const note = `Drew ${drawnOnes} of the group's assets (worst findings first). Click `
          + "one for its findings; \u201cmore\u201d draws more of them.";
        if (described) {
          show(described, note);
        } else {
          side.replaceChildren(element("p", "cloudg-graph-hint", note));
        }
        cy.resize();
        cy.fit(members, 40);
        cy.zoom(Math.min(Math.max(cy.zoom(), READABLE_ZOOM), 1.2));
        cy.center(members);
      } else {
        firstView();
      }
    });
  };
  model.on("change:nodes", onData);
  model.on("change:edges", onData);
  model.on("change:title", onText);
  model.on("change:summary", onText);
  model.on("change:legend", onText);
  model.on("change:height", () => {
    setHeight();
    refit();
  });
  // A theme switch (JupyterLab's Settings > Theme, VS Code's) restyles the canvas in place.
  let shownOn = el.isConnected ? JSON.stringify(colours) : null;
  const restyle = () => {
    if (!el.isConnected) {
      return;
    }
    const now = themeColours(el);
    const key = JSON.stringify(now);
    if (key !== shownOn) {
      shownOn = key;
      cy.style(stylesheet(now));
    }
  };
  const themeWatch = new MutationObserver(() => requestAnimationFrame(restyle));
  themeWatch.observe(document.body, {
    attributes: true,
    attributeFilter: ["data-jp-theme-light", "data-jp-theme-name", "class"],
  });
  // cytoscape caches where its canvas is on the page and forgets it when an ancestor scrolls,
  // but it listens only to the ancestors it had when made (none: the widget is put on the
  // page after render), so a click after the notebook scrolled missed its node. Any scroll
  // on the page forgets it now.
  const renderer = cy.renderer();
  const scrolled = () => {
    if (renderer && typeof renderer.invalidateContainerClientCoordsCache === "function") {
      renderer.invalidateContainerClientCoordsCache();
    }
  };
  document.addEventListener("scroll", scrolled, { capture: true, passive: true });
  // The element may be laid out only after render: fit once it has a size.
  let fitted = false;
  const observer = new ResizeObserver(() => {
    if (canvas.clientWidth > 0 && canvas.clientHeight > 0) {
      restyle(); // the page's colours are known once the element is on the page
      cy.resize();
      if (!fitted) {
        fitted = true;
        firstView();
      }
    }
  });
  observer.observe(canvas);
  return () => {
    observer.disconnect();
    themeWatch.disconnect();
    document.removeEventListener("scroll", scrolled, { capture: true });
    model.off("change:nodes", onData);
    model.off("change:edges", onData);
    model.off("change:title", onText);
    model.off("change:summary", onText);
    model.off("change:legend", onText);
    cy.destroy();
  };
}

export default { render };
