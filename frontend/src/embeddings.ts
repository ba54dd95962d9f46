// The embeddings dashboard: a run's embedding (TS-VIS projector records or TensorBoard projector files, as
// /api/projector* serves both) projected by the server with PCA, t-SNE or UMAP on every point, drawn with WebGL as a
// 2-D or 3-D scatter coloured by label. Drag turns a 3-D cloud; the pointer or the arrow keys pick a point, whose
// label shows and whose sample (image, audio or text) loads on click or Enter.

import { tsvisCategory, tsvisData } from "./api";
import { h } from "./dom";
import { colourBy, loadMetadata, search, type Metadata } from "./embedding_metadata";
import type { Dashboard } from "./media";
import { PointCloud } from "./point_cloud";

interface Meta {
  shape: number[];
  sample: boolean;
  sample_type?: string;
}
type Point = number[];

/** The canvas is square, as large as the page leaves room for beside the sample panel and below the toolbar. */
const MIN_SIZE = 320;
const SIDE_PANEL = 220;
const GAP = 24;
const BOTTOM_GAP = 16;
let size = MIN_SIZE;
const RADIUS = 3;
const PICK_PIXELS = 8;
// The farthest point's distance from the centre, in clip space.
const MARGIN = 0.95;
const OFF_SCREEN = 10;

const runSelect = h("select", { id: "embedding-run", "aria-label": "Run" });
const tagSelect = h("select", { id: "embedding-tag", "aria-label": "Embedding" });
const stepSelect = h("select", { id: "embedding-step", "aria-label": "Step" });
const methodSelect = h(
  "select",
  { id: "embedding-method", "aria-label": "Projection" },
  h("option", { value: "pca" }, "PCA"),
  h("option", { value: "tsne" }, "t-SNE"),
  h("option", { value: "umap" }, "UMAP"),
);
const dimsSelect = h(
  "select",
  { id: "embedding-dims", "aria-label": "Dimensions" },
  h("option", { value: "2" }, "2-D"),
  h("option", { value: "3" }, "3-D"),
);
const status = h("p", { class: "readout", id: "embedding-status", role: "status" });
const canvas = h("canvas", {
  class: "embedding-plot",
  width: size,
  height: size,
  tabindex: 0,
  "aria-label": "Projected points: arrows pick a point, Enter shows its sample, drag turns a 3-D cloud",
});
// Colour, label and search by a metadata column (TensorBoard's projector's "Color by", "Label by" and search).
const colourSelect = h("select", { id: "embedding-colour", "aria-label": "Colour by" });
const labelSelect = h("select", { id: "embedding-label", "aria-label": "Label by" });
const searchInput = h("input", {
  type: "search",
  id: "embedding-search",
  placeholder: "Search",
  "aria-label": "Search the points",
  spellcheck: "false",
});
const searchColumn = h("select", { id: "embedding-search-column", "aria-label": "Search in column" });
const searchRegex = h("input", { type: "checkbox", id: "embedding-search-regex" });
const matchCount = h("span", { class: "count", id: "embedding-matches", role: "status" });
const legend = h("div", { id: "embedding-legend" });
let metadata: Metadata = { columns: ["label"], rows: [] };
const picked = h("p", { class: "readout", id: "embedding-picked", role: "status" });
const preview = h("div", { class: "embedding-sample", id: "embedding-sample" });

const element = h(
  "section",
  { class: "dashboard embeddings", "aria-label": "Embeddings" },
  h(
    "div",
    { class: "toolbar" },
    h("label", {}, "Run ", runSelect),
    h("label", {}, "Embedding ", tagSelect),
    h("label", {}, "Step ", stepSelect),
    h("label", {}, "Method ", methodSelect),
    h("label", {}, "", dimsSelect),
  ),
  h(
    "div",
    { class: "toolbar" },
    h("label", {}, "Colour by ", colourSelect),
    h("label", {}, "Label by ", labelSelect),
    h("span", { class: "field" }, searchInput, " in ", searchColumn),
    h("label", {}, searchRegex, " Regex"),
    matchCount,
  ),
  status,
  h("div", { class: "embedding-view" }, canvas, h("div", { class: "embedding-side" }, picked, legend, preview)),
);

let tagsByRun = new Map<string, string[]>();
let points: Point[] = [];
let labels: (string | number)[] = [];
let meta: Meta | null = null;
let chosen = -1;
let yaw = 0.6;
let pitch = 0.4;
// Points scaled into the unit sphere, as the GPU has them (x, y, z per point; off screen when not finite).
let unit: Float32Array = new Float32Array();
let cloud: PointCloud | null = null;
let request = 0;

async function embeddingRuns(): Promise<Map<string, string[]>> {
  const category = await tsvisCategory<Record<string, { embedding?: string[] }>>();
  const found = new Map<string, string[]>();
  for (const [run, components] of Object.entries(category)) {
    if (components.embedding?.length) found.set(run, components.embedding);
  }
  return found;
}

