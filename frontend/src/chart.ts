// One time-series chart on uPlot: every run's smoothed line, a faint raw line while smoothing, the min/max envelope
// of raw values where a pixel column holds several points, an optional mean ± std band over the runs; zoom by drag,
// wheel or keys, pan by shift-drag or arrows, reset by double-click or 0; a tooltip sorted by value.

import uPlot from "uplot";
import { centres, reduceLine, reduceRaw, spread, type Columns, type Grid, type RawColumns } from "./buckets";
import { withAlpha } from "./colors";
import { formatNumber, h } from "./dom";
import type { XAxis } from "./state";

export interface Line {
  run: string;
  color: string;
  /** Dash pattern (empty or absent: solid): runs past the palette's size share a colour but not a dash. */
  dash?: readonly number[];
  /** x of each point in the chart's x-axis unit (step, seconds since the run's start, or wall time in seconds). */
  xs: Float64Array;
  steps: Float64Array;
  wallTimes: Float64Array;
  raw: Float64Array;
  smoothed: Float64Array;
}

export interface ChartOptions {
  x: XAxis;
  logX: boolean;
  logY: boolean;
  band: boolean;
  smoothing: boolean;
  /** The y range from the 5th to the 95th percentile of the shown points' values, as TensorBoard's setting. */
  ignoreOutliers?: boolean;
}

export interface TooltipRow {
  run: string;
  color: string;
  smoothed: number;
  value: number;
  step: number;
  wallTime: number;
}

const HEIGHT = 240;
const ZOOM_STEP = 0.8;
const PAN_STEP = 0.1;
// Above this many runs, lines are one pixel wide: easier to tell apart, and drawn as hairlines, several times faster
// (a smoothing slider over 100 runs of 10,000 points redraws in half the time).
const THIN_FROM = 10;

export class Chart {
  readonly element: HTMLElement;
  private readonly canvasHolder: HTMLElement;
  private readonly tooltip: HTMLElement;
  private plot: uPlot | null = null;
  private plotKey = "";
  private lines: Line[] = [];
  private options: ChartOptions = { x: "step", logX: false, logY: false, band: false, smoothing: false };
  private extent: [number, number] | null = null;
  /** What the extent was computed from (the lines' x arrays, by identity): a new smoothing keeps it. */
  private extentKey: unknown[] = [];
  private zoom: [number, number] | null = null;
  private columns: Columns[] = [];
  private bandColumns: { mean: Float64Array; std: Float64Array } | null = null;
  private yRange: [number, number] = [0, 1];
  private drawStarted = 0;
  /** Each line's raw values folded into the last grid it was drawn on, by its raw values. */
  private foldedCache = new WeakMap<Float64Array, { key: string; xs: Float64Array; folded: RawColumns }>();
  private underlay: { canvas: HTMLCanvasElement | null; key: string; parts: unknown[] } | null = null;
  private width = 0;
  private height = HEIGHT;
  private readonly resize: ResizeObserver;

  constructor(label: string) {
    this.canvasHolder = h("div", { class: "plot" });
    this.tooltip = h("div", { class: "tooltip", role: "tooltip", hidden: true });
    this.element = h(
      "div",
      {
        class: "chart",
        tabindex: 0,
        "aria-label": `${label}: drag or +/- to zoom, shift-drag or arrows to pan, double-click or 0 to reset`,
      },
      this.canvasHolder,
      this.tooltip,
    );
    this.element.addEventListener("keydown", (event) => this.onKey(event));
    this.element.addEventListener("wheel", (event) => this.onWheel(event), { passive: false });
    // Only a new width redraws: the chart's own height changes when its canvas goes in.
    this.resize = new ResizeObserver(() => {
      if (this.lines.length && this.plot && this.element.clientWidth !== this.width) this.render(true);
    });
    this.resize.observe(this.element);
  }

  /** Draws `lines`; the zoom is kept while the data's extent still covers it. */
  set(lines: Line[], options: ChartOptions): void {
    this.drawStarted = performance.now();
    const rebuild = JSON.stringify(options) !== JSON.stringify(this.options);
    if (options.x !== this.options.x || options.logX !== this.options.logX) this.zoom = null;
    this.lines = lines;
    this.options = options;
    const extentKey = [options.logX, ...lines.map((line) => line.xs)];
    if (extentKey.length !== this.extentKey.length || extentKey.some((part, i) => part !== this.extentKey[i])) {
      this.extent = extentOf(lines, options.logX);
      this.extentKey = extentKey;
    }
    this.render(rebuild);
  }

