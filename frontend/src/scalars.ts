// The scalars dashboard: one chart per tag, grouped by the tag's prefix (before its first "/"), every shown run
// overlaid. A chart asks for its data (one request for all its runs) when it comes near the screen.

import {
  everyPointUrl,
  getJson,
  scalarsMultirun,
  serverCapabilities,
  wholeScalarSeries,
  type ScalarSeries,
  type TagInfo,
} from "./api";
import { Chart, type ChartOptions, type Line } from "./chart";
import { colorOf, dashOf } from "./colors";
import { download, formatCount, h } from "./dom";
import * as grouping from "./groups";
import { regex, regexProblem } from "./regex";
import { selectedRuns } from "./runs";
import { smooth } from "./smoothing";
import { commitUrl, state, update, type State } from "./state";

interface Card {
  tag: string;
  element: HTMLElement;
  chart: Chart;
  visible: boolean;
  /** The runs whose data is loaded, and whether a newer version may exist. */
  series: Map<string, ScalarSeries>;
  stale: boolean;
  loading: Promise<void> | null;
}

let tagInfo: TagInfo = {};
const cards = new Map<string, Card>();
const smoothedCache = new WeakMap<ScalarSeries, { key: string; values: Float64Array }>();

const observer = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      const card = [...cards.values()].find((candidate) => candidate.element === entry.target);
      if (!card) continue;
      card.visible = entry.isIntersecting;
      if (card.visible) void show(card);
    }
  },
  { rootMargin: "300px" },
);

const tagFilter = h("input", {
  type: "search",
  id: "tag-filter",
  placeholder: "Filter tags (regex)",
  "aria-label": "Filter tags by regular expression",
  spellcheck: "false",
});
const tagError = h("span", { class: "error", role: "alert" });
const smoother = h(
  "select",
  { id: "smoother", "aria-label": "Smoothing method" },
  h("option", { value: "ema" }, "EMA"),
  h("option", { value: "ma" }, "Moving average"),
  h("option", { value: "none" }, "None"),
);
const smoothing = h("input", {
  type: "range",
  id: "smoothing",
  min: 0,
  max: 0.999,
  step: 0.001,
  "aria-label": "Smoothing weight",
});
const smoothingValue = h("output", { id: "smoothing-value", for: "smoothing" });
const windowInput = h("input", {
  type: "number",
  id: "window",
  min: 1,
  max: 100000,
  step: 1,
  "aria-label": "Moving average window in points",
});
const xAxis = h(
  "select",
  { id: "x-axis", "aria-label": "Horizontal axis" },
  h("option", { value: "step" }, "Step"),
  h("option", { value: "relative" }, "Relative time"),
  h("option", { value: "wall" }, "Wall time"),
);
const checkbox = (id: string, label: string) => {
  const input = h("input", { type: "checkbox", id });
  return { input, label: h("label", {}, input, label) };
};
const logY = checkbox("log-y", "Log y");
const logX = checkbox("log-x", "Log x");
const band = checkbox("band", "Mean ± std");
const summary = h("span", { class: "count", id: "tag-count" });
const groups = h("div", { class: "groups" });

export const element = h(
  "section",
  { class: "dashboard scalars", "aria-label": "Scalars" },
  h(
    "div",
    { class: "toolbar" },
    h("span", { class: "field" }, tagFilter, tagError),
    h("label", {}, "Smoothing ", smoother),
    h("span", { class: "field smoothing-ema" }, smoothing, smoothingValue),
    h("label", { class: "smoothing-ma" }, "Window ", windowInput),
    h("label", {}, "X ", xAxis),
    logY.label,
    logX.label,
    band.label,
    grouping.controls,
    summary,
  ),
  groups,
);

tagFilter.addEventListener("input", () => {
  const problem = regexProblem(tagFilter.value);
  tagError.textContent = problem ?? "";
  if (problem === null) update({ tagFilter: tagFilter.value });
});
smoother.addEventListener("change", () => update({ smoother: smoother.value as State["smoother"] }));
smoothing.addEventListener("input", () => update({ smoothing: Number(smoothing.value) }, { urlLater: true }));
smoothing.addEventListener("change", commitUrl);
windowInput.addEventListener("change", () => update({ window: Math.max(1, Math.round(Number(windowInput.value))) }));
xAxis.addEventListener("change", () => update({ x: xAxis.value as State["x"] }));
logY.input.addEventListener("change", () => update({ logY: logY.input.checked }));
logX.input.addEventListener("change", () => update({ logX: logX.input.checked }));
band.input.addEventListener("change", () => update({ band: band.input.checked }));

function syncControls(): void {
  if (document.activeElement !== tagFilter) {
    tagFilter.value = state.tagFilter;
    tagError.textContent = regexProblem(state.tagFilter) ?? "";
  }
  smoother.value = state.smoother;
  smoothing.value = String(state.smoothing);
  smoothingValue.textContent = state.smoothing.toFixed(3);
  windowInput.value = String(state.window);
  xAxis.value = state.x;
  logY.input.checked = state.logY;
  logX.input.checked = state.logX;
  band.input.checked = state.band;
  element.dataset.smoother = state.smoother;
  grouping.syncControls();
}

