// A Time Series scalar card: the scalars dashboard's chart of every shown run, with TensorBoard's step selector (click
// the chart, or drag its line) and a table of each run's point there; shift-click (or a second line's drag) selects a
// range, whose table gives each run's min, max and mean over every logged point in it.

import { scalarsMultirun, wholeScalarSeries, type ScalarSeries } from "./api";
import { Chart, formatDuration, nearest, type Line } from "./chart";
import { formatCount, formatNumber, h } from "./dom";
import { chartOptions, linesFor, queued } from "./scalars";
import { state, type XAxis } from "./state";

// A press that moves fewer pixels than this before it is let go is a click (a longer one zooms).
const CLICK_PIXELS = 3;

interface RangeRow {
  run: string;
  color: string;
  min: number;
  max: number;
  mean: number;
  points: number;
  firstStep: number;
  lastStep: number;
}

export class ScalarCard {
  readonly element: HTMLElement;
  private readonly chart: Chart;
  private readonly markers: [HTMLElement, HTMLElement];
  private readonly shade = h("div", { class: "range-shade", hidden: true });
  private readonly table = h("div", { class: "step-table" });
  private series = new Map<string, ScalarSeries>();
  private lines: Line[] = [];
  private stale = true;
  private loading: Promise<void> | null = null;
  /** The selected step (x on the chart's axis), and the range's other end when a range is selected. */
  private start: number | null = null;
  private end: number | null = null;
  /** Every logged point of each run, fetched once a range is selected (the chart's series are downsampled). */
  private whole = new Map<string, Promise<ScalarSeries | null>>();
  private tableVersion = 0;

  constructor(readonly tag: string) {
    this.chart = new Chart(tag);
    this.markers = [this.marker(0), this.marker(1)];
    this.chart.element.append(this.shade, ...this.markers);
    this.element = h("div", { class: "scalar-card" }, this.chart.element, this.table);
    this.chart.element.addEventListener("chart:drawn", () => this.placeMarkers());
    let pressed: MouseEvent | null = null;
    this.chart.element.addEventListener("mousedown", (event) => (pressed = event), { capture: true });
    this.chart.element.addEventListener(
      "click",
      (event) => {
        const moved = pressed ? Math.abs(event.clientX - pressed.clientX) : 0;
        pressed = null;
        if (moved > CLICK_PIXELS || (event.target as HTMLElement).closest(".step-marker")) return;
        const x = this.snap(this.chart.valueAt(event.clientX));
        if (x === null) return;
        if (event.shiftKey && this.start !== null) this.select(this.start, x);
        else this.select(x, null);
      },
      { capture: true },
    ); // uPlot stops a shift-click (the chart's pan) on its way up
  }

  /** Marks the data for a new fetch: the next show asks for it again. */
  invalidate(): void {
    this.stale = true;
    this.whole.clear();
  }

  /** Draws the shown runs, fetching those not loaded (or all, when the data may have changed). */
  async show(runs: string[]): Promise<void> {
    const missing = this.stale ? runs : runs.filter((run) => !this.series.has(run));
    if (missing.length) {
      this.loading ??= this.load(missing);
      await this.loading;
    }
    this.draw();
  }

  draw(): void {
    this.lines = linesFor(this.series);
    this.chart.set(this.lines, { ...chartOptions(), ignoreOutliers: state.ignoreOutliers });
    this.element.dataset.runs = String(this.lines.length);
    this.renderTable();
  }

  /** The chart's height in pixels; null: the default. */
  setHeight(pixels: number | null): void {
    this.chart.setHeight(pixels);
  }

  destroy(): void {
    this.chart.destroy();
  }

  private async load(runs: string[]): Promise<void> {
    this.element.classList.add("loading");
    try {
      const found = await queued(() => scalarsMultirun(this.tag, runs));
      for (const [run, series] of found) this.series.set(run, series);
      this.stale = false;
    } catch (error) {
      this.element.dataset.error = String(error);
    } finally {
      this.loading = null;
      this.element.classList.remove("loading");
    }
  }

