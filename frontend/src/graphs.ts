// The graphs dashboard: a run's computation graph (its GraphDef, by name scope) or structure graph, as TS-VIS's
// /api/graph serves them for TensorBoard and TS-VIS logs alike. Groups start closed; a click opens or closes one and
// what is shown is laid out again (dagre, groups as clusters), so only open groups cost layout time. Drag or arrows
// pan, the wheel or +/- zoom, 0 fits; a search reveals a node (opening its groups); the side panel shows the selected
// node's op, attributes, shapes, inputs and outputs.

import dagre, { type EdgeLabel, type GraphLabel, type NodeLabel } from "@dagrejs/dagre";
import { chartTheme } from "./chart_theme";
import { formatCount, h, svg } from "./dom";
import { graphSvg, saveBlob, shapeText, svgToPng } from "./graph_export";
import {
  fetchGraph,
  GraphModel,
  graphRuns,
  type GraphKind,
  type Edge,
  type GraphNode,
  type Graphs,
  type Link,
} from "./graph_model";
import type { Dashboard } from "./media";
import { state, update } from "./state";

const KINDS: Record<GraphKind, string> = { c_graph: "Computation", s_graph: "Structure" };
const NODE_HEIGHT = 34;
// An open group's title bar: dagre leaves half the rank separation above a cluster's first row, more than this.
const TITLE_HEIGHT = 17;
const MIN_WIDTH = 56;
const MAX_WIDTH = 240;
const FONT = "12px system-ui, sans-serif";
const RESULTS_SHOWN = 30;
const PANEL_LINKS = 200;
const MAX_SCALE = 4;
const PAN_STEP = 60;
// The smallest scale that brings a node into view: labels are still legible.
const MIN_READABLE = 0.5;

interface Box {
  x: number;
  y: number;
  width: number;
  height: number;
}

let graphRunKinds = new Map<string, GraphKind[]>();
let loaded: { run: string; kind: GraphKind; graphs: Graphs } | null = null;
let model: GraphModel | null = null;
const expanded = new Set<string>();
let selected: string | null = null;
let boxes = new Map<string, Box>();
let size = { width: 0, height: 0 };
// The view: the graph point at the canvas's centre, and pixels per graph unit.
const view = { x: 0, y: 0, scale: 1 };
// Which load is the latest, so that an answer to an older one is dropped.
let loading = 0;

const runSelect = h("select", { id: "graph-run", "aria-label": "Run" });
const kindSelect = h("select", { id: "graph-kind", "aria-label": "Kind of graph" });
const modelSelect = h("select", { id: "graph-model", "aria-label": "Model" });
const modelLabel = h("label", { hidden: true }, "Model ", modelSelect);
const search = h("input", {
  type: "search",
  id: "graph-search",
  placeholder: "Find a node by name",
  "aria-label": "Find a node by name; Enter shows the first match",
  "aria-controls": "graph-results",
  spellcheck: "false",
  autocomplete: "off",
});
const results = h("ul", { class: "graph-results", id: "graph-results", "aria-label": "Matching nodes", hidden: true });
const fitButton = h("button", { type: "button", id: "graph-fit", title: "Fit the graph in view (0)" }, "Fit");
const collapseButton = h("button", { type: "button", id: "graph-collapse" }, "Close all groups");
// TensorBoard's export as PNG (here SVG too) and its "tensor shapes" option: each edge labelled with the shape of
// the tensor it carries.
const svgButton = h("button", { type: "button", id: "graph-export-svg" }, "SVG");
const pngButton = h("button", { type: "button", id: "graph-export-png" }, "PNG");
const shapesToggle = h("input", { type: "checkbox", id: "graph-shapes" });
const summary = h("span", { class: "count", id: "graph-summary", role: "status" });
const problem = h("span", { class: "error", role: "alert" });