  destroy(): void {
    this.resize.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }

  /** The lines' values nearest to x, sorted by smoothed value, largest first. */
  rowsAt(x: number): TooltipRow[] {
    const rows: TooltipRow[] = [];
    for (const line of this.lines) {
      const index = nearest(line.xs, x);
      if (index < 0) continue;
      rows.push({
        run: line.run,
        color: line.color,
        smoothed: line.smoothed[index]!,
        value: line.raw[index]!,
        step: line.steps[index]!,
        wallTime: line.wallTimes[index]!,
      });
    }
    return rows.sort((a, b) =>
      Number.isNaN(a.smoothed) ? 1 : Number.isNaN(b.smoothed) ? -1 : b.smoothed - a.smoothed,
    );
  }

  get range(): [number, number] | null {
    return this.zoom ?? this.extent;
  }

  /** Draws the plot `pixels` high (a full-screen card's), or as high as charts are by default (null). */
  setHeight(pixels: number | null): void {
    this.height = pixels ?? HEIGHT;
    if (this.plot) this.render(true);
  }

  /** The x value under a horizontal position on screen (a mouse event's clientX); null before the first draw. */
  valueAt(clientX: number): number | null {
    if (!this.plot) return null;
    return this.plot.posToVal(clientX - this.plot.over.getBoundingClientRect().left, "x");
  }

  /** Where x is drawn, in pixels from the chart element's left, and the plot area's top and height; null before the
   * first draw. */
  placeOf(x: number): { left: number; top: number; height: number } | null {
    if (!this.plot) return null;
    const over = this.plot.over;
    return { left: over.offsetLeft + this.plot.valToPos(x, "x"), top: over.offsetTop, height: over.clientHeight };
  }

  resetZoom(): void {
    this.zoom = null;
    this.render(false);
  }

  zoomTo(low: number, high: number): void {
    if (!this.extent || !(high > low)) return;
    this.zoom = [Math.max(low, this.extent[0]), Math.min(high, this.extent[1])];
    if (!(this.zoom[1] > this.zoom[0])) this.zoom = null;
    this.render(false);
  }

  private render(rebuild: boolean): void {
    const range = this.range;
    if (!range || this.lines.length === 0) {
      this.plot?.destroy();
      this.plot = null;
      this.canvasHolder.replaceChildren(h("p", { class: "empty" }, "No data for the selected runs."));
      return;
    }
    this.width = this.element.clientWidth;
    const width = Math.max(200, this.width || 400);
    const grid: Grid = {
      low: range[0],
      high: range[1],
      size: Math.max(20, Math.round(width - 60)),
      log: this.options.logX,
    };
    this.columns = this.lines.map((line) => reduceLine(line.smoothed, this.folded(line, grid), this.options.logY));
    this.bandColumns = this.options.band
      ? spread(
          this.columns.map((columns) => columns.line),
          grid.size,
        )
      : null;
    this.yRange =
      (this.options.ignoreOutliers && percentileRange(this.lines, range, this.options.logY)) ||
      yRangeOf(this.columns, this.bandColumns, this.options.logY);
    const data: uPlot.AlignedData = [
      centres(grid),
      ...this.columns.map((columns) => Array.from(columns.line, (value) => (Number.isNaN(value) ? null : value))),
    ];
    // The theme's colours are baked into the plot's axes: a new theme builds it again.
    const theme = document.documentElement.dataset.theme;
    const key = `${width}|${theme}|${this.lines.map((line) => `${line.run}\u0000${line.color}`).join("\u0001")}`;
    if (!this.plot || rebuild || key !== this.plotKey) {
      this.plot?.destroy();
      this.canvasHolder.replaceChildren();
      this.plot = new uPlot(this.plotOptions(width), data, this.canvasHolder);
      this.plotKey = key;
    } else {
      this.plot.batch(() => {
        this.plot!.setData(data, false);
        this.plot!.setScale("x", { min: range[0], max: range[1] });
        this.plot!.setScale("y", { min: this.yRange[0], max: this.yRange[1] });
      });
    }
    this.element.dataset.columns = String(grid.size);
    this.element.dataset.yRange = this.yRange.join(",");
  }

