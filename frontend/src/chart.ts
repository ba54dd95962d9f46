// One time-series chart on uPlot: every run's smoothed line, a faint raw line while smoothing, the min/max envelope
// of raw values where a pixel column holds several points, an optional mean ± std band over the runs; zoom by drag,
// wheel or keys, pan by shift-drag or arrows, reset by double-click or 0. Hovering shows the tooltip in the page's
// overlay (sorted as chosen, nearest line first by default) and draws the nearest line thicker over the others dimmed;
// the run highlighted on the page (the run list's hovered row) is drawn so too; a click on a line picks its run.

import uPlot from "uplot";
import { centres, reduceLine, reduceRaw, spread, type Columns, type Grid, type RawColumns } from "./buckets";
import { MARKERS, drawMarker, fillBetween, strokeLine, toHex } from "./chart_draw";
import { extentOf, interpolate, nearest, percentileRange, yRangeOf } from "./chart_ranges";
import { INTEGER_INCREMENTS, chartTheme, titledXAxis, valueAxis } from "./chart_theme";
import { withAlpha } from "./colors";
import { formatNumber, h } from "./dom";
import { PICK_RUN, highlighted, onHighlight } from "./highlight";
import {
  followPointer,
  hideTooltip,
  intoTooltip,
  leavePointer,
  showTooltip,
  type PointerAt,
  type TooltipContent,
  type TooltipOwner,
} from "./overlay";
import type { TooltipSort, XAxis } from "./state";
import { TooltipTable } from "./tooltip_table";

/** The tooltip's orders, as TensorBoard's: nearest to the cursor (in pixels) first, by run name, or by value. */
export const TOOLTIP_SORTS: TooltipSort[] = ["nearest", "alphabetical", "ascending", "descending"];

export interface Line {
  run: string;
  /** What the tooltip and legend call the line (the run's name when absent). */
  label?: string;
  color: string;
  /** The shape of the marks along the line (an index into MARKERS): tells a run's tags apart. */
  marker?: number;
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
  tooltipSort?: TooltipSort;
  /** The x axis's title where x is a tag ("x = train/lr"); a time axis is titled by its kind. */
  xTitle?: string;
}

// x = "tag" with no tag chosen draws on steps.
const X_TITLES: Record<XAxis, string> = { step: "Step", relative: "Relative time", wall: "Wall time", tag: "Step" };

/** What the chart's x axis is called under its ticks. */
export function xTitleOf(options: Pick<ChartOptions, "x" | "xTitle">): string {
  return options.xTitle ?? X_TITLES[options.x];
}

export interface TooltipRow {
  run: string;
  label: string;
  color: string;
  smoothed: number;
  value: number;
  step: number;
  wallTime: number;
  /** From the cursor to the point, in CSS pixels (Infinity where not measured). */
  distance: number;
}

const HEIGHT = 240;
// A wide chart (a card alone in its row) is drawn higher than its card size says, up to a share of the window and a
// height that keeps a page of such cards readable: one chart on a wide screen is not a strip of it.
const ASPECT = 0.4;
const WINDOW_SHARE = 0.55;
const TALLEST = 480;
const ZOOM_STEP = 0.8;
const PAN_STEP = 0.1;
// Above this many runs, lines are one pixel wide: easier to tell apart, and drawn as hairlines, several times faster
// (a smoothing slider over 100 runs of 10,000 points redraws in half the time).
const THIN_FROM = 10;
// The highlighted line's width (how much of the plot's background covers the other lines: style.css, .chart .veil).
const HIGHLIGHT_WIDTH = 3;
// A click this near a line (CSS pixels) picks its run.
const PICK_PIXELS = 12;
// The tooltip's rows: at most this many (the nearest lines first by default; a count of the rest below them), so that
// it hides little of the chart; a row's height and the room kept for its header, to fit a short window.
const TOOLTIP_ROWS = 10;
const ROW_PIXELS = 19;
const TOOLTIP_CHROME = 70;
// The run column's width: the longest name's as drawn in the tooltip's font plus its cell's padding, within bounds
// (longer names are cut with an ellipsis); the others'.
const TOOLTIP_FONT = "12px system-ui, sans-serif";
const CELL_PADDING = 12;
const RUN_COLUMN_MIN = 60;
const RUN_COLUMN_MAX = 330;
/** The tooltip table's columns but the run's, in pixels (as style.css sets them). */
export const OTHER_TOOLTIP_COLUMNS = 18 + 84 + 84 + 50 + 62;
// Marks along a line, this many pixels apart.
const MARKER_SPACING = 48;

