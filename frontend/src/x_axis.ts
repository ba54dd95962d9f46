// A scalar tag (or a derived metric) as the x axis of Scalars and Time Series: the "X" control lists step, relative
// and wall time, then every scalar tag; a card then draws its tag against the chosen one
// (data/trainboard/scalars/against: each point's x is the x tag's last value at or before its step). A run whose x is
// not monotonic is drawn in its points' step order (a line may turn back), in a chart of its own that says so
// (chart_ordered.ts: its own tooltip and box zoom).

import "./derived.css";
import { everyPointUrl, getJson, type ScalarSeries } from "./api";
import type { Line } from "./chart";
import { OrderedChart } from "./chart_ordered";
import { h } from "./dom";
import { state, update } from "./state";

/** A run's series of a tag with the x tag's value at each point. */
export interface AgainstSeries extends ScalarSeries {
  xs: Float64Array;
  monotonic: boolean;
}

interface Answer {
  runs: Record<
    string,
    { step: number[]; wall_time: number[]; value: (number | string)[]; x: (number | string)[]; monotonic: boolean }
  >;
}

const TIMES: [XValue, string][] = [
  ["step", "Step"],
  ["relative", "Relative time"],
  ["wall", "Wall time"],
];
type XValue = "step" | "relative" | "wall";
const TAG_PREFIX = "tag:";

const controls: HTMLSelectElement[] = [];
let tags: string[] = [];

/** The x axis's select: a time, or `tag:NAME`. */
export function control(id: string): HTMLSelectElement {
  const select = h("select", { id, class: "x-axis", "aria-label": "Horizontal axis" });
  select.addEventListener("change", () => {
    const value = select.value;
    if (value.startsWith(TAG_PREFIX)) update({ x: "tag", xTag: value.slice(TAG_PREFIX.length) });
    else update({ x: value as XValue, xTag: "" });
  });
  controls.push(select);
  fill(select);
  return select;
}

/** The scalar tags the control offers (the scalars plugin's listing: derived metrics too). */
export function setTags(names: Iterable<string>): void {
  tags = [...new Set(names)].sort();
  for (const select of controls) fill(select);
}

function fill(select: HTMLSelectElement): void {
  const shown = tags.includes(state.xTag) || !state.xTag ? tags : [...tags, state.xTag];
  select.replaceChildren(
    ...TIMES.map(([value, label]) => h("option", { value }, label)),
    h("optgroup", { label: "Scalar tag" }, ...shown.map((tag) => h("option", { value: TAG_PREFIX + tag }, tag))),
  );
  sync(select);
}

function sync(select: HTMLSelectElement): void {
  select.value = active() ? TAG_PREFIX + state.xTag : state.x === "tag" ? "step" : state.x;
}

export function syncControls(): void {
  for (const select of controls) sync(select);
}

/** Whether the charts draw against a tag. */
export function active(): boolean {
  return state.x === "tag" && state.xTag !== "";
}

/** What a card's data was fetched for: its series change with the x tag. */
export function fetchedFor(): string {
  return active() ? state.xTag : "";
}

/** Each run's series of `tag` with the x tag's value at every point (runs without both tags are left out). */
export async function seriesAgainst(tag: string, runs: string[]): Promise<Map<string, AgainstSeries>> {
  const query: [string, string][] = [
    ["tag", tag],
    ["x", state.xTag],
    ...runs.map((run): [string, string] => ["run", run]),
  ];
  const answer = await getJson<Answer>(`data/trainboard/scalars/against?${new URLSearchParams(query)}`);
  return new Map(
    Object.entries(answer.runs).map(([run, series]) => [
      run,
      {
        steps: Float64Array.from(series.step),
        wallTimes: Float64Array.from(series.wall_time),
        values: Float64Array.from(series.value, Number),
        xs: Float64Array.from(series.x, Number),
        monotonic: series.monotonic,
      },
    ]),
  );
}

/** A series' x on the tag axis; the steps where it has none (a series fetched without the x tag). */
export function xsOf(series: ScalarSeries): Float64Array {
  return (series as Partial<AgainstSeries>).xs ?? series.steps;
}

/** Whether every line's x only grows (the chart's usual drawing), else the lines are drawn in step order. */
function monotonic(lines: Line[]): boolean {
  return lines.every((line) => {
    for (let i = 1; i < line.xs.length; i++) if (line.xs[i]! < line.xs[i - 1]!) return false;
    return true;
  });
}

/** Every point of the runs' series of `tag` with the x tag's value, as the server writes it (an x column). */
export function downloadAgainst(runs: string[], tag: string, format: "csv" | "json"): void {
  const link = h("a", { href: `${everyPointUrl(runs, tag, format)}&${new URLSearchParams({ x: state.xTag })}` });
  link.download = "";
  document.body.append(link);
  link.click();
  link.remove();
}

export function axisName(): string {
  return state.xTag;
}

/** The title of a chart's x axis drawn against the x tag. */
export function title(xTag: string = state.xTag): string {
  return `x = ${xTag}`;
}

const charts = new WeakMap<HTMLElement, OrderedChart>();

/** After the card's chart drew `lines` (against `xTag`, "" for a time): where a line's x turns back, draws them in
 * their points' order in place of the chart instead. The card says which x tag its lines are on (data-x-tag). */
export function drawCard(card: HTMLElement, chart: HTMLElement, lines: Line[], xTag: string): void {
  if (xTag) card.dataset.xTag = xTag;
  else delete card.dataset.xTag;
  if (xTag && !monotonic(lines)) drawOrdered(card, chart, lines, xTag);
  else clearOrdered(card, chart);
}

/** Draws `lines` in their points' order in place of the card's chart, with a note that x is not monotonic. */
function drawOrdered(card: HTMLElement, chart: HTMLElement, lines: Line[], xTag: string): void {
  chart.hidden = true;
  let holder = card.querySelector<HTMLElement>(".ordered-chart");
  if (!holder) {
    const ordered = new OrderedChart(card.dataset.tag ?? "chart");
    holder = h("div", { class: "ordered-chart" }, ordered.element, h("p", { class: "x-note", role: "note" }, ""));
    charts.set(holder, ordered);
    chart.after(holder);
  }
  const bent = lines.filter((line) => !monotonic([line])).length;
  holder.querySelector(".x-note")!.textContent =
    `${xTag} is not monotonic in ${bent} of ${lines.length} run${lines.length === 1 ? "" : "s"}: ` +
    "each line follows its points in step order.";
  card.dataset.monotonic = "false";
  charts.get(holder)!.set(lines, title(xTag), state.tooltipSort);
}

/** Back to the card's chart. */
function clearOrdered(card: HTMLElement, chart: HTMLElement): void {
  chart.hidden = false;
  delete card.dataset.monotonic;
  const holder = card.querySelector<HTMLElement>(".ordered-chart");
  if (!holder) return;
  charts.get(holder)?.destroy();
  holder.remove();
}
