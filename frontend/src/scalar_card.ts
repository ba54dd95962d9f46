// The scalar chart card of the Scalars and Time Series pages: every shown run's line of one tag (fetched in one request
// when the card comes near the screen), downloads of every point, and the groups' chart when runs are grouped. On
// Time Series it has TensorBoard's step selector (click the chart, or drag its line) and a table of each run's point
// there; shift-click (or a second line's drag) selects a range, whose table gives each run's min, max and mean over
// every logged point in it.

import { everyPointUrl, scalarsMultirun, serverCapabilities, wholeScalarSeries, type ScalarSeries } from "./api";
import { formatDuration, sortRows, type ChartOptions, type Line } from "./chart";
import { nearest } from "./chart_ranges";
import { drawTurn } from "./card_grid";
import { ChartCard } from "./chart_card";
import { colorOf, dashOf } from "./colors";
import { download, formatCount, formatNumber, h } from "./dom";
import * as grouping from "./groups";
import { selectedRuns } from "./runs";
import { smooth } from "./smoothing";
import { state, type CardSize, type XAxis } from "./state";
import * as xAxis from "./x_axis";

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

export interface ScalarCardParts {
  className?: string;
  attributes?: Record<string, string>;
  /** The page's buttons (pin, wider), before the card's own. */
  actions?: HTMLElement[];
  /** TensorBoard's step selector and its table (Time Series). */
  stepSelection?: boolean;
  /** The groups' chart in place of the runs' while runs are grouped (Scalars). */
  groups?: boolean;
  /** The y range from the 5th to the 95th percentile (Time Series' setting). */
  ignoreOutliers?: () => boolean;
}

export class ScalarCard {
  readonly element: HTMLElement;
  readonly frame: ChartCard;
  private readonly markers: [HTMLElement, HTMLElement];
  private readonly shade = h("div", { class: "range-shade", hidden: true });
  private readonly table = h("div", { class: "step-table" });
  private series = new Map<string, ScalarSeries>();
  private lines: Line[] = [];
  private stale = true;
  /** The x tag the series were fetched with ("": none). */
  private fetchedFor = "";
  private loading: Promise<void> | null = null;
  /** The selected step (x on the chart's axis), and the range's other end when a range is selected. */
  private start: number | null = null;
  private end: number | null = null;
  /** Every logged point of each run, fetched once a range is selected (the chart's series are downsampled). */
  private whole = new Map<string, Promise<ScalarSeries | null>>();
  private tableVersion = 0;

  constructor(
    readonly tag: string,
    private readonly parts: ScalarCardParts,
  ) {
    const description = describe(tag);
    this.frame = new ChartCard({
      key: tag, // its log-y and legend choices, in its page's state
      title: description && description !== tag ? `${tag} (${description})` : tag,
      hint: tag,
      className: parts.className,
      attributes: { "data-tag": tag, ...parts.attributes },
      actions: parts.actions,
      menu: [
        h("button", { type: "button", class: "csv", onclick: () => void this.download("csv") }, "Download CSV"),
        h("button", { type: "button", class: "json", onclick: () => void this.download("json") }, "Download JSON"),
        this.parquetButton(),
      ],
    });
    this.element = this.frame.element;
    this.markers = [this.marker(0), this.marker(1)];
    if (parts.stepSelection) this.listenForSteps();
  }

  private get chart() {
    return this.frame.chart;
  }