const tooltipTable = new TooltipTable();
// Step ticks as toLocaleString writes them, by one formatter: toLocaleString builds a formatter on every call, which
// cost each chart's first draw more than its lines.
const STEP_TICKS = new Intl.NumberFormat();

// The charts in view (or near it): a run highlighted on the page is painted on these at once, on the others when they
// come into view.
const charts = new WeakMap<Element, Chart>();
const inView = new WeakSet<Element>();
const visibility = new IntersectionObserver(
  (entries) => {
    for (const { target, isIntersecting } of entries) {
      if (!isIntersecting) {
        inView.delete(target);
        continue;
      }
      inView.add(target);
      charts.get(target)?.paintHighlightIfStale();
    }
  },
  { rootMargin: "200px" },
);

// Where the pointer is on the page (null once it is off it). A plot built under a still pointer (a new run came, the
// theme changed, the card was laid out again) gets no mouse event until the pointer moves: once a frame after plots
// were built, the chart under the pointer takes its cursor from here, and so keeps its tooltip.
let pointer: PointerAt | null = null;
let cursorCheck = 0;
document.addEventListener("pointermove", ({ clientX, clientY }) => (pointer = { clientX, clientY }), { passive: true });
document.addEventListener("pointerout", (event) => {
  if (!event.relatedTarget) pointer = null;
});

function cursorFromStillPointer(): void {
  if (!pointer || cursorCheck) return;
  cursorCheck = requestAnimationFrame(() => {
    cursorCheck = 0;
    if (!pointer) return;
    const over = document
      .elementsFromPoint(pointer.clientX, pointer.clientY)
      .find((e) => e.classList.contains("u-over"));
    for (let element = over ?? null; element; element = element.parentElement) {
      const chart = charts.get(element);
      if (chart) return chart.pointerMoved(pointer);
    }
  });
}

