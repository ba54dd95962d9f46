// A histogram card's picture, as TensorBoard's histogram dashboard draws it: every step's buckets shared into the same
// even bins (histogram_bins.ts), drawn offset (a ridge per step, later steps in front, a step axis on the right) or
// overlaid (a count axis on the right), with value ticks below; pointing at it names the step, the bin's range and its
// count, and draws that step's outline stronger.

import { chartTheme } from "./chart_theme";
import { withAlpha } from "./colors";
import { formatNumber, h } from "./dom";
import { binRange, EVEN_BINS, rebin, type Bucket } from "./histogram_bins";
import { formatTick, integerTicks, niceTicks } from "./nice_ticks";

/** [wall_time, step, buckets], as /data/plugin/histograms/histograms answers. */
export type HistogramPoint = [number, number, Bucket[]];
export type HistogramMode = "offset" | "overlay";

const HEIGHT = 260;
const FONT = "11px system-ui, sans-serif";
const TICK = 4;
/** Pixels between two value ticks, about. */
const VALUE_TICK_ROOM = 70;
const HINT = "Point at a histogram for its step, range and count.";

interface Geometry {
  width: number;
  left: number;
  right: number;
  top: number;
  bottom: number;
  low: number;
  high: number;
  counts: Float64Array[];
  peak: number;
  steps: number[];
  mode: HistogramMode;
}

const plotBottom = (g: Geometry) => HEIGHT - g.bottom;
/** In offset mode a ridge is half the plot's height; the other half spreads the steps' baselines. */
const spread = (g: Geometry) => (g.mode === "offset" ? (plotBottom(g) - g.top) * 0.5 : 0);
const ridge = (g: Geometry) => plotBottom(g) - g.top - spread(g);
const xOf = (g: Geometry, value: number) =>
  g.left + ((value - g.low) / (g.high - g.low)) * (g.width - g.left - g.right);
const valueAt = (g: Geometry, x: number) => g.low + ((x - g.left) / (g.width - g.left - g.right)) * (g.high - g.low);
const binWidth = (g: Geometry) => (g.high - g.low) / EVEN_BINS;

/** The baseline of a step: offset by its place between the first and last step (the last in front, at the bottom). */
function baseOf(g: Geometry, step: number): number {
  const first = g.steps[0]!;
  const last = g.steps[g.steps.length - 1]!;
  const fraction = last > first ? (step - first) / (last - first) : 1;
  return plotBottom(g) - spread(g) * (1 - fraction);
}

/** Where a step's outline is over bin `bin` (its centre). */
function heightAt(g: Geometry, index: number, bin: number): number {
  return baseOf(g, g.steps[index]!) - (g.counts[index]![bin]! / (g.peak || 1)) * ridge(g);
}

/** The value ticks below the plot as [value, x], and those on the right (steps or counts) as [value, y]. */
function ticksOf(g: Geometry): { values: [number, number][]; side: [number, number][] } {
  const count = Math.max(2, Math.floor((g.width - g.left - g.right) / VALUE_TICK_ROOM));
  const last = g.steps[g.steps.length - 1]!;
  return {
    values: niceTicks(g.low, g.high, count).map((value) => [value, xOf(g, value)]),
    side:
      g.mode === "offset"
        ? integerTicks(g.steps[0]!, last, 4).map((step) => [step, baseOf(g, step)])
        : niceTicks(0, g.peak, 4).map((count) => [count, plotBottom(g) - (count / (g.peak || 1)) * ridge(g)]),
  };
}

function draw(canvas: HTMLCanvasElement, g: Geometry, color: string, hovered: { index: number; x: number } | null) {
  const context = canvas.getContext("2d");
  if (!context) return;
  const scale = window.devicePixelRatio || 1;
  context.setTransform(scale, 0, 0, scale, 0, 0);
  context.clearRect(0, 0, g.width, HEIGHT);
  const { foreground, muted } = chartTheme();
  const last = g.steps.length - 1;
  g.counts.forEach((bins, index) => {
    const fraction = last > 0 ? index / last : 1;
    const base = baseOf(g, g.steps[index]!);
    context.beginPath();
    context.moveTo(xOf(g, g.low), base);
    bins.forEach((_, bin) => context.lineTo(xOf(g, g.low + (bin + 0.5) * binWidth(g)), heightAt(g, index, bin)));
    context.lineTo(xOf(g, g.high), base);
    context.fillStyle = withAlpha(color, g.mode === "offset" ? 0.15 : 0.04);
    context.fill();
    const strong = hovered?.index === index;
    context.lineWidth = strong ? 2 : 1;
    context.strokeStyle = strong ? foreground : withAlpha(color, 0.3 + 0.7 * fraction);
    context.stroke();
  });
  context.font = FONT;
  context.strokeStyle = muted;
  context.fillStyle = foreground;
  context.lineWidth = 1;
  // Value ticks below the plot.
  const bottom = plotBottom(g);
  context.beginPath();
  context.moveTo(g.left, bottom + 0.5);
  context.lineTo(g.width - g.right, bottom + 0.5);
  context.textAlign = "center";
  context.textBaseline = "top";
  const ticks = ticksOf(g);
  for (const [value, place] of ticks.values) {
    const x = Math.round(place) + 0.5;
    context.moveTo(x, bottom);
    context.lineTo(x, bottom + TICK);
    context.fillText(formatTick(value), x, bottom + TICK + 2);
  }
  // On the right, the steps (offset) or the counts (overlay).
  const axisX = g.width - g.right + 4;
  context.textAlign = "left";
  context.textBaseline = "middle";
  for (const [value, y] of ticks.side) {
    const at = Math.round(y) + 0.5;
    context.moveTo(axisX, at);
    context.lineTo(axisX + TICK, at);
    context.fillText(formatTick(value), axisX + TICK + 3, at);
  }
  context.stroke();
  context.save();
  context.translate(g.width - 2, (g.top + bottom) / 2);
  context.rotate(Math.PI / 2);
  context.textAlign = "center";
  context.textBaseline = "top";
  context.fillStyle = muted;
  context.fillText(g.mode === "offset" ? "step" : "count", 0, 0);
  context.restore();
  if (hovered) {
    context.strokeStyle = foreground;
    context.setLineDash([3, 3]);
    context.beginPath();
    context.moveTo(Math.round(hovered.x) + 0.5, g.top);
    context.lineTo(Math.round(hovered.x) + 0.5, bottom);
    context.stroke();
    context.setLineDash([]);
  }
}

