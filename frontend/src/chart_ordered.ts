// A chart whose lines follow their points in step order, for an x that is not monotonic (a tag as the x axis that goes
// up and down, such as a cyclic learning rate): uPlot's own lines, cursor and zoom assume that x grows, so this chart
// draws each line through its points in their order and does its own hover and zoom. Hovering shows each run's point
// nearest to the cursor in pixels in the page's tooltip (sorted as chosen, the nearest run first by default) and rings
// the nearest point; a drag selects a box to zoom into (x and y), double-click or 0 resets.

import uPlot from "uplot";
import { OTHER_TOOLTIP_COLUMNS, formatDuration, runColumnWidth, sortRows, type Line, type TooltipRow } from "./chart";
import { titledXAxis, valueAxis } from "./chart_theme";
import { formatNumber, h } from "./dom";
import { formatTick } from "./nice_ticks";
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
import type { TooltipSort } from "./state";
import { TooltipTable } from "./tooltip_table";

const HEIGHT = 240;
// The tooltip's rows at most (a count of the rest below them), as on the other charts.
const TOOLTIP_ROWS = 10;
// A drag shorter than this (CSS pixels) both ways is a click, not a box.
const LEAST_BOX = 3;
// Room around the points (a share of their span), so that no point sits on the plot's edge.
const PADDING = 0.04;

/** A run's point in the tooltip, with where it is drawn (pixels in the plot). */
interface NearRow extends TooltipRow {
  left: number;
  top: number;
}

interface Box {
  x: [number, number];
  y: [number, number];
}

const tooltipTable = new TooltipTable();

export class OrderedChart implements TooltipOwner {
  readonly element: HTMLElement;
  private readonly ring = h("div", { class: "nearest-point", hidden: true });
  private plot: uPlot | null = null;
  private lines: Line[] = [];
  private title = "";
  private sort: TooltipSort = "nearest";
  private extent: Box = { x: [0, 1], y: [0, 1] };
  private zoom: Box | null = null;
  private width = 0;
  private readonly resize: ResizeObserver;

  constructor(label: string) {
    this.element = h("div", {
      class: "plot ordered-plot",
      tabindex: 0,
      "aria-label": `${label}: drag a box to zoom, double-click or 0 to reset`,
    });
    this.element.addEventListener("keydown", (event) => {
      if (event.key !== "0") return;
      event.preventDefault();
      this.resetZoom();
    });
    this.element.addEventListener("mouseleave", (event) => {
      if (!intoTooltip(event)) this.leave();
    });
    this.resize = new ResizeObserver(() => {
      if (this.plot && this.element.clientWidth !== this.width) this.render();
    });
    this.resize.observe(this.element);
  }

  /** Draws `lines` (x titled `title`); the zoom is kept while the title (the x tag) stays. */
  set(lines: Line[], title: string, sort: TooltipSort): void {
    if (title !== this.title) this.zoom = null;
    this.lines = lines;
    this.title = title;
    this.sort = sort;
    this.extent = extentOf(lines);
    this.render();
  }

  destroy(): void {
    this.leave();
    this.resize.disconnect();
    this.plot?.destroy();
    this.plot = null;
  }

  resetZoom(): void {
    this.zoom = null;
    this.rescale();
  }