export class Chart implements TooltipOwner {
  readonly element: HTMLElement;
  private readonly canvasHolder: HTMLElement;
  private readonly highlightCanvas = h("canvas", { class: "highlight" });
  private readonly context = this.highlightCanvas.getContext("2d")!;
  private readonly veil = h("div", { class: "veil" });
  /** Where the highlight canvas was painted last (its pixels): what the next paint clears. */
  private paintedHighlight: { left: number; top: number; width: number; height: number } | null = null;
  private readonly stopHighlight: () => void;
  /** The run of the line nearest the cursor while it hovers this chart (or the legend's hovered run). */
  private hoverRun: string | null = null;
  private nearestRow: TooltipRow | null = null;
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
    this.element = h(
      "div",
      {
        class: "chart",
        tabindex: 0,
        "aria-label": `${label}: drag or +/- to zoom, shift-drag or arrows to pan, double-click or 0 to reset`,
      },
      this.canvasHolder,
    );
    this.element.addEventListener("keydown", (event) => this.onKey(event));
    this.element.addEventListener("mouseleave", (event) => {
      if (!intoTooltip(event)) this.leave();
    });
    this.element.addEventListener("click", (event) => this.pick(event));
    this.stopHighlight = onHighlight(() => this.paintHighlight());
    this.element.addEventListener("wheel", (event) => this.onWheel(event), { passive: false });
    // Only a new width redraws: the chart's own height changes when its canvas goes in.
    this.resize = new ResizeObserver(() => {
      if (this.lines.length && this.plot && this.element.clientWidth !== this.width) this.render(true);
    });
    this.resize.observe(this.element);
    charts.set(this.element, this);
    visibility.observe(this.element);
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
    hideTooltip(this);
    this.stopHighlight();
    this.resize.disconnect();
    visibility.unobserve(this.element);
    inView.delete(this.element);
    this.plot?.destroy();
    this.plot = null;
  }

  /** The lines' points nearest to x, in the lines' order. `cursorTop` (pixels from the plot's top) measures each
   * point's distance from the cursor at (x, cursorTop). */
  rowsAt(x: number, cursorTop?: number): TooltipRow[] {
    const rows: TooltipRow[] = [];
    const plot = this.plot;
    const cursorLeft = plot && cursorTop !== undefined ? plot.valToPos(x, "x") : 0;
    for (const line of this.lines) {
      const index = nearest(line.xs, x);
      if (index < 0) continue;
      const smoothed = line.smoothed[index]!;
      let distance = Infinity;
      if (plot && cursorTop !== undefined && Number.isFinite(smoothed)) {
        const dx = plot.valToPos(line.xs[index]!, "x") - cursorLeft;
        const dy = plot.valToPos(smoothed, "y") - cursorTop;
        if (Number.isFinite(dx) && Number.isFinite(dy)) distance = Math.hypot(dx, dy);
      }
      rows.push({
        run: line.run,
        label: line.label ?? line.run,
        color: line.color,
        smoothed,
        value: line.raw[index]!,
        step: line.steps[index]!,
        wallTime: line.wallTimes[index]!,
        distance,
      });
    }
    return rows;
  }

  /** Paints the highlighted run if it changed while this chart was out of view. */
  paintHighlightIfStale(): void {
    if ((this.hoverRun ?? highlighted()) !== (this.element.dataset.highlight ?? null)) this.paintHighlight();
  }

  /** Draws `run`'s lines highlighted in this chart only (null: back to the page's highlighted run). */
  focusRun(run: string | null): void {
    if (run === this.hoverRun) return;
    this.hoverRun = run;
    this.paintHighlight();
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
      cursorFromStillPointer();
    } else {
      this.plot.batch(() => {
        this.plot!.setData(data, false);
        this.plot!.setScale("x", { min: range[0], max: range[1] });
        this.plot!.setScale("y", { min: this.yRange[0], max: this.yRange[1] });
      });
    }
    this.element.dataset.columns = String(grid.size);
    this.element.dataset.xTitle = xTitleOf(this.options);
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
    const xAxis: uPlot.Axis =
      this.options.x === "relative"
        ? { values: (_u, splits) => splits.map(formatDuration) }
        : // Steps are whole numbers: so are their ticks (a tag logged at one step gets no tick at 4,998.25).
          this.options.x === "step" && !this.options.logX
          ? {
              incrs: INTEGER_INCREMENTS,
              values: (_u, splits) => {
                // The ticks are painted, not written: the chart says which they are (what a test reads).
                this.element.dataset.xTicks = splits.join(",");
                return splits.map((split) => STEP_TICKS.format(split));
              },
            }
          : {};
    return {
      width,
      height: heightFor(width, this.height),
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
      axes: [titledXAxis(xTitleOf(this.options), xAxis), valueAxis()],
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
          // Onto the tooltip is not away: the pointer moving over it still moves the cursor (pointerMoved).
          mouseleave: (_u, _target, handler) => (event) => (intoTooltip(event) ? null : handler(event)),
          dblclick: () => () => {
            this.resetZoom();
            return null;
          },
        },
      },
      hooks: {
        drawAxes: [(u) => this.drawUnderlay(u)],
        draw: [
          (u) => {
            this.paintMarkers(u);
            this.paintHighlight();
            const now = performance.now();
            this.element.dataset.drawMs = (now - this.drawStarted).toFixed(1);
            // The y range drawn (uPlot's scale, not the one asked for): what a test compares with the data shown.
            this.element.dataset.yScale = `${u.scales.y!.min},${u.scales.y!.max}`;
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
      const at = { context, size: columns.count.length, x, y };
      fillBetween(at, columns.max, columns.min, withAlpha(color, 0.35));
      // The raw line, where points are not already folded into the envelope.
      if (this.options.smoothing && this.lines[index]!.xs.length <= columns.count.length) {
        strokeLine(at, columns.raw, withAlpha(color, 0.3));
      }
    });
    if (this.bandColumns) {
      const { mean, std } = this.bandColumns;
      const upper = mean.map((value, index) => value + std[index]!);
      const lower = mean.map((value, index) => value - std[index]!);
      const foreground = chartTheme().foreground;
      const at = { context, size: mean.length, x, y };
      fillBetween(at, upper, lower, withAlpha(toHex(foreground), 0.15));
      context.setLineDash([6, 4]);
      strokeLine(at, mean, foreground);
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
      this.leave();
      return;
    }
    const rows = sortRows(this.rowsAt(u.posToVal(left, "x"), top), this.options.tooltipSort ?? "nearest");
    this.nearestRow = rows.reduce<TooltipRow | null>(
      (best, row) => (row.distance < (best?.distance ?? Infinity) ? row : best),
      null,
    );
    this.focusRun(this.nearestRow?.run ?? null);
    if (rows.length === 0) {
      hideTooltip(this);
      return;
    }
    // uPlot's own record of where its plot is (kept on scroll and resize): reading the element's place would lay the
    // page out again on every move, which costs more than the rest of the hover.
    const box = u.rect;
    const nearestLabel = this.nearestRow?.label ?? "";
    const key = `${this.drawStarted}|${nearestLabel}|${rows.map((row) => `${row.label}\u0000${row.step}`).join("\u0001")}`;
    showTooltip(this, key, () => this.tooltipContent(rows), box.left + left, box.top + top);
  }

  /** The tooltip's table: TOOLTIP_ROWS rows at most, fewer when the window holds fewer (the nearest first, when so
   * sorted), then a count of the rest; the mean ± std of the runs with the band. */
  private tooltipContent(rows: TooltipRow[]): TooltipContent {
    const fits = Math.min(TOOLTIP_ROWS, Math.max(3, Math.floor((window.innerHeight - TOOLTIP_CHROME) / ROW_PIXELS)));
    const shown = rows.length > fits ? rows.slice(0, fits - 1) : rows;
    const first = new Map(this.lines.map((line) => [line.run, line.wallTimes[0]!]));
    const nearestRun = this.nearestRow?.label;
    const runWidth = runColumnWidth(shown.map((row) => row.label));
    const finite = rows.map((row) => row.smoothed).filter(Number.isFinite);
    const mean = finite.reduce((sum, value) => sum + value, 0) / finite.length;
    const std = Math.sqrt(finite.reduce((sum, value) => sum + (value - mean) ** 2, 0) / finite.length);
    tooltipTable.fill(
      shown.map((row) => ({
        run: row.run,
        label: row.label,
        color: row.color,
        nearest: row.label === nearestRun,
        cells: [
          formatNumber(row.smoothed),
          formatNumber(row.value),
          String(row.step),
          formatDuration(row.wallTime - (first.get(row.run) ?? row.wallTime)),
        ],
      })),
      runWidth + OTHER_TOOLTIP_COLUMNS,
      shown.length < rows.length ? `and ${rows.length - shown.length} more runs` : "",
      this.options.band && finite.length > 1
        ? `mean ${formatNumber(mean)} ± std ${formatNumber(std)} over ${finite.length} runs`
        : "",
    );
    const shape = `${shown.length}|${runWidth}|${shown.length < rows.length}|${this.options.band && finite.length > 1}`;
    return { nodes: [tooltipTable.element, tooltipTable.more, tooltipTable.band], shape };
  }

  pointerMoved(at: PointerAt): void {
    followPointer(this.plot, at, () => this.leave());
  }

  pointerLeft(event: MouseEvent): void {
    leavePointer(this.plot, this.element, event, () => this.leave());
  }

  private leave(): void {
    this.nearestRow = null;
    hideTooltip(this);
    this.focusRun(null);
  }

  /** A click (not a drag) near a line picks its run. */
  private pick(event: MouseEvent): void {
    const plot = this.plot;
    if (!plot || plot.select.width > 2) return;
    const box = plot.over.getBoundingClientRect();
    const [left, top] = [event.clientX - box.left, event.clientY - box.top];
    if (left < 0 || top < 0 || left > box.width || top > box.height) return;
    // The line drawn nearest above or below the click: each line's smoothed value at the click's x, between its
    // points on either side.
    const x = plot.posToVal(left, "x");
    let picked: string | null = null;
    let best = PICK_PIXELS;
    for (const line of this.lines) {
      const value = interpolate(line.xs, line.smoothed, x);
      const distance = Math.abs(plot.valToPos(value, "y") - top);
      if (distance <= best) [picked, best] = [line.run, distance];
    }
    if (picked === null) return;
    this.element.dispatchEvent(new CustomEvent(PICK_RUN, { bubbles: true, detail: picked }));
  }

  /** The highlighted run's lines drawn thick on a canvas of their own over the plot, the other lines dimmed by a veil
   * of the background (a plain element: the compositor blends it, nothing is painted for it): only this canvas is
   * painted again when the highlighted run changes, with the paths uPlot built for those lines. A chart out of view
   * is painted when it comes into view. */
  private paintHighlight(): void {
    const plot = this.plot;
    const run = this.hoverRun ?? highlighted();
    const indices = run === null ? [] : this.lines.flatMap((line, index) => (line.run === run ? [index] : []));
    if (!plot || indices.length === 0) {
      // Out of the page while nothing is highlighted: the chart is then one canvas, as uPlot draws it.
      this.highlightCanvas.remove();
      this.veil.remove();
      this.paintedHighlight = null;
      delete this.element.dataset.highlight;
      return;
    }
    if (!inView.has(this.element)) {
      // Painted when it comes into view (paintHighlightIfStale).
      this.highlightCanvas.remove();
      this.veil.remove();
      this.paintedHighlight = null;
      delete this.element.dataset.highlight;
      return;
    }
    const canvas = this.highlightCanvas;
    const target = plot.ctx.canvas;
    if (canvas.previousElementSibling !== this.veil || this.veil.previousElementSibling !== target) {
      target.after(this.veil, canvas);
    }
    const over = plot.over.style;
    const veil = this.veil.style;
    [veil.left, veil.top, veil.width, veil.height] = [over.left, over.top, over.width, over.height];
    veil.background = chartTheme().background;
    if (canvas.width !== target.width || canvas.height !== target.height) {
      canvas.width = target.width;
      canvas.height = target.height;
    } else {
      const last = this.paintedHighlight;
      if (last) this.context.clearRect(last.left, last.top, last.width, last.height);
    }
    canvas.style.width = target.style.width;
    canvas.style.height = target.style.height;
    const context = this.context;
    const { left, top, width, height } = plot.bbox;
    // The line's width spills past the plot: that much more is cleared next time.
    const spill = HIGHLIGHT_WIDTH * devicePixelRatio;
    this.paintedHighlight = {
      left: left - spill,
      top: top - spill,
      width: width + 2 * spill,
      height: height + 2 * spill,
    };
    context.save();
    context.beginPath();
    context.rect(left, top, width, height);
    context.clip();
    const xs = plot.data[0];
    const x = (index: number) => plot.valToPos(xs[index]!, "x", true);
    const y = (value: number) => plot.valToPos(value, "y", true);
    for (const index of indices) {
      const columns = this.columns[index];
      const line = this.lines[index]!;
      if (!columns) continue;
      if (this.drawnPoints(index) === 1) {
        const at = columns.line.findIndex(Number.isFinite);
        context.fillStyle = line.color;
        context.beginPath();
        context.arc(x(at), y(columns.line[at]!), 5 * devicePixelRatio, 0, 2 * Math.PI);
        context.fill();
        continue;
      }
      // The path uPlot stroked for this line (its pixels, built once per draw); built again where it has none.
      const path = (plot.series[index + 1] as { _paths?: { stroke?: unknown } } | undefined)?._paths?.stroke;
      if (path instanceof Path2D) {
        context.strokeStyle = line.color;
        context.lineWidth = HIGHLIGHT_WIDTH * devicePixelRatio;
        context.setLineDash((line.dash ?? []).map((length) => length * devicePixelRatio));
        context.stroke(path);
        context.setLineDash([]);
      } else strokeLine({ context, size: columns.line.length, x, y }, columns.line, line.color, HIGHLIGHT_WIDTH);
    }
    context.restore();
    this.element.dataset.highlight = run!;
  }

  /** Each marked line's shape every MARKER_SPACING pixels along it. */
  private paintMarkers(u: uPlot): void {
    const xs = u.data[0];
    const context = u.ctx;
    const size = 4 * devicePixelRatio;
    context.save();
    context.beginPath();
    context.rect(u.bbox.left, u.bbox.top, u.bbox.width, u.bbox.height);
    context.clip();
    this.lines.forEach((line, index) => {
      const columns = this.columns[index];
      if (line.marker === undefined || !columns) return;
      const shape = MARKERS[line.marker % MARKERS.length]!;
      const every = Math.max(1, Math.round((MARKER_SPACING * devicePixelRatio * xs.length) / u.bbox.width));
      context.fillStyle = line.color;
      context.strokeStyle = line.color;
      context.lineWidth = 1.5 * devicePixelRatio;
      // Each line's marks start at a different column, so that marks of lines on top of each other stay apart.
      for (let column = (index * 7) % every; column < columns.line.length; column += every) {
        const value = columns.line[column]!;
        if (!Number.isFinite(value)) continue;
        drawMarker(context, shape, u.valToPos(xs[column]!, "x", true), u.valToPos(value, "y", true), size);
      }
    });
    context.restore();
  }
}