  /** How many columns of line `index` have a value. */
  private drawnPoints(index: number): number {
    const line = this.columns[index]?.line;
    let count = 0;
    if (line) for (const value of line) if (!Number.isNaN(value)) count++;
    return count;
  }

  private folded(line: Line, grid: Grid): RawColumns {
    const key = `${grid.low}|${grid.high}|${grid.size}|${grid.log}|${this.options.logY}`;
    const cached = this.foldedCache.get(line.raw);
    if (cached && cached.key === key && cached.xs === line.xs) return cached.folded;
    const folded = reduceRaw(line.xs, line.raw, grid, this.options.logY);
    this.foldedCache.set(line.raw, { key, xs: line.xs, folded });
    return folded;
  }

  private plotOptions(width: number): uPlot.Options {
    const style = getComputedStyle(document.documentElement);
    const foreground = style.getPropertyValue("--fg").trim() || "#222";
    const gridColor = style.getPropertyValue("--grid").trim() || "#ddd";
    const axis = (values?: uPlot.Axis["values"]): uPlot.Axis => ({
      stroke: foreground,
      grid: { stroke: gridColor, width: 1 },
      ticks: { stroke: gridColor, width: 1 },
      ...(values ? { values } : {}),
    });
    const xValues: uPlot.Axis["values"] | undefined =
      this.options.x === "relative" ? (_u, splits) => splits.map(formatDuration) : undefined;
    return {
      width,
      height: this.height,
      legend: { show: false },
      scales: {
        x: {
          time: this.options.x === "wall",
          distr: this.options.logX ? 3 : 1,
          auto: false,
          range: () => this.range ?? [0, 1],
        },
        y: { distr: this.options.logY ? 3 : 1, auto: false, range: () => this.yRange },
      },
      // A log axis leaves its minor ticks' labels out as null splits: no label there, not "null".
      axes: [
        axis(xValues),
        { ...axis((_u, splits) => splits.map((value) => (value == null ? null : formatTick(value)))), size: 60 },
      ],
      series: [
        {},
        ...this.lines.map((line) => ({
          label: line.run,
          stroke: line.color,
          dash: line.dash?.length ? [...line.dash] : undefined,
          width: this.lines.length > THIN_FROM ? 1 : 1.5,
          spanGaps: true,
          // A line of one drawn point has no segment: it shows as a dot, as TensorBoard shows it.
          points: { show: (_u: uPlot, index: number) => this.drawnPoints(index - 1) === 1, size: 7, fill: line.color },
        })),
      ],
      cursor: {
        drag: { x: true, y: false, setScale: false },
        points: { size: 6 },
        bind: {
          mousedown: (u, _target, handler) => (event) => {
            if (event.shiftKey) {
              this.startPan(u, event);
              return null;
            }
            return handler(event);
          },
          dblclick: () => () => {
            this.resetZoom();
            return null;
          },
        },
      },
      hooks: {
        drawAxes: [(u) => this.drawUnderlay(u)],
        draw: [
          () => {
            const now = performance.now();
            this.element.dataset.drawMs = (now - this.drawStarted).toFixed(1);
            this.element.dataset.drawnAt ??= now.toFixed(1);
            this.element.dispatchEvent(new Event("chart:drawn"));
          },
        ],
        setSelect: [(u) => this.onSelect(u)],
        setCursor: [(u) => this.showTooltip(u)],
      },
    };
  }