/** The tags of the shown runs that the tag filter matches, by group. */
function groupedTags(): Map<string, string[]> {
  const runs = selectedRuns();
  const pattern = regex(state.tagFilter);
  const tags = new Set<string>();
  for (const run of runs) for (const tag of Object.keys(tagInfo[run] ?? {})) tags.add(tag);
  const byGroup = new Map<string, string[]>();
  for (const tag of [...tags].sort()) {
    if (pattern && !pattern.test(tag)) continue;
    const group = tag.includes("/") ? tag.slice(0, tag.indexOf("/")) : tag;
    byGroup.set(group, [...(byGroup.get(group) ?? []), tag]);
  }
  return byGroup;
}

function makeCard(tag: string): Card {
  const chart = new Chart(tag);
  const card: Card = {
    tag,
    chart,
    element: h("article", { class: "card", "data-tag": tag }),
    visible: false,
    series: new Map(),
    stale: true,
    loading: null,
  };
  const description = tagInfo[selectedRuns().find((run) => tagInfo[run]?.[tag]) ?? ""]?.[tag]?.displayName;
  card.element.append(
    h(
      "header",
      {},
      h("h3", { title: tag }, description && description !== tag ? `${tag} (${description})` : tag),
      h(
        "span",
        { class: "actions" },
        h("button", { type: "button", class: "csv", onclick: () => void downloadCard(card, "csv") }, "CSV"),
        h("button", { type: "button", class: "json", onclick: () => void downloadCard(card, "json") }, "JSON"),
        parquetButton(card),
        h("button", { type: "button", class: "reset", onclick: () => chart.resetZoom() }, "Reset zoom"),
      ),
    ),
    chart.element,
  );
  observer.observe(card.element);
  return card;
}

/** Rebuilds the groups and cards for the current tags; cards of tags still shown are kept with their data. */
function layout(): void {
  const byGroup = groupedTags();
  const keep = new Set([...byGroup.values()].flat());
  for (const [tag, card] of cards) {
    if (keep.has(tag)) continue;
    observer.unobserve(card.element);
    card.chart.destroy();
    cards.delete(tag);
  }
  const open = new Map([...groups.querySelectorAll("details")].map((details) => [details.dataset.group, details.open]));
  const sections = [...byGroup].map(([group, tags]) =>
    h(
      "details",
      { class: "group", "data-group": group, open: open.get(group) ?? true },
      h("summary", {}, h("span", { class: "group-name" }, group), h("span", { class: "count" }, ` ${tags.length}`)),
      h(
        "div",
        { class: "cards" },
        ...tags.map((tag) => {
          const card = cards.get(tag) ?? makeCard(tag);
          cards.set(tag, card);
          return card.element;
        }),
      ),
    ),
  );
  groups.replaceChildren(
    ...(sections.length ? sections : [h("p", { class: "empty" }, "No scalar tags for the shown runs.")]),
  );
  summary.textContent = `${formatCount(keep.size)} tags`;
}

async function show(card: Card): Promise<void> {
  if (grouping.active()) return grouping.drawCard(card.element, card.chart.element, card.tag, selectedRuns());
  grouping.clearCard(card.element, card.chart.element);
  const runs = selectedRuns().filter((run) => tagInfo[run]?.[card.tag]);
  const missing = card.stale ? runs : runs.filter((run) => !card.series.has(run));
  if (missing.length) {
    if (!card.loading) card.loading = load(card, missing);
    await card.loading;
  }
  draw(card);
}

// Two requests at a time, in the order cards ask: the first chart on screen gets the server to itself and draws
// first, instead of sharing it with every other chart in view.
const CONCURRENT_FETCHES = 2;
let fetching = 0;
const waiting: (() => void)[] = [];

export async function queued<T>(task: () => Promise<T>): Promise<T> {
  if (fetching >= CONCURRENT_FETCHES) await new Promise<void>((resolve) => waiting.push(resolve));
  fetching++;
  try {
    return await task();
  } finally {
    fetching--;
    waiting.shift()?.();
  }
}

async function load(card: Card, runs: string[]): Promise<void> {
  card.element.classList.add("loading");
  try {
    const found = await queued(() => scalarsMultirun(card.tag, runs));
    for (const [run, series] of found) card.series.set(run, series);
    card.stale = false;
  } catch (error) {
    card.element.dataset.error = String(error);
  } finally {
    card.loading = null;
    card.element.classList.remove("loading");
  }
}

