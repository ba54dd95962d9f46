// The exceptions dashboard (TS-VIS's tensor exception views, over /api/exception*): for a run's exception tensor,
// its box plot over steps (whiskers at Q1 - 1.5 IQR and Q3 + 1.5 IQR, clipped to the extremes), then for one step the
// tensor as a heat map (tiled to 2-D as TS-VIS does) with its outliers (values beyond the whiskers, NaN and Inf)
// outlined, and its 100-bin histogram.

import uPlot from "uplot";
import { tsvisCategory, tsvisData } from "./api";
import { chartTheme, themedAxis } from "./chart_theme";
import { formatCount, formatNumber, h } from "./dom";
import { formatTick, integerTicks, niceTicks } from "./nice_ticks";
import type { Dashboard } from "./media";
import { state, update } from "./state";

/** Per step: [[up, q3, median, q1, down], [p0, p5, p10, p90, p95, p100]]. */
type Box = [[number, number, number, number, number], number[]];
type Matrix = (number | string)[][];
const HEAT_CELL_MAX = 24;
const HEAT_WIDTH = 720;
const HIST_HEIGHT = 180;
const HIST_FONT = "11px system-ui, sans-serif";
// Steps are whole numbers: the x axis ticks at these spacings only.
const STEP_INCREMENTS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1e3, 2e3, 5e3, 1e4, 2e4, 5e4, 1e5, 2e5, 5e5, 1e6];

const runSelect = h("select", { id: "exception-run", "aria-label": "Run" });
const tagSelect = h("select", { id: "exception-tag", "aria-label": "Exception tensor" });
const stepInput = h("input", { type: "range", id: "exception-step", min: 0, max: 0, value: 0, "aria-label": "Step" });
const stepText = h("output", { id: "exception-step-value", for: "exception-step" });
const problem = h("p", { class: "error", role: "alert" });
const boxHolder = h("div", { class: "exception-box", "aria-label": "Box plot over steps" });
const statsTable = h("table", { class: "exception-stats" });
const heatCanvas = h("canvas", { class: "exception-heat", tabindex: 0, "aria-label": "Heat map of the tensor" });
const heatReadout = h("p", { class: "readout exception-cell", role: "status" });
const histCanvas = h("canvas", { class: "exception-hist", "aria-label": "Histogram of the tensor's values" });
const outlierList = h("p", { class: "readout exception-outliers" });

const element = h(
  "section",
  { class: "dashboard exceptions", "aria-label": "Exceptions" },
  h(
    "div",
    { class: "toolbar" },
    h("label", {}, "Run ", runSelect),
    h("label", {}, "Tensor ", tagSelect),
    h("label", { class: "field" }, "Step ", stepInput, stepText),
  ),
  problem,
  h("h2", {}, "Over steps"),
  boxHolder,
  h("h2", {}, "At the step"),
  statsTable,
  h("div", { class: "exception-views" }, h("div", {}, heatCanvas, heatReadout, outlierList), histCanvas),
);

let tagsByRun = new Map<string, string[]>();
let steps: number[] = [];
let boxes: Box[] = [];
let boxPlot: uPlot | null = null;
let matrix: Matrix = [];
let cell = 1;
// Each show or step move takes a number; an answer that comes back after a newer request is dropped.
let latest = 0;

async function exceptionRuns(): Promise<Map<string, string[]>> {
  const category = await tsvisCategory<Record<string, { exception?: string[] }>>();
  const found = new Map<string, string[]>();
  for (const [run, components] of Object.entries(category)) {
    if (components.exception?.length) found.set(run, components.exception);
  }
  return found;
}

function options(select: HTMLSelectElement, values: string[], chosen: string): string {
  select.replaceChildren(...values.map((value) => h("option", { value }, value)));
  const value = values.includes(chosen) ? chosen : (values[0] ?? "");
  select.value = value;
  return value;
}

async function show(): Promise<void> {
  problem.textContent = "";
  const run = options(runSelect, [...tagsByRun.keys()], state.exceptionRun);
  const tag = options(tagSelect, tagsByRun.get(run) ?? [], state.exceptionTag);
  if (!run || !tag) {
    problem.textContent = "No exception tensors in this logdir.";
    return;
  }
  const request = ++latest;
  try {
    const found = await tsvisData<Record<string, { step: number[]; box: Box[] }>>("exception", { run, tag });
    if (request !== latest) return;
    ({ step: steps, box: boxes } = found[tag] ?? { step: [], box: [] });
  } catch (error) {
    problem.textContent = String(error);
    return;
  }
  element.dataset.steps = String(steps.length);
  stepInput.max = String(Math.max(0, steps.length - 1));
  stepInput.value = String(steps.length - 1);
  drawBoxes();
  await showStep();
}