  /** The envelopes (and band) under the lines. Drawn again unchanged, they are kept in a canvas of their own while
   * the scales, the size and the folded columns stay the same: a new smoothing only redraws the lines over it. */
  private drawUnderlay(u: uPlot): void {
    const target = u.ctx.canvas;
    const key = [
      target.width,
      target.height,
      u.scales.x?.min,
      u.scales.x?.max,
      u.scales.y?.min,
      u.scales.y?.max,
      this.options.smoothing,
      document.documentElement.dataset.theme,
      ...this.lines.map((line) => line.color),
    ].join("|");
    const parts = [this.bandColumns, ...this.columns.map((columns) => columns.index)];
    const cached = this.underlay;
    const same =
      cached !== null &&
      cached.key === key &&
      cached.parts.length === parts.length &&
      cached.parts.every((part, index) => part === parts[index]);
    if (!same) {
      // A first draw paints straight onto the chart: copying from a canvas of its own would make the browser
      // rasterise the envelopes at once, before the chart shows.
      this.underlay = { canvas: null, key, parts };
      this.paintUnderlay(u, u.ctx);
      return;
    }
    if (!cached.canvas) {
      // Drawn again unchanged (a new smoothing): now worth keeping.
      cached.canvas = document.createElement("canvas");
      cached.canvas.width = target.width;
      cached.canvas.height = target.height;
      this.paintUnderlay(u, cached.canvas.getContext("2d")!);
    }
    u.ctx.drawImage(cached.canvas, 0, 0);
  }

  private paintUnderlay(u: uPlot, context: CanvasRenderingContext2D): void {
    const xs = u.data[0];
    const { left, top, width, height } = u.bbox;
    context.save();
    context.beginPath();
    context.rect(left, top, width, height);
    context.clip();
    const x = (index: number) => u.valToPos(xs[index]!, "x", true);
    const y = (value: number) => u.valToPos(value, "y", true);
    this.columns.forEach((columns, index) => {
      const color = this.lines[index]!.color;
      fillBetween(context, columns.count.length, x, y, columns.max, columns.min, withAlpha(color, 0.35));
      // The raw line, where points are not already folded into the envelope.
      if (this.options.smoothing && this.lines[index]!.xs.length <= columns.count.length) {
        strokeLine(context, columns.count.length, x, y, columns.raw, withAlpha(color, 0.3));
      }
    });
    if (this.bandColumns) {
      const { mean, std } = this.bandColumns;
      const upper = mean.map((value, index) => value + std[index]!);
      const lower = mean.map((value, index) => value - std[index]!);
      const foreground = getComputedStyle(document.documentElement).getPropertyValue("--fg").trim() || "#222";
      fillBetween(context, mean.length, x, y, upper, lower, withAlpha(toHex(foreground), 0.15));
      context.setLineDash([6, 4]);
      strokeLine(context, mean.length, x, y, mean, foreground);
      context.setLineDash([]);
    }
    context.restore();
  }

  private onSelect(u: uPlot): void {
    const { left, width } = u.select;
    if (width < 2) return;
    const low = u.posToVal(left, "x");
    const high = u.posToVal(left + width, "x");
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    this.zoomTo(low, high);
  }

  private startPan(u: uPlot, start: MouseEvent): void {
    const range = this.range;
    if (!range) return;
    const pixels = u.bbox.width / devicePixelRatio;
    const move = (event: MouseEvent) =>
      this.shift(range, (-(event.clientX - start.clientX) / pixels) * (range[1] - range[0]));
    const up = () => {
      window.removeEventListener("mousemove", move);
      window.removeEventListener("mouseup", up);
    };
    window.addEventListener("mousemove", move);
    window.addEventListener("mouseup", up);
  }

  private shift(from: [number, number], by: number): void {
    if (!this.extent) return;
    const span = from[1] - from[0];
    const low = Math.min(Math.max(from[0] + by, this.extent[0]), this.extent[1] - span);
    this.zoomTo(low, low + span);
  }

  private scaleAround(factor: number, centreFraction = 0.5): void {
    const range = this.range;
    if (!range || !this.extent) return;
    const span = range[1] - range[0];
    const centre = range[0] + span * centreFraction;
    const next = span * factor;
    if (factor > 1 && next >= this.extent[1] - this.extent[0]) return this.resetZoom();
    this.zoomTo(centre - next * centreFraction, centre + next * (1 - centreFraction));
  }

  private onWheel(event: WheelEvent): void {
    // Only with a modifier: a plain wheel scrolls the page.
    if (!(event.ctrlKey || event.altKey) || !this.plot) return;
    event.preventDefault();
    const box = this.plot.over.getBoundingClientRect();
    this.scaleAround(event.deltaY < 0 ? ZOOM_STEP : 1 / ZOOM_STEP, (event.clientX - box.left) / box.width);
  }