  /** Each line's shown point nearest to (left, top), pixels in the plot (its distance from there in each row). */
  rowsNear(left: number, top: number): NearRow[] {
    const plot = this.plot;
    if (!plot) return [];
    const { x, y } = this.zoom ?? this.extent;
    const width = plot.bbox.width / devicePixelRatio;
    const height = plot.bbox.height / devicePixelRatio;
    // The scales are linear: a point's pixels by arithmetic, not valToPos's call per point (60 runs x 1,000 points
    // on every move).
    const perX = width / (x[1] - x[0]);
    const perY = height / (y[1] - y[0]);
    const rows: NearRow[] = [];
    const leftOf = (value: number) => (value - x[0]) * perX;
    const topOf = (value: number) => height - (value - y[0]) * perY;
    for (const line of this.lines) {
      let best = -1;
      let bestSquare = Infinity;
      for (let i = 0; i < line.xs.length; i++) {
        const valueX = line.xs[i]!;
        const valueY = line.smoothed[i]!;
        if (!(valueX >= x[0] && valueX <= x[1] && valueY >= y[0] && valueY <= y[1])) continue;
        const dx = leftOf(valueX) - left;
        const dy = topOf(valueY) - top;
        const square = dx * dx + dy * dy;
        if (square < bestSquare) [best, bestSquare] = [i, square];
      }
      if (best < 0) continue;
      rows.push({
        run: line.run,
        label: line.label ?? line.run,
        color: line.color,
        smoothed: line.smoothed[best]!,
        value: line.raw[best]!,
        step: line.steps[best]!,
        wallTime: line.wallTimes[best]!,
        distance: Math.sqrt(bestSquare),
        left: leftOf(line.xs[best]!),
        top: topOf(line.smoothed[best]!),
      });
    }
    return rows;
  }

  pointerMoved(at: PointerAt): void {
    followPointer(this.plot, at, () => this.leave());
  }

  pointerLeft(event: MouseEvent): void {
    leavePointer(this.plot, this.element, event, () => this.leave());
  }

  private render(): void {
    this.plot?.destroy();
    this.element.replaceChildren();
    this.width = this.element.clientWidth;
    const series: uPlot.Series[] = [
      {},
      ...this.lines.map((line) => ({
        label: line.run,
        stroke: line.color,
        dash: line.dash?.length ? [...line.dash] : undefined,
        width: this.lines.length > 10 ? 1 : 1.5,
        facets: [
          { scale: "x", auto: false },
          { scale: "y", auto: false },
        ],
        paths: inOrder,
        points: { show: line.xs.length === 1 },
      })),
    ];
    const data = [null, ...this.lines.map((line) => [line.xs, line.smoothed])] as unknown as uPlot.AlignedData;
    const options: uPlot.Options = {
      mode: 2,
      width: Math.max(200, this.width || 400),
      height: HEIGHT,
      legend: { show: false },
      scales: {
        x: { time: false, auto: false, range: () => (this.zoom ?? this.extent).x },
        y: { auto: false, range: () => (this.zoom ?? this.extent).y },
      },
      axes: [titledXAxis(this.title, { values: (_u, splits) => splits.map(formatTick) }), valueAxis()],
      series,
      cursor: {
        drag: { x: true, y: true, setScale: false },
        points: { show: false },
        // The nearest point is this chart's to find (rowsNear): uPlot's search assumes x grows.
        dataIdx: () => null as unknown as number,
        bind: {
          mouseleave: (_u, _target, handler) => (event) => (intoTooltip(event) ? null : handler(event)),
          dblclick: () => () => {
            this.resetZoom();
            return null;
          },
        },
      },
      hooks: {
        setCursor: [(u) => this.hover(u)],
        setSelect: [(u) => this.onSelect(u)],
        draw: [
          (u) => {
            // The ranges drawn: what a test compares with the box it dragged.
            this.element.dataset.scales = [u.scales.x!.min, u.scales.x!.max, u.scales.y!.min, u.scales.y!.max].join(
              ",",
            );
            this.element.dataset.zoomed = String(this.zoom !== null);
          },
        ],
      },
    };
    this.plot = new uPlot(options, data, this.element);
    this.plot.over.append(this.ring);
    this.element.dataset.xTitle = this.title;
  }

  private rescale(): void {
    const plot = this.plot;
    if (!plot) return;
    const { x, y } = this.zoom ?? this.extent;
    plot.batch(() => {
      plot.setScale("x", { min: x[0], max: x[1] });
      plot.setScale("y", { min: y[0], max: y[1] });
    });
  }

  private onSelect(u: uPlot): void {
    const { left, top, width, height } = u.select;
    if (width < LEAST_BOX && height < LEAST_BOX) return;
    u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
    // A flat drag (uPlot gives it the plot's whole height) zooms x alone, and a tall one y alone.
    const x: [number, number] = [u.posToVal(left, "x"), u.posToVal(left + width, "x")];
    const y: [number, number] = [u.posToVal(top + height, "y"), u.posToVal(top, "y")];
    if (!(x[1] > x[0] && y[1] > y[0])) return;
    this.zoom = { x, y };
    this.leave();
    this.rescale();
  }