function drawBoxes(): void {
  boxPlot?.destroy();
  const series = (index: number) => boxes.map((box) => box[0][index]!);
  const data: uPlot.AlignedData = [steps, series(0), series(1), series(2), series(3), series(4)];
  const { foreground } = chartTheme();
  const line = (label: string, width: number, dash?: number[]): uPlot.Series => ({
    label,
    stroke: foreground,
    width,
    ...(dash ? { dash } : {}),
    points: { show: steps.length < 50 },
  });
  boxPlot = new uPlot(
    {
      width: Math.max(300, boxHolder.clientWidth || 720),
      height: 200,
      legend: { show: true },
      scales: { x: { time: false } },
      series: [
        { label: "step" },
        line("up", 1, [4, 4]),
        line("Q3", 1),
        line("median", 2),
        line("Q1", 1),
        line("down", 1, [4, 4]),
      ],
      bands: [{ series: [2, 4], fill: "rgba(128, 128, 128, 0.25)" }],
      axes: [themedAxis({ incrs: STEP_INCREMENTS }), themedAxis({ size: 60 })],
    },
    data,
    boxHolder,
  );
}

async function showStep(): Promise<void> {
  const index = Number(stepInput.value);
  const step = steps[index];
  if (step === undefined) return;
  stepText.textContent = String(step);
  const [up, q3, median, q1, down] = boxes[index]![0];
  const params = { run: runSelect.value, tag: tagSelect.value, step: String(step) };
  const request = ++latest;
  try {
    const [data, hist, outliers] = await Promise.all([
      tsvisData<Record<string, [number[], number, number, number, Matrix]>>("exception_data", params),
      tsvisData<Record<string, [[number, number, [number, number, number][]]]>>("exception_hist", params),
      tsvisData<Record<string, [(number | string)[], [number, number][]]>>("exception_box", {
        ...params,
        up: String(up),
        down: String(down),
      }),
    ]);
    if (request !== latest) return;
    const [shape, min, max, mean, values] = data[String(step)]!;
    const [, , bins] = hist[String(step)]![0];
    const [outlierValues, positions] = outliers[String(step)]!;
    matrix = values;
    statsTable.replaceChildren(
      h(
        "tr",
        {},
        ...["shape", "min", "max", "mean", "down", "Q1", "median", "Q3", "up"].map((name) => h("th", {}, name)),
      ),
      h(
        "tr",
        {},
        h("td", { class: "shape" }, `[${shape.join(", ")}]`),
        ...[min, max, mean, down, q1, median, q3, up].map((value) => h("td", {}, formatNumber(value))),
      ),
    );
    drawHeat(min, max, positions);
    drawHistogram(bins);
    element.dataset.outliers = String(positions.length);
    outlierList.textContent = positions.length
      ? `${positions.length} outliers: ` +
        positions
          .slice(0, 20)
          .map(([row, column], at) => `[${row}, ${column}] ${formatValue(outlierValues[at]!)}`)
          .join("; ") +
        (positions.length > 20 ? "; ..." : "")
      : "no outliers";
    element.dataset.shown = `${params.run}/${params.tag}@${params.step}`;
  } catch (error) {
    problem.textContent = String(error);
  }
}

function formatValue(value: number | string): string {
  return typeof value === "number" ? formatNumber(value) : value;
}

/** Blue (min) through white to red (max); NaN black, infinities yellow. */
function colour(value: number | string, min: number, max: number): [number, number, number] {
  const number = typeof value === "number" ? value : Number(value);
  if (Number.isNaN(number)) return [0, 0, 0];
  if (!Number.isFinite(number)) return [230, 200, 0];
  const t = max > min ? (number - min) / (max - min) : 0.5;
  return t < 0.5
    ? [Math.round(510 * t), Math.round(510 * t), 255]
    : [255, Math.round(510 * (1 - t)), Math.round(510 * (1 - t))];
}

function drawHeat(min: number, max: number, outliers: [number, number][]): void {
  const rows = matrix.length;
  const columns = matrix[0]?.length ?? 0;
  cell = Math.max(1, Math.min(HEAT_CELL_MAX, Math.floor(HEAT_WIDTH / Math.max(1, columns))));
  heatCanvas.width = columns * cell;
  heatCanvas.height = rows * cell;
  heatCanvas.dataset.rows = String(rows);
  heatCanvas.dataset.columns = String(columns);
  const context = heatCanvas.getContext("2d")!;
  const image = context.createImageData(columns, rows);
  matrix.forEach((row, i) =>
    row.forEach((value, j) => {
      const [r, g, b] = colour(value, min, max);
      image.data.set([r, g, b, 255], (i * columns + j) * 4);
    }),
  );
  // One pixel per cell, then scaled up without smoothing.
  const tiles = document.createElement("canvas");
  tiles.width = columns;
  tiles.height = rows;
  tiles.getContext("2d")!.putImageData(image, 0, 0);
  context.imageSmoothingEnabled = false;
  context.drawImage(tiles, 0, 0, columns * cell, rows * cell);
  if (cell >= 4) {
    context.strokeStyle = "#000";
    context.lineWidth = 1;
    for (const [i, j] of outliers) context.strokeRect(j * cell + 0.5, i * cell + 0.5, cell - 1, cell - 1);
  }
  heatReadout.textContent = `${rows} x ${columns} cells; point at one for its value`;
}