const clusterLayer = svg("g", { class: "clusters" });
const edgeLayer = svg("g", { class: "edges" });
const nodeLayer = svg("g", { class: "nodes" });
const shapeLayer = svg("g", { class: "edge-shapes" });
const canvas = svg(
  "svg",
  {
    class: "graph-canvas",
    id: "graph-canvas",
    tabindex: 0,
    role: "group",
    "aria-label": "Graph: drag or arrow keys to pan, wheel or +/- to zoom, 0 to fit",
  },
  svg(
    "defs",
    {},
    svg(
      "marker",
      { id: "graph-arrow", viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto" },
      svg("path", { d: "M0,0 L10,5 L0,10 z", class: "arrow" }),
    ),
  ),
  clusterLayer,
  edgeLayer,
  nodeLayer,
  shapeLayer,
);
const panel = h("aside", { class: "graph-panel", id: "graph-panel", "aria-label": "Selected node" });

const element = h(
  "section",
  { class: "dashboard graphs", "aria-label": "Graphs" },
  h(
    "div",
    { class: "toolbar" },
    h("label", {}, "Run ", runSelect),
    h("label", {}, "Graph ", kindSelect),
    modelLabel,
    h("span", { class: "graph-find" }, search, results),
    fitButton,
    collapseButton,
    h("label", {}, shapesToggle, " Tensor shapes"),
    h("span", { class: "graph-export" }, "Export ", svgButton, pngButton),
    summary,
    problem,
  ),
  h("div", { class: "graph-body" }, canvas, panel),
);

const measure = document.createElement("canvas").getContext("2d");

function textWidth(text: string): number {
  if (!measure) return text.length * 7;
  measure.font = FONT;
  return measure.measureText(text).width;
}

/** `text`, cut with an ellipsis to fit `width` pixels. */
function fit(text: string, width: number): string {
  if (textWidth(text) <= width) return text;
  let end = text.length;
  while (end > 1 && textWidth(`${text.slice(0, end)}…`) > width) end--;
  return `${text.slice(0, end)}…`;
}

function isGroup(node: GraphNode): boolean {
  return node.children.length > 0;
}

function plural(count: number, one: string, many: string): string {
  return `${formatCount(count)} ${count === 1 ? one : many}`;
}

/** A box's second line: a group's size, an op's type. */
function caption(node: GraphNode): string {
  return isGroup(node) ? plural(node.leaves, "op", "ops") : node.op;
}

function boxWidth(node: GraphNode): number {
  const text = Math.max(textWidth(node.label), textWidth(caption(node)) * 0.85);
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, Math.ceil(text) + 20));
}

function layout(): void {
  if (!model) return;
  const shown = model.visible(expanded);
  const edges = model.edges(shown.boxes);
  const graph = new dagre.graphlib.Graph<GraphLabel, NodeLabel, EdgeLabel>({ compound: true });
  graph.setGraph({ rankdir: "TB", nodesep: 18, ranksep: 44, marginx: 24, marginy: 24 });
  graph.setDefaultEdgeLabel(() => ({}));
  for (const node of shown.open) graph.setNode(node.uid, { width: 0, height: 0 });
  for (const node of shown.boxes) graph.setNode(node.uid, { width: boxWidth(node), height: NODE_HEIGHT });
  for (const node of [...shown.open, ...shown.boxes]) if (node.parent) graph.setParent(node.uid, node.parent.uid);
  for (const edge of edges) graph.setEdge(edge.source, edge.target, { weight: edge.control ? 1 : 2 });
  dagre.layout(graph);

  boxes = new Map();
  for (const node of [...shown.open, ...shown.boxes]) {
    const found = graph.node(node.uid);
    const { width, height } = found;
    boxes.set(node.uid, { x: (found.x ?? 0) - width / 2, y: (found.y ?? 0) - height / 2, width, height });
  }
  size = { width: graph.graph().width ?? 0, height: graph.graph().height ?? 0 };
  clusterLayer.replaceChildren(...shown.open.map((node) => clusterElement(node, boxes.get(node.uid)!)));
  edgeLayer.replaceChildren(
    ...edges.map((edge) => edgeElement(edge, graph.edge(edge.source, edge.target).points ?? [])),
  );
  nodeLayer.replaceChildren(...shown.boxes.map((node) => nodeElement(node, boxes.get(node.uid)!)));
  shapeLayer.replaceChildren(
    ...(shapesToggle.checked
      ? edges.flatMap((edge) => edgeShape(edge, graph.edge(edge.source, edge.target).points ?? []))
      : []),
  );
  mark();
  showSummary(shown.boxes.length);
}

/** An open group: its frame, and a title bar that closes it. */
function clusterElement(node: GraphNode, box: Box): SVGGElement {
  return svg(
    "g",
    { class: "cluster", "data-uid": node.uid },
    svg("rect", { x: box.x, y: box.y, width: box.width, height: box.height, rx: 6 }),
    svg(
      "g",
      {
        class: "cluster-title",
        tabindex: 0,
        role: "button",
        "aria-expanded": "true",
        "aria-label": `Group ${node.uid}, open: close it`,
        "data-uid": node.uid,
      },
      svg("rect", { x: box.x, y: box.y, width: box.width, height: TITLE_HEIGHT, rx: 6 }),
      svg("text", { x: box.x + 6, y: box.y + 12 }, fit(`− ${node.label}`, box.width - 10)),
      svg("title", {}, node.uid),
    ),
  );
}