  private hover(u: uPlot): void {
    const { left, top } = u.cursor;
    if (left === undefined || top === undefined || left < 0 || this.lines.length === 0) {
      this.leave();
      return;
    }
    const rows = this.rowsNear(left, top);
    const nearest = rows.reduce<NearRow | null>(
      (best, row) => (row.distance < (best?.distance ?? Infinity) ? row : best),
      null,
    );
    if (!nearest) {
      this.leave();
      return;
    }
    this.placeRing(nearest);
    const sorted = sortRows(rows, this.sort);
    const key = `${this.title}|${nearest.label}|${sorted.map((row) => `${row.label}\u0000${row.step}`).join("\u0001")}`;
    const box = u.rect;
    showTooltip(this, key, () => this.tooltipContent(sorted, nearest), box.left + left, box.top + top);
  }

  /** Rings the nearest run's point, in its colour. */
  private placeRing(row: NearRow): void {
    this.ring.hidden = false;
    this.ring.style.borderColor = row.color;
    this.ring.style.left = `${row.left}px`;
    this.ring.style.top = `${row.top}px`;
    this.element.dataset.nearest = row.run;
  }

  private tooltipContent(rows: TooltipRow[], nearest: TooltipRow): TooltipContent {
    const shown = rows.length > TOOLTIP_ROWS ? rows.slice(0, TOOLTIP_ROWS - 1) : rows;
    const first = new Map(this.lines.map((line) => [line.run, line.wallTimes[0]!]));
    const runWidth = runColumnWidth(shown.map((row) => row.label));
    tooltipTable.fill(
      shown.map((row) => ({
        run: row.run,
        label: row.label,
        color: row.color,
        nearest: row === nearest,
        cells: [
          formatNumber(row.smoothed),
          formatNumber(row.value),
          String(row.step),
          formatDuration(row.wallTime - (first.get(row.run) ?? row.wallTime)),
        ],
      })),
      runWidth + OTHER_TOOLTIP_COLUMNS,
      shown.length < rows.length ? `and ${rows.length - shown.length} more runs` : "",
      "",
    );
    return {
      nodes: [tooltipTable.element, tooltipTable.more, tooltipTable.band],
      shape: `${shown.length}|${runWidth}|${shown.length < rows.length}`,
    };
  }

  private leave(): void {
    this.ring.hidden = true;
    delete this.element.dataset.nearest;
    hideTooltip(this);
  }
}

/** The finite points' ranges, with room around them (a single value gets a range of its own). */
function extentOf(lines: Line[]): Box {
  const range = (arrays: Float64Array[]): [number, number] => {
    let [low, high] = [Infinity, -Infinity];
    for (const values of arrays)
      for (const value of values) {
        if (!Number.isFinite(value)) continue;
        if (value < low) low = value;
        if (value > high) high = value;
      }
    if (low > high) return [0, 1];
    if (low === high) return [low - (Math.abs(low) || 1) / 2, high + (Math.abs(high) || 1) / 2];
    const room = (high - low) * PADDING;
    return [low - room, high + room];
  };
  return { x: range(lines.map((line) => line.xs)), y: range(lines.map((line) => line.smoothed)) };
}

/** A line through the points in their order (uPlot's own paths assume x grows); a non-finite value breaks it. */
const inOrder: uPlot.Series.PathBuilder = (u, index) => {
  const [xs, ys] = (u.data as unknown as [Float64Array, Float64Array][])[index]!;
  const stroke = new Path2D();
  let pen = false;
  for (let i = 0; i < xs.length; i++) {
    const x = xs[i]!;
    const y = ys[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      pen = false;
      continue;
    }
    const left = u.valToPos(x, "x", true);
    const top = u.valToPos(y, "y", true);
    if (pen) stroke.lineTo(left, top);
    else stroke.moveTo(left, top);
    pen = true;
  }
  return { stroke, fill: null, clip: null, flags: 0 };
};