  private marker(index: 0 | 1): HTMLElement {
    const marker = h("div", {
      class: "step-marker",
      hidden: true,
      role: "slider",
      tabindex: 0,
      "aria-label": index === 0 ? "Selected step" : "End of the selected range",
    });
    marker.addEventListener("pointerdown", (event) => {
      event.preventDefault();
      event.stopPropagation();
      marker.setPointerCapture(event.pointerId);
      const move = (moved: PointerEvent) => {
        const x = this.snap(this.chart.valueAt(moved.clientX));
        if (x === null) return;
        if (index === 0) this.select(x, this.end);
        else this.select(this.start, x);
      };
      const up = () => {
        marker.removeEventListener("pointermove", move);
        marker.removeEventListener("pointerup", up);
      };
      marker.addEventListener("pointermove", move);
      marker.addEventListener("pointerup", up);
    });
    marker.addEventListener("keydown", (event) => {
      const by = event.key === "ArrowRight" ? 1 : event.key === "ArrowLeft" ? -1 : 0;
      const at = index === 0 ? this.start : this.end;
      if (!by || at === null) return;
      event.preventDefault();
      const x = this.neighbour(at, by);
      if (index === 0) this.select(x, this.end);
      else this.select(this.start, x);
    });
    return marker;
  }

  private select(start: number | null, end: number | null): void {
    this.start = start;
    this.end = end !== null && end !== start ? end : null;
    this.placeMarkers();
    this.renderTable();
  }

  /** The x of the drawn point nearest to `x`, of any run. */
  private snap(x: number | null): number | null {
    if (x === null || !Number.isFinite(x)) return null;
    let best: number | null = null;
    for (const line of this.lines) {
      const index = nearest(line.xs, x);
      const found = line.xs[index];
      if (found !== undefined && (best === null || Math.abs(found - x) < Math.abs(best - x))) best = found;
    }
    return best;
  }

  /** The x of the next point after `x` (by = 1) or before it (by = -1), of any run; `x` when there is none. */
  private neighbour(x: number, by: 1 | -1 | 0): number {
    let best = x;
    for (const line of this.lines) {
      for (const candidate of line.xs) {
        if (by * (candidate - x) > 0 && (best === x || by * (candidate - best) < 0)) best = candidate;
      }
    }
    return best;
  }

  private placeMarkers(): void {
    const ends = [this.start, this.end];
    const places = ends.map((x) => (x === null ? null : this.chart.placeOf(x)));
    this.markers.forEach((marker, index) => {
      const place = places[index];
      marker.hidden = !place;
      if (!place) return;
      marker.style.left = `${place.left}px`;
      marker.style.top = `${place.top}px`;
      marker.style.height = `${place.height}px`;
      marker.setAttribute("aria-valuenow", String(ends[index]));
    });
    const [first, second] = places;
    this.shade.hidden = !(first && second);
    if (first && second) {
      this.shade.style.left = `${Math.min(first.left, second.left)}px`;
      this.shade.style.width = `${Math.abs(second.left - first.left)}px`;
      this.shade.style.top = `${first.top}px`;
      this.shade.style.height = `${first.height}px`;
    }
  }

  private renderTable(): void {
    const version = ++this.tableVersion;
    if (this.start === null || this.lines.length === 0) {
      this.table.replaceChildren();
      delete this.element.dataset.selected;
      return;
    }
    this.element.dataset.selected = this.end === null ? "step" : "range";
    if (this.end === null) {
      this.table.replaceChildren(this.stepTable(this.start));
      return;
    }
    const [low, high] = this.start < this.end ? [this.start, this.end] : [this.end, this.start];
    this.table.replaceChildren(h("p", { class: "readout" }, "Reading every point in the range…"));
    void this.rangeRows(low, high).then(({ rows, every }) => {
      if (version === this.tableVersion) this.table.replaceChildren(this.rangeTable(low, high, rows, every));
    });
  }

  private stepTable(x: number): HTMLElement {
    const rows = this.chart.rowsAt(x);
    const first = new Map(this.lines.map((line) => [line.run, line.wallTimes[0]!]));
    return table(
      `At ${axisName(state.x)} ${formatX(x, state.x)}`,
      ["Run", "Smoothed", "Value", "Step", "Relative"],
      rows.map((row) => [
        row.run,
        row.color,
        [
          ["smoothed", formatNumber(row.smoothed)],
          ["value", formatNumber(row.value)],
          ["step", String(row.step)],
          ["relative", formatDuration(row.wallTime - (first.get(row.run) ?? row.wallTime))],
        ],
      ]),
      this.clearButton(),
    );
  }