function edgeElement(edge: Edge, points: { x: number; y: number }[]): SVGPathElement {
  return svg(
    "path",
    {
      class: edge.control ? "edge control" : "edge",
      d: points.map((point, index) => `${index ? "L" : "M"}${point.x},${point.y}`).join(""),
      "marker-end": "url(#graph-arrow)",
      "data-source": edge.source,
      "data-target": edge.target,
    },
    svg("title", {}, `${edge.source} → ${edge.target}${edge.info ? ` ${edge.info}` : ""}`),
  );
}

/** The shape of the tensor an edge carries: its source op's `_output_shapes` (the GraphDef's), else the edge's. */
function edgeShape(edge: Edge, points: { x: number; y: number }[]): SVGTextElement[] {
  const shapes = model?.nodes.get(edge.source)?.attrs._output_shapes;
  const text = Array.isArray(shapes) && shapes.length ? shapes.map(shapeText).join(", ") : shapeText(edge.info);
  const middle = points[Math.floor(points.length / 2)];
  if (!text || edge.control || !middle) return [];
  return [
    svg(
      "text",
      { class: "edge-shape", x: middle.x + 4, y: middle.y, "data-source": edge.source, "data-target": edge.target },
      text,
    ),
  ];
}

/** The file name of an export: the run and kind of graph. */
function exportName(extension: string): string {
  const shown = chosen();
  return `${(shown ? `${shown.run}-${shown.kind}` : "graph").replace(/[^\w.-]+/g, "_")}.${extension}`;
}

function exported(): string {
  return graphSvg(canvas, size.width, size.height, chartTheme().background);
}

svgButton.addEventListener("click", () =>
  saveBlob(exportName("svg"), new Blob([exported()], { type: "image/svg+xml" })),
);
pngButton.addEventListener("click", () => {
  void svgToPng(exported(), size.width, size.height).then(
    (blob) => saveBlob(exportName("png"), blob),
    (error: unknown) => (problem.textContent = String(error)),
  );
});
shapesToggle.addEventListener("change", () => layout());

/** An op, or a closed group that opens on a click. */
function nodeElement(node: GraphNode, box: Box): SVGGElement {
  const group = isGroup(node);
  const category = model?.categoryOf(node) ?? -1;
  return svg(
    "g",
    {
      class: `node ${group ? "group" : "op"}${category >= 0 ? ` category-${category}` : ""}`,
      transform: `translate(${box.x},${box.y})`,
      tabindex: 0,
      role: "button",
      "aria-expanded": group ? "false" : null,
      "aria-label": group ? `Group ${node.uid}, ${caption(node)}: open it` : `${node.uid}: ${node.op}`,
      "data-uid": node.uid,
    },
    svg("rect", { width: box.width, height: box.height, rx: group ? 8 : 4 }),
    svg("text", { x: box.width / 2, y: 14, class: "label" }, fit(node.label, box.width - 8)),
    svg("text", { x: box.width / 2, y: 27, class: "caption" }, fit(caption(node), box.width - 8)),
    svg("title", {}, node.uid),
  );
}

function showSummary(shown: number): void {
  if (!model) return;
  const groups = model.nodes.size - model.leafCount;
  summary.textContent =
    `${formatCount(model.nodes.size)} nodes (${formatCount(model.leafCount)} ops, ${formatCount(groups)} groups), ` +
    `${formatCount(shown)} shown`;
}

/** Marks the selected node, its edges, and the nodes the search finds. */
function mark(): void {
  const found = new Set(model?.search(search.value).map((node) => node.uid) ?? []);
  for (const item of nodeLayer.children) {
    const uid = (item as SVGGElement).dataset.uid!;
    item.classList.toggle("selected", uid === selected);
    item.classList.toggle("match", found.has(uid));
  }
  for (const item of edgeLayer.children) {
    const edge = (item as SVGPathElement).dataset;
    item.classList.toggle("near", edge.source === selected || edge.target === selected);
  }
  for (const item of clusterLayer.children) {
    item.classList.toggle("selected", (item as SVGGElement).dataset.uid === selected);
  }
}