heatCanvas.addEventListener("mousemove", (event) => {
  const box = heatCanvas.getBoundingClientRect();
  const scale = heatCanvas.width / box.width || 1;
  const i = Math.floor(((event.clientY - box.top) * scale) / cell);
  const j = Math.floor(((event.clientX - box.left) * scale) / cell);
  const value = matrix[i]?.[j];
  if (value === undefined) return;
  heatReadout.dataset.row = String(i);
  heatReadout.dataset.column = String(j);
  heatReadout.dataset.value = String(value);
  heatReadout.textContent = `[${i}, ${j}] = ${formatValue(value)}`;
});

/** The tensor's histogram with its axes: counts on the left, values below (round ticks, as the other charts'). */
function drawHistogram(bins: [number, number, number][]): void {
  const width = Math.max(300, Math.min(HEAT_WIDTH, histCanvas.parentElement?.clientWidth ?? HEAT_WIDTH));
  const scale = window.devicePixelRatio || 1;
  histCanvas.width = Math.round(width * scale);
  histCanvas.height = Math.round(HIST_HEIGHT * scale);
  histCanvas.style.width = `${width}px`;
  histCanvas.dataset.bins = String(bins.length);
  histCanvas.dataset.count = String(bins.reduce((sum, [, , count]) => sum + count, 0));
  const context = histCanvas.getContext("2d")!;
  context.setTransform(scale, 0, 0, scale, 0, 0);
  context.clearRect(0, 0, width, HIST_HEIGHT);
  if (!bins.length) return;
  const { foreground, muted } = chartTheme();
  const low = bins[0]![0];
  const high = bins[bins.length - 1]![1];
  const most = Math.max(1, ...bins.map(([, , count]) => count));
  const countTicks = integerTicks(0, most, 4);
  context.font = HIST_FONT;
  const left = Math.ceil(Math.max(...countTicks.map((count) => context.measureText(formatCount(count)).width))) + 10;
  const [top, right, bottom] = [8, 12, HIST_HEIGHT - 20];
  const x = (value: number) => left + (high > low ? (value - low) / (high - low) : 0.5) * (width - left - right);
  const y = (count: number) => bottom - (count / most) * (bottom - top);
  context.fillStyle = foreground;
  for (const [binLeft, binRight, count] of bins) {
    const from = x(binLeft);
    context.fillRect(from, y(count), Math.max(1, x(binRight) - from - 1), bottom - y(count));
  }
  context.strokeStyle = muted;
  context.lineWidth = 1;
  context.beginPath();
  context.moveTo(left - 0.5, top);
  context.lineTo(left - 0.5, bottom + 0.5);
  context.lineTo(width - right, bottom + 0.5);
  context.textAlign = "right";
  context.textBaseline = "middle";
  histCanvas.dataset.plotBox = JSON.stringify([left, top, width - right, bottom]);
  histCanvas.dataset.countTicks = JSON.stringify(countTicks.map((count) => [count, y(count)]));
  for (const count of countTicks) {
    const at = Math.round(y(count)) + 0.5;
    context.moveTo(left - 4, at);
    context.lineTo(left, at);
    context.fillText(formatCount(count), left - 6, at);
  }
  context.textAlign = "center";
  context.textBaseline = "top";
  const valueTicks = niceTicks(low, high, Math.max(2, Math.floor(width / 90)));
  histCanvas.dataset.valueTicks = JSON.stringify(valueTicks.map((value) => [value, x(value)]));
  for (const value of valueTicks) {
    const at = Math.round(x(value)) + 0.5;
    context.moveTo(at, bottom);
    context.lineTo(at, bottom + 4);
    context.fillText(formatTick(value), at, bottom + 6);
  }
  context.stroke();
  histCanvas.title = `${formatNumber(low)} to ${formatNumber(high)}`;
}

runSelect.addEventListener("change", () => update({ exceptionRun: runSelect.value, exceptionTag: "" }));
tagSelect.addEventListener("change", () => update({ exceptionTag: tagSelect.value }));
stepInput.addEventListener("input", () => void showStep());

export const exceptions: Dashboard = {
  ownRuns: true,
  id: "exceptions",
  title: "Exceptions",
  plugin: "exceptions",
  element,
  async refresh() {
    try {
      tagsByRun = await exceptionRuns();
    } catch (error) {
      problem.textContent = String(error);
      return;
    }
    await show();
  },
  onState(changed) {
    if (changed.has("exceptionRun") || changed.has("exceptionTag")) void show();
  },
  // Exception tensors are listed by TS-VIS's API only.
  async available() {
    try {
      tagsByRun = await exceptionRuns();
    } catch {
      return false;
    }
    return tagsByRun.size > 0;
  },
};