  private listenForSteps(): void {
    this.chart.element.append(this.shade, ...this.markers);
    const holder = h("div", { class: "scalar-card" });
    this.chart.element.replaceWith(holder);
    holder.append(this.chart.element, this.table);
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

  /** Draws the shown runs, fetching those not loaded (or all, when the data may have changed); their groups instead
   * while runs are grouped. */
  async show(runs: string[]): Promise<void> {
    if (this.parts.groups && grouping.active()) {
      return grouping.drawCard(this.element, this.chart.element, this.tag, selectedRuns());
    }
    if (this.parts.groups) grouping.clearCard(this.element, this.chart.element);
    if (this.fetchedFor !== xAxis.fetchedFor()) this.invalidate();
    const missing = this.stale ? runs : runs.filter((run) => !this.series.has(run));
    if (missing.length) {
      this.loading ??= this.load(missing);
      await this.loading;
      await drawTurn(); // new data: drawn at its turn, one new chart per frame (a redraw of data in hand waits not)
    }
    // A load that started before the x axis changed brought the other axis's series: again, for this one.
    if (this.fetchedFor !== xAxis.fetchedFor()) return this.show(runs);
    this.draw();
  }

  draw(): void {
    this.lines = linesFor(this.series);
    this.frame.set(this.lines, { ...chartOptions(), ignoreOutliers: this.parts.ignoreOutliers?.() ?? false });
    xAxis.drawCard(this.element, this.chart.element, this.lines, this.fetchedFor);
    this.element.dataset.runs = String(this.lines.length);
    this.element.dataset.points = String(this.lines.reduce((sum, line) => sum + line.xs.length, 0));
    // The last step drawn: what a test compares with the server's while the data grows.
    this.element.dataset.lastStep = String(
      this.lines.reduce((last, line) => Math.max(last, line.steps.at(-1) ?? last), -1),
    );
    if (this.parts.stepSelection) this.renderTable();
  }

  setSize(size: CardSize): void {
    this.frame.setSize(size);
  }

  destroy(): void {
    this.frame.destroy();
  }

  /** The chart's runs with every point of their series (the chart draws a downsampled series), smoothed as shown. */
  private async download(format: "csv" | "json"): Promise<void> {
    const runs = this.lines.map((line) => line.run);
    if (xAxis.active()) return xAxis.downloadAgainst(runs, this.tag, format);
    const found = await wholeScalarSeries(runs, this.tag);
    const empty = { steps: new Float64Array(), wallTimes: new Float64Array(), values: new Float64Array() };
    const series = runs.map((run) => found.get(run) ?? empty);
    const name = this.tag.replace(/[^\w.-]+/g, "_");
    if (format === "json") {
      const body = Object.fromEntries(
        series.map(({ steps, wallTimes, values }, index) => [
          runs[index]!,
          Array.from(steps, (step, i) => [wallTimes[i], step, values[i]]),
        ]),
      );
      download(`${name}.json`, JSON.stringify({ tag: this.tag, runs: body }), "application/json");
      return;
    }
    const quote = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
    const rows = ["run,wall_time,step,value,smoothed"];
    series.forEach(({ steps, wallTimes, values }, index) => {
      const smoothed = smooth(values, state.smoother, state.smoothing, state.window);
      const run = quote(runs[index]!);
      for (let i = 0; i < steps.length; i++) {
        rows.push(`${run},${wallTimes[i]},${steps[i]},${values[i]},${smoothed[i]}`);
      }
    });
    download(`${name}.csv`, rows.join("\n") + "\n", "text/csv");
  }

  /** Parquet, written by the server (shown once it says it can: pyarrow is installed there). */
  private parquetButton(): HTMLElement {
    const button = h("button", { type: "button", class: "parquet", hidden: true }, "Download Parquet");
    button.onclick = () => {
      const runs = this.lines.map((line) => line.run);
      const link = h("a", { href: everyPointUrl(runs, this.tag, "parquet"), download: "" });
      document.body.appendChild(link);
      link.click();
      link.remove();
    };
    void serverCapabilities().then((found) => (button.hidden = !found.downloads.includes("parquet")));
    return button;
  }

  private async load(runs: string[]): Promise<void> {
    this.element.classList.add("loading");
    try {
      const against = xAxis.fetchedFor();
      const found = await queued(() =>
        against ? xAxis.seriesAgainst(this.tag, runs) : scalarsMultirun(this.tag, runs),
      );
      if (against !== this.fetchedFor) this.series.clear();
      this.fetchedFor = against;
      for (const [run, series] of found) this.series.set(run, series);
      this.stale = false;
    } catch (error) {
      this.element.dataset.error = String(error);
      this.fetchedFor = xAxis.fetchedFor(); // stale still: the next show asks again
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
    // Nothing selected and nothing shown (every draw of every card comes here): nothing to write, and no style to
    // invalidate under the chart just drawn.
    if (this.start === null && this.shade.hidden && this.markers.every((marker) => marker.hidden)) return;
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
      delete this.table.parentElement?.dataset.selected;
      return;
    }
    this.table.parentElement!.dataset.selected = this.end === null ? "step" : "range";
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
    const rows = sortRows(this.chart.rowsAt(x), "descending");
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
  if (x === "tag") return xAxis.xsOf(series);
  const start = series.wallTimes[0] ?? 0;
  return series.wallTimes.map((time) => time - start);
}

function axisName(x: XAxis): string {
  if (x === "tag") return xAxis.axisName();
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

// Requests in the order cards ask, two at a time (the server reads the next card's while the page draws one), but
// the page's first alone: the first chart on screen gets the server to itself and draws first, instead of sharing it
// with every other chart in view.
const CONCURRENT_FETCHES = 2;
let fetching = 0;
let answered = false;
const waiting: (() => void)[] = [];

async function queued<T>(task: () => Promise<T>): Promise<T> {
  if (fetching >= (answered ? CONCURRENT_FETCHES : 1)) await new Promise<void>((resolve) => waiting.push(resolve));
  fetching++;
  try {
    return await task();
  } finally {
    fetching--;
    const first = !answered;
    answered = true;
    waiting.shift()?.();
    if (first) waiting.shift()?.();
  }
}

const smoothedCache = new WeakMap<ScalarSeries, { key: string; values: Float64Array }>();

function smoothedOf(series: ScalarSeries): Float64Array {
  const key = `${state.smoother}|${state.smoothing}|${state.window}`;
  const cached = smoothedCache.get(series);
  if (cached?.key === key) return cached.values;
  const reusable = cached && cached.values !== series.values ? cached.values : undefined;
  const values = smooth(series.values, state.smoother, state.smoothing, state.window, reusable);
  smoothedCache.set(series, { key, values });
  return values;
}

/** The lines of the shown runs' series, on the chosen x axis and smoothed as set. */
export function linesFor(found: Map<string, ScalarSeries>): Line[] {
  const lines: Line[] = [];
  for (const run of selectedRuns()) {
    const series = found.get(run);
    if (!series || series.steps.length === 0) continue;
    lines.push({
      run,
      color: colorOf(run),
      dash: dashOf(run),
      xs: xsOf(series, state.x),
      steps: series.steps,
      wallTimes: series.wallTimes,
      raw: series.values,
      smoothed: smoothedOf(series),
    });
  }
  return lines;
}

/** The page's chart options (a card adds its own log y). */
export function chartOptions(): ChartOptions {
  const smoothing = (state.smoother === "ema" && state.smoothing > 0) || (state.smoother === "ma" && state.window > 1);
  return {
    x: state.x,
    logX: state.logX,
    logY: false,
    band: state.band,
    smoothing,
    tooltipSort: state.tooltipSort,
    xTitle: xAxis.active() ? xAxis.title() : undefined,
  };
}

/** The tag's description, as the scalars' tag listing gives it (set by the page that lists the tags). */
let describe: (tag: string) => string | undefined = () => undefined;

export function describeTagsWith(lookup: (tag: string) => string | undefined): void {
  describe = lookup;
}