function applyView(): void {
  const width = canvas.clientWidth || 800;
  const height = canvas.clientHeight || 600;
  const shownWidth = width / view.scale;
  const shownHeight = height / view.scale;
  canvas.setAttribute("viewBox", `${view.x - shownWidth / 2} ${view.y - shownHeight / 2} ${shownWidth} ${shownHeight}`);
  canvas.dataset.scale = view.scale.toFixed(3);
}

/** Shows the whole graph; with `legible`, no smaller than legible, its top in view. */
function fitView(legible = false): void {
  const width = canvas.clientWidth || 800;
  const height = canvas.clientHeight || 600;
  view.scale = Math.min(1.5, width / Math.max(1, size.width), height / Math.max(1, size.height));
  if (legible) view.scale = Math.max(view.scale, MIN_READABLE);
  view.x = size.width / 2;
  view.y = Math.min(size.height / 2, height / 2 / view.scale);
  applyView();
}

function zoom(factor: number, around?: { x: number; y: number }): void {
  const width = canvas.clientWidth || 800;
  const height = canvas.clientHeight || 600;
  const scale = Math.min(MAX_SCALE, Math.max(0.02, view.scale * factor));
  // Keep the graph point under `around` (canvas pixels) where it is.
  const pixel = around ?? { x: width / 2, y: height / 2 };
  const pointX = view.x + (pixel.x - width / 2) / view.scale;
  const pointY = view.y + (pixel.y - height / 2) / view.scale;
  view.scale = scale;
  view.x = pointX - (pixel.x - width / 2) / scale;
  view.y = pointY - (pixel.y - height / 2) / scale;
  applyView();
}

/** Brings a node into view: all of it when it fits at a readable scale, else its top centred. */
function centre(uid: string): void {
  const box = boxes.get(uid);
  if (!box) return;
  const width = canvas.clientWidth || 800;
  const height = canvas.clientHeight || 600;
  const fits = Math.min(width / box.width, height / box.height) * 0.9;
  view.scale = Math.max(MIN_READABLE, Math.min(Math.max(view.scale, 0.8), fits));
  view.x = box.x + box.width / 2;
  view.y = Math.min(box.y + box.height / 2, box.y - 20 + height / 2 / view.scale);
  applyView();
}

function select(uid: string | null): void {
  selected = uid;
  mark();
  showPanel();
}

/** Opens or closes a group, lays out again and keeps the group in view. */
function toggle(node: GraphNode): void {
  if (expanded.has(node.uid)) expanded.delete(node.uid);
  else expanded.add(node.uid);
  selected = node.uid;
  layout();
  showPanel();
  centre(node.uid);
  focus(node.uid);
}

/** Focuses the drawn node or open group's title (the elements are new after each layout). */
function focus(uid: string): void {
  const found = [...nodeLayer.children, ...clusterLayer.querySelectorAll(".cluster-title")].find(
    (item) => (item as SVGGElement).dataset.uid === uid,
  );
  (found as SVGGElement | undefined)?.focus({ preventScroll: true });
}

/** Opens the groups around a node, selects it and brings it into view. */
function reveal(node: GraphNode): void {
  if (!model) return;
  results.hidden = true;
  const closed = model.ancestors(node).filter((group) => !expanded.has(group.uid));
  for (const group of closed) expanded.add(group.uid);
  if (closed.length) layout();
  select(node.uid);
  centre(node.uid);
  focus(node.uid);
}

function activate(target: Element): void {
  const item = target.closest<SVGGElement>("[data-uid]");
  const node = item && model?.nodes.get(item.dataset.uid!);
  if (!item || !node) return;
  if (item.classList.contains("cluster-title") || (isGroup(node) && !expanded.has(node.uid))) toggle(node);
  else select(node.uid);
}

function attributeText(value: unknown): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function linkList(title: string, id: string, links: Link[]): HTMLElement[] {
  if (!links.length) return [];
  const shown = links.slice(0, PANEL_LINKS);
  return [
    h("h4", {}, `${title} (${formatCount(links.length)})`),
    h(
      "ul",
      { class: "links", id },
      ...shown.map((link) =>
        h(
          "li",
          { "data-uid": link.node.uid },
          h("button", { type: "button", class: "link", onclick: () => reveal(link.node) }, link.node.uid),
          link.info ? h("span", { class: "shape" }, link.info) : null,
          link.control ? h("span", { class: "control" }, "control") : null,
        ),
      ),
      links.length > shown.length ? h("li", {}, `… and ${formatCount(links.length - shown.length)} more`) : null,
    ),
  ];
}