  private onKey(event: KeyboardEvent): void {
    const range = this.range;
    if (!range) return;
    const span = range[1] - range[0];
    const actions: Record<string, () => void> = {
      "+": () => this.scaleAround(ZOOM_STEP),
      "=": () => this.scaleAround(ZOOM_STEP),
      "-": () => this.scaleAround(1 / ZOOM_STEP),
      "0": () => this.resetZoom(),
      ArrowLeft: () => this.shift(range, -span * PAN_STEP),
      ArrowRight: () => this.shift(range, span * PAN_STEP),
    };
    const action = actions[event.key];
    if (action) {
      event.preventDefault();
      action();
    }
  }

  private showTooltip(u: uPlot): void {
    const { left, top } = u.cursor;
    if (left === undefined || top === undefined || left < 0) {
      this.tooltip.hidden = true;
      return;
    }
    const rows = this.rowsAt(u.posToVal(left, "x"));
    if (rows.length === 0) {
      this.tooltip.hidden = true;
      return;
    }
    const relative = (row: TooltipRow) => {
      const line = this.lines.find((candidate) => candidate.run === row.run);
      return line ? row.wallTime - line.wallTimes[0]! : 0;
    };
    const table = h(
      "table",
      {},
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          h("th", {}),
          h("th", {}, "Run"),
          h("th", {}, "Smoothed"),
          h("th", {}, "Value"),
          h("th", {}, "Step"),
          h("th", {}, "Relative"),
        ),
      ),
      h(
        "tbody",
        {},
        ...rows.map((row) =>
          h(
            "tr",
            { "data-run": row.run },
            h("td", {}, h("span", { class: "swatch", style: `background:${row.color}` })),
            h("td", { class: "run" }, row.run),
            h("td", { class: "smoothed" }, formatNumber(row.smoothed)),
            h("td", { class: "value" }, formatNumber(row.value)),
            h("td", { class: "step" }, row.step),
            h("td", {}, formatDuration(relative(row))),
          ),
        ),
      ),
    );
    const finite = rows.map((row) => row.smoothed).filter(Number.isFinite);
    const mean = finite.reduce((sum, value) => sum + value, 0) / finite.length;
    const std = Math.sqrt(finite.reduce((sum, value) => sum + (value - mean) ** 2, 0) / finite.length);
    const band =
      this.options.band && finite.length > 1
        ? h("p", { class: "band" }, `mean ${formatNumber(mean)} ± std ${formatNumber(std)} over ${finite.length} runs`)
        : null;
    this.tooltip.replaceChildren(table, ...(band ? [band] : []));
    this.tooltip.hidden = false;
    const overLeft = u.over.offsetLeft;
    const flip = left > u.over.clientWidth / 2;
    this.tooltip.style.left = flip ? "" : `${overLeft + left + 16}px`;
    this.tooltip.style.right = flip ? `${this.element.clientWidth - overLeft - left + 16}px` : "";
    this.tooltip.style.top = `${u.over.offsetTop + top + 16}px`;
  }
}

function extentOf(lines: Line[], log: boolean): [number, number] | null {
  let low = Infinity;
  let high = -Infinity;
  for (const { xs } of lines) {
    for (let index = 0; index < xs.length; index++) {
      const x = xs[index]!;
      if (log && !(x > 0)) continue;
      if (x < low) low = x;
      if (x > high) high = x;
    }
  }
  if (!(high >= low)) return null;
  if (high === low) return log ? [low / 2, high * 2] : [low - 1, high + 1];
  return [low, high];
}

function yRangeOf(
  columns: Columns[],
  band: { mean: Float64Array; std: Float64Array } | null,
  log: boolean,
): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  const include = (value: number) => {
    if (!Number.isFinite(value) || (log && value <= 0)) return;
    if (value < low) low = value;
    if (value > high) high = value;
  };
  for (const column of columns) {
    column.min.forEach(include);
    column.max.forEach(include);
    column.line.forEach(include);
  }
  band?.mean.forEach((mean, index) => {
    include(mean - band.std[index]!);
    include(mean + band.std[index]!);
  });
  if (!(high >= low)) return log ? [0.1, 10] : [0, 1];
  if (log) return [low / 1.2, high * 1.2];
  const pad = high > low ? (high - low) * 0.05 : Math.abs(high) * 0.1 || 1;
  return [low - pad, high + pad];
}