function fill(select: HTMLSelectElement, values: string[]): void {
  const keep = select.value;
  select.replaceChildren(...values.map((value) => h("option", { value }, value)));
  select.value = values.includes(keep) ? keep : (values[0] ?? "");
}

async function choose(): Promise<void> {
  fill(runSelect, [...tagsByRun.keys()].sort());
  fill(tagSelect, tagsByRun.get(runSelect.value) ?? []);
  const run = runSelect.value;
  const tag = tagSelect.value;
  if (!run || !tag) {
    status.textContent = "No embeddings in this logdir.";
    return;
  }
  // What was drawn or asked for before is stale from here on.
  const mine = ++request;
  element.dataset.state = "computing";
  const found = await tsvisData<Record<string, number[] | unknown>>("projector", { run, tag });
  if (mine !== request) return;
  meta = found as unknown as Meta;
  fill(stepSelect, ((found[tag] as number[]) ?? []).map(String));
  stepSelect.value = stepSelect.options[stepSelect.options.length - 1]?.value ?? "";
  await project();
}

async function project(): Promise<void> {
  const mine = ++request;
  const params = {
    run: runSelect.value,
    tag: tagSelect.value,
    step: stepSelect.value,
    method: methodSelect.value,
    dims: dimsSelect.value,
  };
  status.textContent = `computing ${methodSelect.selectedOptions[0]?.textContent ?? ""} of ${meta?.shape[0] ?? "?"} points…`;
  element.dataset.state = "computing";
  try {
    const found = await tsvisData<Record<string, [Point[], (string | number)[]]>>("projector_data", params);
    if (mine !== request) return;
    [points, labels] = found[params.step] ?? [[], []];
  } catch (error) {
    if (mine !== request) return;
    status.textContent = String(error);
    element.dataset.state = "error";
    return;
  }
  chosen = -1;
  picked.textContent = "";
  preview.replaceChildren();
  try {
    cloud ??= new PointCloud(canvas);
  } catch (error) {
    status.textContent = String(error);
    element.dataset.state = "error";
    return;
  }
  unit = toUnit();
  metadata = await loadMetadata(params.run, params.tag, params.step, labels);
  if (mine !== request) return;
  for (const select of [colourSelect, labelSelect, searchColumn]) fill(select, metadata.columns);
  recolour();
  element.dataset.state = "drawn";
  canvas.dataset.points = String(points.length);
  canvas.dataset.dims = params.dims;
  canvas.dataset.shown = `${params.run}/${params.tag}@${params.step}`;
  const distinct = new Set(labels.map(String)).size;
  status.textContent = `${points.length} points, ${params.dims}-D ${params.method}, ${distinct} labels`;
  draw();
}

/** Colours the points by the chosen column, the search's matches highlighted (the others grey), and says how many
 * matched. */
function recolour(): void {
  const column = Math.max(0, metadata.columns.indexOf(colourSelect.value));
  const matches = search(
    metadata,
    Math.max(0, metadata.columns.indexOf(searchColumn.value)),
    searchInput.value,
    searchRegex.checked,
  );
  const coloured = colourBy(metadata, column, matches);
  legend.replaceChildren(coloured.legend);
  matchCount.textContent = matches ? `${matches.size} of ${metadata.rows.length} match` : "";
  matchCount.dataset.matches = matches ? String(matches.size) : "";
  if (!cloud) return;
  cloud.setPoints(unit, coloured.colours);
  draw();
}

/** Point `index`'s label: its cell in the "Label by" column. */
function labelOf(index: number): string {
  const column = metadata.columns.indexOf(labelSelect.value);
  return column >= 0 ? (metadata.rows[index]?.[column] ?? "") : String(labels[index]);
}

/** The points scaled so the farthest lies on the unit sphere's margin: turning the cloud never leaves the canvas. */
function toUnit(): Float32Array {
  let farthest = 1e-12;
  for (const point of points) {
    const norm = Math.hypot(point[0] ?? 0, point[1] ?? 0, point[2] ?? 0);
    if (Number.isFinite(norm)) farthest = Math.max(farthest, norm);
  }
  const scaled = new Float32Array(points.length * 3);
  points.forEach((point, index) => {
    const xyz = [point[0] ?? 0, point[1] ?? 0, point[2] ?? 0];
    const finite = xyz.every(Number.isFinite);
    scaled.set(
      xyz.map((value) => (finite ? (value / farthest) * MARGIN : OFF_SCREEN)),
      index * 3,
    );
  });
  return scaled;
}

/** Yaw and pitch of the view: a 2-D projection is seen flat. */
function angles(): [number, number] {
  return (points[0]?.length ?? 0) < 3 ? [0, 0] : [yaw, pitch];
}