/** The plot's height at `width`: `least`, or more for a wide chart. */
function heightFor(width: number, least: number): number {
  const wide = Math.min(Math.round(width * ASPECT), Math.round(window.innerHeight * WINDOW_SHARE), TALLEST);
  return Math.max(least, wide);
}

/** `rows` in the tooltip's order (NaN values last when sorted by value). */
export function sortRows(rows: TooltipRow[], order: TooltipSort): TooltipRow[] {
  const byValue = (sign: number) => (a: TooltipRow, b: TooltipRow) =>
    Number.isNaN(a.smoothed) ? 1 : Number.isNaN(b.smoothed) ? -1 : sign * (a.smoothed - b.smoothed);
  const compare: Record<TooltipSort, (a: TooltipRow, b: TooltipRow) => number> = {
    nearest: (a, b) => a.distance - b.distance || a.label.localeCompare(b.label),
    alphabetical: (a, b) => a.label.localeCompare(b.label),
    ascending: byValue(1),
    descending: byValue(-1),
  };
  return [...rows].sort(compare[order]);
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

/** The tooltip's run column's width for these labels. */
export function runColumnWidth(labels: string[]): number {
  const longest = Math.max(...labels.map(textWidth));
  return Math.min(RUN_COLUMN_MAX, Math.max(RUN_COLUMN_MIN, Math.ceil(longest + CELL_PADDING)));
}

const measuring = document.createElement("canvas").getContext("2d");
const textWidths = new Map<string, number>();

/** The width of `text` in the tooltip's font, measured once per text. */
function textWidth(text: string): number {
  let width = textWidths.get(text);
  if (width === undefined) {
    if (measuring) measuring.font = TOOLTIP_FONT;
    width = measuring ? measuring.measureText(text).width : text.length * 7;
    textWidths.set(text, width);
  }
  return width;
}
