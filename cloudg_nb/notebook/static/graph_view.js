// cloudg graph view: the anywidget front end of cloudg_nb.notebook.graph_view.GraphView.
// graph_view.py puts cytoscape.js (vendored beside this file) in front of this code as the
// `cytoscape` constant; the model holds `nodes` and `edges` (positions laid out in Python),
// `title`, `height`, and `selected` (the id of the node clicked last, sent back to Python).

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
        width: 34,
        height: 34,
        label: "data(label)",
        "text-valign": "bottom",
        "text-halign": "center",
        "text-margin-y": 4,
        "text-wrap": "wrap",
        "text-max-width": 140,
        "font-size": 10,
        color: colours.text,
      },
    },
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
        width: 1.4,
        "line-color": colours.line,
        "curve-style": "bezier",
        label: "data(label)",
        "font-size": 8,
        color: colours.dim,
        "text-rotation": "autorotate",
        "text-background-color": colours.background,
        "text-background-opacity": 0.85,
        "text-background-padding": 1,
      },
    },
    {
      selector: "edge.directed",
      style: { "target-arrow-shape": "triangle", "target-arrow-color": colours.line },
    },
    { selector: "edge.virtual", style: { "line-style": "dashed" } },
  ];
}

function elements(model) {
  const nodes = (model.get("nodes") || []).map((n) => ({
    group: "nodes",
    data: { ...n, id: String(n.id) },
    position: { x: n.x || 0, y: n.y || 0 },
    classes: [n.entry ? "entry" : "", n.sensitive ? "sensitive" : ""].join(" ").trim(),
  }));
  const edges = (model.get("edges") || []).map((e, i) => ({
    group: "edges",
    data: { ...e, id: `edge-${i}`, source: String(e.source), target: String(e.target) },
    classes: [e.directed === false ? "" : "directed", e.virtual ? "virtual" : ""]
      .join(" ").trim(),
  }));
  return [...nodes, ...edges];
}

function row(name, value) {
  const tr = document.createElement("tr");
  const th = document.createElement("th");
  const td = document.createElement("td");
  th.textContent = name;
  td.textContent = value === null || value === undefined ? "—"
    : typeof value === "object" ? JSON.stringify(value) : String(value);
  tr.append(th, td);
  return tr;
}

function render({ model, el }) {
  el.classList.add("cloudg-graph");
  const head = document.createElement("div");
  head.className = "cloudg-graph-head";
  const title = document.createElement("span");
  title.className = "cloudg-graph-title";
  const fit = document.createElement("button");
  fit.className = "cloudg-graph-fit";
  fit.textContent = "fit";
  fit.title = "zoom to show the whole graph";
  head.append(title, fit);
  const body = document.createElement("div");
  body.className = "cloudg-graph-body";
  const canvas = document.createElement("div");
  canvas.className = "cloudg-graph-canvas";
  const side = document.createElement("div");
  side.className = "cloudg-graph-side";
  body.append(canvas, side);
  el.append(head, body);

  const hint = () => {
    side.replaceChildren();
    const p = document.createElement("p");
    p.className = "cloudg-graph-hint";
    p.textContent = "Click a node to see its attributes. Drag to pan, scroll to zoom.";
    side.append(p);
  };
  const show = (data) => {
    side.replaceChildren();
    const h = document.createElement("div");
    h.className = "cloudg-graph-node-title";
    h.textContent = data.name || data.id;
    const table = document.createElement("table");
    table.className = "cloudg-graph-attributes";
    for (const [name, value] of Object.entries(data.attributes || {})) {
      table.append(row(name, value));
    }
    side.append(h, table);
  };
  const setHeight = () => {
    body.style.height = model.get("height") || "460px";
  };
  setHeight();
  title.textContent = model.get("title") || "";
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
  const refit = () => {
    cy.resize();
    cy.fit(undefined, 30);
  };
  cy.on("tap", "node", (event) => {
    const node = event.target;
    show(node.data());
    model.set("selected", node.id());
    model.save_changes();
  });
  cy.on("tap", (event) => {
    if (event.target === cy) {
      hint();
    }
  });
  fit.addEventListener("click", refit);
  const onData = () => {
    cy.elements().remove();
    cy.add(elements(model));
    hint();
    refit();
  };
  const onTitle = () => {
    title.textContent = model.get("title") || "";
  };
  model.on("change:nodes", onData);
  model.on("change:edges", onData);
  model.on("change:title", onTitle);
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
        cy.fit(undefined, 30);
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
    model.off("change:title", onTitle);
    cy.destroy();
  };
}

export default { render };