function smoothedOf(series: ScalarSeries): Float64Array {
  const key = `${state.smoother}|${state.smoothing}|${state.window}`;
  const cached = smoothedCache.get(series);
  if (cached?.key === key) return cached.values;
  const reusable = cached && cached.values !== series.values ? cached.values : undefined;
  const values = smooth(series.values, state.smoother, state.smoothing, state.window, reusable);
  smoothedCache.set(series, { key, values });
  return values;
}

function linesOf(card: Card): Line[] {
  return linesFor(card.series);
}

/** The lines of the shown runs' series, on the chosen x axis and smoothed as set (the Time Series page draws its
 * scalar cards with them too). */
export function linesFor(found: Map<string, ScalarSeries>): Line[] {
  const lines: Line[] = [];
  for (const run of selectedRuns()) {
    const series = found.get(run);
    if (!series || series.steps.length === 0) continue;
    let xs = series.steps;
    if (state.x === "wall") xs = series.wallTimes;
    if (state.x === "relative") {
      const start = series.wallTimes[0]!;
      xs = series.wallTimes.map((time) => time - start);
    }
    lines.push({
      run,
      color: colorOf(run),
      dash: dashOf(run),
      xs,
      steps: series.steps,
      wallTimes: series.wallTimes,
      raw: series.values,
      smoothed: smoothedOf(series),
    });
  }
  return lines;
}

export function chartOptions(): ChartOptions {
  const smoothing = (state.smoother === "ema" && state.smoothing > 0) || (state.smoother === "ma" && state.window > 1);
  return { x: state.x, logX: state.logX, logY: state.logY, band: state.band, smoothing };
}

function draw(card: Card): void {
  const lines = linesOf(card);
  card.chart.set(lines, chartOptions());
  card.element.dataset.runs = String(lines.length);
  card.element.dataset.points = String(lines.reduce((sum, line) => sum + line.xs.length, 0));
  // The last step drawn: what a test compares with the server's while the data grows.
  card.element.dataset.lastStep = String(lines.reduce((last, line) => Math.max(last, line.steps.at(-1) ?? last), -1));
}

function redrawVisible(): void {
  for (const card of cards.values()) if (card.visible) void show(card);
}

/** The chart's runs with every point of their series (the chart draws a downsampled series), smoothed as shown. */
async function downloadCard(card: Card, format: "csv" | "json"): Promise<void> {
  const runs = linesOf(card).map((line) => line.run);
  const found = await wholeScalarSeries(runs, card.tag);
  const empty = { steps: new Float64Array(), wallTimes: new Float64Array(), values: new Float64Array() };
  const series = runs.map((run) => found.get(run) ?? empty);
  const name = card.tag.replace(/[^\w.-]+/g, "_");
  if (format === "json") {
    const body = Object.fromEntries(
      series.map(({ steps, wallTimes, values }, index) => [
        runs[index]!,
        Array.from(steps, (step, i) => [wallTimes[i], step, values[i]]),
      ]),
    );
    download(`${name}.json`, JSON.stringify({ tag: card.tag, runs: body }), "application/json");
    return;
  }
  const quote = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
  const rows = ["run,wall_time,step,value,smoothed"];
  series.forEach(({ steps, wallTimes, values }, index) => {
    const smoothed = smooth(values, state.smoother, state.smoothing, state.window);
    const run = quote(runs[index]!);
    for (let i = 0; i < steps.length; i++) rows.push(`${run},${wallTimes[i]},${steps[i]},${values[i]},${smoothed[i]}`);
  });
  download(`${name}.csv`, rows.join("\n") + "\n", "text/csv");
}

/** Parquet, written by the server (shown once it says it can: pyarrow is installed there). */
function parquetButton(card: Card): HTMLElement {
  const button = h("button", { type: "button", class: "parquet", hidden: true }, "Parquet");
  button.onclick = () => {
    const runs = linesOf(card).map((line) => line.run);
    const link = h("a", { href: everyPointUrl(runs, card.tag, "parquet"), download: "" });
    document.body.appendChild(link);
    link.click();
    link.remove();
  };
  void serverCapabilities().then((found) => (button.hidden = !found.downloads.includes("parquet")));
  return button;
}

let prefetched: Promise<TagInfo> | null = null;

/** Asks for the tags early, beside the run list; the next refresh uses the answer. */
export function prefetch(): Promise<void> {
  prefetched = getJson<TagInfo>("data/plugin/scalars/tags");
  return prefetched.then(
    () => undefined,
    () => undefined,
  );
}

export async function refresh(): Promise<void> {
  const pending = prefetched;
  prefetched = null;
  tagInfo = await (pending ?? getJson<TagInfo>("data/plugin/scalars/tags"));
  for (const card of cards.values()) card.stale = true;
  grouping.forget();
  layout();
  redrawVisible();
}

export function onState(changed: Set<keyof State>): void {
  syncControls();
  if (changed.has("runs") || changed.has("runFilter") || changed.has("tagFilter")) layout();
  redrawVisible();
}

export function redrawAll(): void {
  redrawVisible();
}

export function mount(): void {
  syncControls();
}