function showPanel(): void {
  const node = selected ? model?.nodes.get(selected) : undefined;
  if (!node) {
    panel.replaceChildren(h("p", { class: "empty" }, "Select a node to see its attributes, inputs and outputs."));
    return;
  }
  const attrs = Object.entries(node.attrs);
  const shapes = node.attrs._output_shapes;
  panel.replaceChildren(
    h("h3", { class: "node-name" }, node.uid),
    h(
      "dl",
      {},
      ...(node.op ? [h("dt", {}, "Op"), h("dd", { class: "node-op" }, node.op)] : []),
      ...(isGroup(node)
        ? [
            h("dt", {}, "Group"),
            h(
              "dd",
              { class: "node-group" },
              `${plural(node.children.length, "child", "children")}, ${plural(node.leaves, "op", "ops")}`,
            ),
          ]
        : []),
    ),
    ...(Array.isArray(shapes) && shapes.length
      ? [
          h("h4", {}, "Output shapes"),
          h("ul", { class: "shapes", id: "graph-output-shapes" }, ...shapes.map((shape) => h("li", {}, String(shape)))),
        ]
      : []),
    ...(attrs.length
      ? [
          h("h4", {}, "Attributes"),
          h(
            "table",
            { class: "attrs", id: "graph-attrs" },
            h(
              "tbody",
              {},
              ...attrs.map(([key, value]) =>
                h("tr", { "data-attr": key }, h("th", {}, key), h("td", {}, attributeText(value))),
              ),
            ),
          ),
        ]
      : []),
    ...linkList("Inputs", "graph-inputs", node.inputs),
    ...linkList("Outputs", "graph-outputs", node.outputs),
  );
}

function showResults(): void {
  const found = model?.search(search.value) ?? [];
  results.hidden = !search.value.trim();
  results.replaceChildren(
    ...found
      .slice(0, RESULTS_SHOWN)
      .map((node) =>
        h(
          "li",
          {},
          h("button", { type: "button", class: "result", "data-uid": node.uid, onclick: () => reveal(node) }, node.uid),
        ),
      ),
    h(
      "li",
      { class: "count" },
      found.length > RESULTS_SHOWN
        ? `${formatCount(found.length)} matches, the first ${RESULTS_SHOWN} shown`
        : plural(found.length, "match", "matches"),
    ),
  );
  mark();
}

function useModel(index: number): void {
  if (!loaded) return;
  model = new GraphModel(loaded.graphs.models[index] ?? [], loaded.graphs.categories);
  expanded.clear();
  selected = null;
  layout();
  fitView(true);
  showPanel();
  showResults();
}

async function load(run: string, kind: GraphKind): Promise<void> {
  const ticket = ++loading;
  problem.textContent = "";
  summary.textContent = "loading…";
  let graphs: Graphs;
  try {
    graphs = await fetchGraph(run, kind);
  } catch (error) {
    if (ticket === loading) problem.textContent = String(error);
    return;
  }
  if (ticket !== loading) return;
  loaded = { run, kind, graphs };
  modelSelect.replaceChildren(
    ...graphs.models.map((_, index) => h("option", { value: index }, `${index + 1} of ${graphs.models.length}`)),
  );
  modelLabel.hidden = graphs.models.length < 2;
  useModel(0);
}

/** The run and kind to show: the state's when the logdir has them, else the first run's first kind. */
function chosen(): { run: string; kind: GraphKind } | null {
  const run = graphRunKinds.has(state.graphRun) ? state.graphRun : [...graphRunKinds.keys()][0];
  if (run === undefined) return null;
  const kinds = graphRunKinds.get(run)!;
  return { run, kind: kinds.includes(state.graphKind) ? state.graphKind : kinds[0]! };
}

async function show(): Promise<void> {
  const choice = chosen();
  runSelect.replaceChildren(...[...graphRunKinds.keys()].map((run) => h("option", { value: run }, run)));
  if (!choice) {
    loaded = model = null;
    clusterLayer.replaceChildren();
    edgeLayer.replaceChildren();
    nodeLayer.replaceChildren();
    summary.textContent = "No graphs in this logdir.";
    return;
  }
  runSelect.value = choice.run;
  const kinds = graphRunKinds.get(choice.run)!;
  kindSelect.replaceChildren(...kinds.map((kind) => h("option", { value: kind }, KINDS[kind])));
  kindSelect.value = choice.kind;
  if (loaded?.run !== choice.run || loaded.kind !== choice.kind) await load(choice.run, choice.kind);
}