  private rangeTable(low: number, high: number, rows: RangeRow[], every: boolean): HTMLElement {
    const of = every ? "every logged point" : "the drawn points (downsampled)";
    return table(
      `${axisName(state.x)} ${formatX(low, state.x)} to ${formatX(high, state.x)}: over ${of}`,
      ["Run", "Min", "Max", "Mean", "Points", "First step", "Last step"],
      rows.map((row) => [
        row.run,
        row.color,
        [
          ["min", formatNumber(row.min)],
          ["max", formatNumber(row.max)],
          ["mean", formatNumber(row.mean)],
          ["points", formatCount(row.points)],
          ["first-step", String(row.firstStep)],
          ["last-step", String(row.lastStep)],
        ],
      ]),
      this.clearButton(),
    );
  }

  private clearButton(): HTMLElement {
    return h(
      "button",
      { type: "button", class: "clear-selection", onclick: () => this.select(null, null) },
      "Clear selection",
    );
  }

  /** Each run's min, max and mean over its points in [low, high]: of every logged point (data/trainboard/scalars), or
   * of the drawn series where that is not served. */
  private async rangeRows(low: number, high: number): Promise<{ rows: RangeRow[]; every: boolean }> {
    const found = await Promise.all(this.lines.map((line) => this.wholeSeries(line.run)));
    const every = found.every((series) => series !== null);
    const rows: RangeRow[] = [];
    this.lines.forEach((line, index) => {
      const series = (every && found[index]) || { steps: line.steps, wallTimes: line.wallTimes, values: line.raw };
      const xs = xsOf(series, state.x);
      let [min, max, sum, finite, points, firstStep, lastStep] = [Infinity, -Infinity, 0, 0, 0, NaN, NaN];
      for (let i = 0; i < xs.length; i++) {
        if (xs[i]! < low || xs[i]! > high) continue;
        const value = series.values[i]!;
        if (points === 0) firstStep = series.steps[i]!;
        lastStep = series.steps[i]!;
        points++;
        if (!Number.isFinite(value)) continue;
        min = Math.min(min, value);
        max = Math.max(max, value);
        sum += value;
        finite++;
      }
      if (points === 0) return;
      rows.push({
        run: line.run,
        color: line.color,
        min: finite ? min : NaN,
        max: finite ? max : NaN,
        mean: finite ? sum / finite : NaN,
        points,
        firstStep,
        lastStep,
      });
    });
    return { rows, every };
  }

  private wholeSeries(run: string): Promise<ScalarSeries | null> {
    let found = this.whole.get(run);
    if (!found) {
      found = wholeScalarSeries([run], this.tag)
        .then((series) => series.get(run) ?? null)
        .catch(() => null);
      this.whole.set(run, found);
    }
    return found;
  }
}

/** A series' x on the chart's axis, as the scalars dashboard computes it. */
function xsOf(series: ScalarSeries, x: XAxis): Float64Array {
  if (x === "step") return series.steps;
  if (x === "wall") return series.wallTimes;
  const start = series.wallTimes[0] ?? 0;
  return series.wallTimes.map((time) => time - start);
}

function axisName(x: XAxis): string {
  return x === "step" ? "Step" : x === "relative" ? "Relative time" : "Wall time";
}

function formatX(value: number, x: XAxis): string {
  if (x === "relative") return formatDuration(value);
  if (x === "wall") return new Date(value * 1000).toLocaleString();
  return String(value);
}

/** A table of one row per run: its colour and name, then its cells (class, text). */
function table(
  caption: string,
  headings: string[],
  rows: [string, string, [string, string][]][],
  action: HTMLElement,
): HTMLElement {
  return h(
    "div",
    {},
    h("div", { class: "step-table-head" }, h("span", { class: "caption" }, caption), action),
    h(
      "table",
      {},
      h("thead", {}, h("tr", {}, ...headings.map((heading) => h("th", {}, heading)))),
      h(
        "tbody",
        {},
        ...rows.map(([run, color, cells]) =>
          h(
            "tr",
            { "data-run": run },
            h(
              "td",
              { class: "run-name", title: run },
              h("span", { class: "swatch", style: `background:${color}` }),
              h("span", { class: "name" }, run),
            ),
            ...cells.map(([name, text]) => h("td", { class: name }, text)),
          ),
        ),
      ),
    ),
  );
}