/** Where point `index` is on the canvas, in CSS pixels, as the GPU draws it. */
function onScreen(index: number): [number, number] {
  const [x = 0, y = 0, z = 0] = unit.subarray(index * 3, index * 3 + 3);
  const [turn, tilt] = angles();
  const turnedX = x * Math.cos(turn) + z * Math.sin(turn);
  const turnedZ = -x * Math.sin(turn) + z * Math.cos(turn);
  const turnedY = y * Math.cos(tilt) - turnedZ * Math.sin(tilt);
  return [((turnedX + 1) / 2) * size, ((1 - turnedY) / 2) * size];
}

/** Sizes the canvas to the room the page has for it (a new size clears it: the caller draws). */
function fit(): void {
  const view = canvas.parentElement;
  if (!view || view.clientWidth === 0) return;
  const wide = view.clientWidth - SIDE_PANEL - GAP;
  const high = window.innerHeight - canvas.getBoundingClientRect().top - BOTTOM_GAP;
  const next = Math.max(MIN_SIZE, Math.floor(Math.min(wide, high)));
  if (next === size) return;
  size = canvas.width = canvas.height = next;
}

window.addEventListener("resize", () => {
  if (canvas.isConnected) draw();
});

function draw(): void {
  fit();
  canvas.dataset.yaw = yaw.toFixed(3);
  cloud?.draw(...angles(), RADIUS * 2, chosen);
}

function pick(index: number): void {
  if (index < 0 || index >= points.length) return;
  chosen = index;
  picked.dataset.index = String(index);
  picked.dataset.label = labelOf(index);
  picked.textContent = `point ${index}: ${labelSelect.value || "label"} ${labelOf(index)}`;
  draw();
}

async function showSample(): Promise<void> {
  if (chosen < 0 || !meta?.sample) return;
  const index = chosen;
  const uri = await tsvisData<string>("projector_sample", {
    run: runSelect.value,
    tag: tagSelect.value,
    step: stepSelect.value,
    index: String(index),
  });
  if (index !== chosen) return;
  const kind = uri.slice(5, uri.indexOf("/"));
  const shown =
    kind === "image"
      ? h("img", { src: uri, alt: `sample ${index}` })
      : kind === "audio"
        ? h("audio", { src: uri, controls: true })
        : h("pre", {}, decodeText(uri));
  preview.replaceChildren(shown);
}

function decodeText(uri: string): string {
  const comma = uri.indexOf(",");
  const body = uri.slice(comma + 1);
  return uri.slice(0, comma).endsWith(";base64") ? atob(body) : decodeURIComponent(body);
}

function nearest(x: number, y: number): number {
  let best = -1;
  let distance = PICK_PIXELS ** 2;
  for (let index = 0; index < points.length; index++) {
    const [px, py] = onScreen(index);
    const d = (px - x) ** 2 + (py - y) ** 2;
    if (d < distance) [best, distance] = [index, d];
  }
  return best;
}

let drag: { x: number; y: number; moved: boolean } | null = null;
canvas.addEventListener("pointerdown", (event) => (drag = { x: event.clientX, y: event.clientY, moved: false }));
canvas.addEventListener("pointermove", (event) => {
  const box = canvas.getBoundingClientRect();
  if (drag && dimsSelect.value === "3" && event.buttons) {
    yaw += (event.clientX - drag.x) / 150;
    pitch += (event.clientY - drag.y) / 150;
    drag = { x: event.clientX, y: event.clientY, moved: true };
    draw();
    return;
  }
  const index = nearest(event.clientX - box.left, event.clientY - box.top);
  if (index >= 0 && index !== chosen) pick(index);
});
canvas.addEventListener("pointerup", () => {
  if (drag && !drag.moved) void showSample();
  drag = null;
});
canvas.addEventListener("keydown", (event) => {
  const steps: Record<string, number> = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 };
  if (event.key in steps) pick(Math.min(points.length - 1, Math.max(0, chosen + steps[event.key]!)));
  else if (event.key === "Enter") void showSample();
  else return;
  event.preventDefault();
});
runSelect.addEventListener("change", () => void choose());
tagSelect.addEventListener("change", () => void choose());
for (const select of [stepSelect, methodSelect, dimsSelect]) select.addEventListener("change", () => void project());
// The colour of points left out of a search follows the theme.
window.addEventListener("trainboard:theme", () => recolour());
for (const control of [colourSelect, searchColumn, searchRegex]) control.addEventListener("change", recolour);
searchInput.addEventListener("input", recolour);
labelSelect.addEventListener("change", () => pick(chosen));

export const embeddings: Dashboard = {
  ownRuns: true,
  id: "embeddings",
  title: "Embeddings",
  plugin: "projector",
  element,
  async refresh() {
    try {
      tagsByRun = await embeddingRuns();
      await choose();
    } catch (error) {
      status.textContent = String(error);
    }
  },
  onState() {},
  // TS-VIS's projector records are listed by its API only.
  async available() {
    try {
      tagsByRun = await embeddingRuns();
    } catch {
      return false;
    }
    return tagsByRun.size > 0;
  },
};