runSelect.addEventListener("change", () => update({ graphRun: runSelect.value }));
kindSelect.addEventListener("change", () => update({ graphKind: kindSelect.value as GraphKind }));
modelSelect.addEventListener("change", () => useModel(Number(modelSelect.value)));
search.addEventListener("input", showResults);
search.addEventListener("focus", () => (results.hidden = !search.value.trim()));
search.addEventListener("keydown", (event) => {
  if (event.key === "Enter") {
    const first = model?.search(search.value)[0];
    if (first) reveal(first);
  } else if (event.key === "ArrowDown") {
    results.querySelector("button")?.focus();
    event.preventDefault();
  }
});
results.addEventListener("keydown", (event) => {
  const buttons = [...results.querySelectorAll("button")];
  const index = buttons.indexOf(document.activeElement as HTMLButtonElement);
  const step = event.key === "ArrowDown" ? 1 : event.key === "ArrowUp" ? -1 : 0;
  if (!step || index < 0) return;
  (buttons[index + step] ?? search).focus();
  event.preventDefault();
});
fitButton.addEventListener("click", () => fitView());
collapseButton.addEventListener("click", () => {
  expanded.clear();
  layout();
  fitView();
});

// A press that moves the pointer pans; one that does not is a click.
let drag: { x: number; y: number; viewX: number; viewY: number; moved: boolean } | null = null;
canvas.addEventListener("pointerdown", (event) => {
  if (event.button === 0) drag = { x: event.clientX, y: event.clientY, viewX: view.x, viewY: view.y, moved: false };
});
canvas.addEventListener("pointermove", (event) => {
  if (!drag) return;
  const dx = event.clientX - drag.x;
  const dy = event.clientY - drag.y;
  if (!drag.moved && Math.hypot(dx, dy) < 4) return;
  if (!drag.moved) canvas.setPointerCapture(event.pointerId);
  drag.moved = true;
  view.x = drag.viewX - dx / view.scale;
  view.y = drag.viewY - dy / view.scale;
  applyView();
});
canvas.addEventListener("pointerup", () => {
  // The click that ends a drag comes after this: let it see the drag, then forget it.
  setTimeout(() => (drag = null), 0);
});
canvas.addEventListener("click", (event) => {
  if (drag?.moved) return;
  activate(event.target as Element);
});
canvas.addEventListener(
  "wheel",
  (event) => {
    event.preventDefault();
    const rect = canvas.getBoundingClientRect();
    zoom(Math.exp(-event.deltaY / 500), { x: event.clientX - rect.left, y: event.clientY - rect.top });
  },
  { passive: false },
);
canvas.addEventListener("keydown", (event) => {
  const target = event.target as Element;
  const pans: Record<string, [number, number]> = {
    ArrowLeft: [-1, 0],
    ArrowRight: [1, 0],
    ArrowUp: [0, -1],
    ArrowDown: [0, 1],
  };
  if ((event.key === "Enter" || event.key === " ") && target !== canvas) activate(target);
  else if (event.key in pans) {
    const [dx, dy] = pans[event.key]!;
    view.x += (dx * PAN_STEP) / view.scale;
    view.y += (dy * PAN_STEP) / view.scale;
    applyView();
  } else if (event.key === "+" || event.key === "=") zoom(1.25);
  else if (event.key === "-") zoom(0.8);
  else if (event.key === "0") fitView();
  else return;
  event.preventDefault();
});
new ResizeObserver(() => applyView()).observe(canvas);

export const graphs: Dashboard = {
  ownRuns: true,
  id: "graphs",
  title: "Graphs",
  plugin: "graphs",
  element,
  async refresh() {
    try {
      graphRunKinds = await graphRuns();
    } catch (error) {
      problem.textContent = String(error);
      return;
    }
    await show();
  },
  onState(changed) {
    if (changed.has("graphRun") || changed.has("graphKind")) void show();
  },
  // A logdir of TS-VIS structure graph files alone has no GraphDef for the TensorBoard listing to see.
  async available() {
    try {
      graphRunKinds = await graphRuns();
    } catch {
      return false;
    }
    return graphRunKinds.size > 0;
  },
};