/** The histograms of one run's tag, `width` pixels wide: a canvas and the line that names what the pointer is on. */
export function histogramChart(
  points: HistogramPoint[],
  color: string,
  mode: HistogramMode,
  width: number,
  label: string,
): HTMLElement {
  const canvas = h("canvas", { class: "histogram", role: "img", "aria-label": label });
  const readout = h("p", { class: "histogram-hover", role: "status" }, HINT);
  const figure = h("div", { class: "histogram-chart" }, canvas, readout);
  const range = binRange(points.map(([, , buckets]) => buckets));
  if (!range) return figure;
  const [low, high] = range;
  const counts = points.map(([, , buckets]) => rebin(buckets, low, high));
  const context = canvas.getContext("2d");
  if (context) context.font = FONT;
  const steps = points.map(([, step]) => step);
  const peak = Math.max(...counts.map((bins) => Math.max(...bins)));
  const rightLabels = mode === "offset" ? steps.map(String) : niceTicks(0, peak, 4).map(formatTick);
  const widest = Math.max(...rightLabels.map((text) => context?.measureText(text).width ?? text.length * 7));
  const g: Geometry = {
    width,
    left: 16,
    right: Math.ceil(widest) + 2 * TICK + 20,
    top: 8,
    bottom: 22,
    low,
    high,
    counts,
    peak,
    steps,
    mode,
  };
  const scale = window.devicePixelRatio || 1;
  canvas.width = Math.round(width * scale);
  canvas.height = Math.round(HEIGHT * scale);
  // Its height follows the width when a narrower card shrinks it (max-width: 100%).
  canvas.style.width = `${width}px`;
  // What the axes show, for tests and tools that read the page: [value, pixel] pairs.
  const ticks = ticksOf(g);
  canvas.dataset.valueTicks = JSON.stringify(ticks.values);
  canvas.dataset[mode === "offset" ? "stepTicks" : "countTicks"] = JSON.stringify(ticks.side);
  canvas.dataset.plotBox = JSON.stringify([g.left, g.top, g.width - g.right, plotBottom(g)]);
  draw(canvas, g, color, null);
  canvas.addEventListener("pointermove", (event) => {
    const box = canvas.getBoundingClientRect();
    const x = Math.min(g.width - g.right, Math.max(g.left, ((event.clientX - box.left) * g.width) / box.width));
    const y = ((event.clientY - box.top) * HEIGHT) / box.height;
    const bin = Math.min(EVEN_BINS - 1, Math.max(0, Math.floor((valueAt(g, x) - low) / binWidth(g))));
    // Offset: the step whose baseline is nearest the pointer; overlay: the step whose outline is.
    let index = 0;
    let distance = Infinity;
    steps.forEach((step, at) => {
      const away = Math.abs((mode === "offset" ? baseOf(g, step) : heightAt(g, at, bin)) - y);
      if (away < distance) [index, distance] = [at, away];
    });
    const left = low + bin * binWidth(g);
    const right = bin === EVEN_BINS - 1 ? high : low + (bin + 1) * binWidth(g);
    const count = counts[index]![bin]!;
    Object.assign(readout.dataset, {
      step: String(steps[index]),
      bin: String(bin),
      left: String(left),
      right: String(right),
      count: String(count),
    });
    readout.textContent = `step ${steps[index]}: ${formatNumber(left)} to ${formatNumber(right)}, count ${formatNumber(count)}`;
    draw(canvas, g, color, { index, x });
  });
  canvas.addEventListener("pointerleave", () => {
    readout.textContent = HINT;
    for (const key of ["step", "bin", "left", "right", "count"]) delete readout.dataset[key];
    draw(canvas, g, color, null);
  });
  return figure;
}