/** The 5th to 95th percentile of the values of the lines' points within the x range (raw and smoothed), padded as
 * the full range is; null when there are none. */
function percentileRange(lines: Line[], range: [number, number], log: boolean): [number, number] | null {
  const values: number[] = [];
  for (const line of lines) {
    for (let index = 0; index < line.xs.length; index++) {
      const x = line.xs[index]!;
      if (x < range[0] || x > range[1]) continue;
      for (const value of [line.raw[index]!, line.smoothed[index]!]) {
        if (Number.isFinite(value) && !(log && value <= 0)) values.push(value);
      }
    }
  }
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const at = (fraction: number) => sorted[Math.round(fraction * (sorted.length - 1))]!;
  const [low, high] = [at(0.05), at(0.95)];
  if (log) return [low / 1.2, high * 1.2];
  const pad = high > low ? (high - low) * 0.05 : Math.abs(high) * 0.1 || 1;
  return [low - pad, high + pad];
}

/** The index of the point whose x is nearest to `x`, in xs sorted ascending; -1 when empty. */
export function nearest(xs: Float64Array, x: number): number {
  if (xs.length === 0) return -1;
  let low = 0;
  let high = xs.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (xs[middle]! < x) low = middle + 1;
    else high = middle;
  }
  if (low > 0 && Math.abs(xs[low - 1]! - x) <= Math.abs(xs[low]! - x)) return low - 1;
  return low;
}

function fillBetween(
  context: CanvasRenderingContext2D,
  size: number,
  x: (index: number) => number,
  y: (value: number) => number,
  upper: Float64Array,
  lower: Float64Array,
  fill: string,
): void {
  context.fillStyle = fill;
  const half = size > 1 ? Math.max(0.5, (x(1) - x(0)) / 2) : 0.5;
  let start = -1;
  for (let index = 0; index <= size; index++) {
    const present = index < size && Number.isFinite(upper[index]!) && Number.isFinite(lower[index]!);
    if (present && start < 0) start = index;
    if (!present && start >= 0) {
      // Each column spans its full width, flat at its extremes: a spike in one column stays a column wide.
      context.beginPath();
      for (let column = start; column < index; column++) {
        context.lineTo(x(column) - half, y(upper[column]!));
        context.lineTo(x(column) + half, y(upper[column]!));
      }
      for (let column = index - 1; column >= start; column--) {
        context.lineTo(x(column) + half, y(lower[column]!));
        context.lineTo(x(column) - half, y(lower[column]!));
      }
      context.closePath();
      context.fill();
      start = -1;
    }
  }
}

function strokeLine(
  context: CanvasRenderingContext2D,
  size: number,
  x: (index: number) => number,
  y: (value: number) => number,
  values: Float64Array,
  stroke: string,
): void {
  context.strokeStyle = stroke;
  context.lineWidth = devicePixelRatio;
  context.beginPath();
  let started = false;
  for (let index = 0; index < size; index++) {
    const value = values[index]!;
    if (!Number.isFinite(value)) continue;
    if (started) context.lineTo(x(index), y(value));
    else context.moveTo(x(index), y(value));
    started = true;
  }
  context.stroke();
}

function toHex(color: string): string {
  return /^#[0-9a-f]{6}$/i.test(color) ? color : "#808080";
}

export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return "";
  const sign = seconds < 0 ? "-" : "";
  let rest = Math.abs(seconds);
  if (rest < 60) return `${sign}${Number(rest.toPrecision(3))}s`;
  const hours = Math.floor(rest / 3600);
  rest -= hours * 3600;
  const minutes = Math.floor(rest / 60);
  const secs = Math.round(rest - minutes * 60);
  return hours > 0 ? `${sign}${hours}h ${minutes}m` : `${sign}${minutes}m ${secs}s`;
}

/** An axis label: as `formatNumber`, but with no more exponent digits than it needs (1e-5, not 1.0000e-5), which an
 * axis 60 pixels wide would cut. */
function formatTick(value: number): string {
  const text = formatNumber(value);
  return text.includes("e") ? Number(value.toPrecision(3)).toExponential() : text;
}
