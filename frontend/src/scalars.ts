// The scalars dashboard: one chart card per tag, grouped by the tag's prefix (before its first "/"), every shown run
// overlaid. A card asks for its data (one request for all its runs) when it comes near the screen.

import { getJson } from "./api";
import { TOOLTIP_SORTS } from "./chart";
import { LazyCardGrid, groupOf } from "./card_grid";
import { formatCount, h } from "./dom";
import * as grouping from "./groups";
import { regex, regexProblem } from "./regex";
import { selectedRuns } from "./runs";
import { ScalarCard, describeTagsWith } from "./scalar_card";
import { commitUrl, state, update, type State } from "./state";
import { TagRuns, type TagRunsAnswer } from "./tag_runs";
import * as comparePanel from "./compare_panel";
import * as definitions from "./definitions";
import * as xAxes from "./x_axis";

let tagRuns = new TagRuns();
const cards = new Map<string, ScalarCard>();
const grid = new LazyCardGrid<ScalarCard>((card) => void show(card));

describeTagsWith((tag) => tagRuns.displayName(tag, selectedRuns()));

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
const xAxis = xAxes.control("x-axis");
/** The tooltip's order and the card size: the Time Series page has the same controls, on the same state. */
export function sortControl(id: string): HTMLSelectElement {
  const control = h(
    "select",
    { id, "aria-label": "Order of the tooltip's runs" },
    ...TOOLTIP_SORTS.map((order) => h("option", { value: order }, order[0]!.toUpperCase() + order.slice(1))),
  );
  control.addEventListener("change", () => update({ tooltipSort: control.value as State["tooltipSort"] }));
  return control;
}

export function sizeControl(id: string): HTMLSelectElement {
  const control = h(
    "select",
    { id, "aria-label": "Card size" },
    h("option", { value: "small" }, "Small"),
    h("option", { value: "medium" }, "Medium"),
    h("option", { value: "large" }, "Large"),
  );
  control.addEventListener("change", () => update({ cardSize: control.value as State["cardSize"] }));
  return control;
}

const tooltipSort = sortControl("tooltip-sort");
const cardSize = sizeControl("card-size");
const checkbox = (id: string, label: string) => {
  const input = h("input", { type: "checkbox", id });
  return { input, label: h("label", {}, input, label) };
};
const logX = checkbox("log-x", "Log x");
const band = checkbox("band", "Mean ± std");
const summary = h("span", { class: "count", id: "tag-count" });

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
    logX.label,
    band.label,
    grouping.controls,
    h("label", {}, "Tooltip ", tooltipSort),
    h("label", {}, "Cards ", cardSize),
    definitions.button,
    comparePanel.button,
    summary,
  ),
  comparePanel.element,
  grid.element,
);

tagFilter.addEventListener("input", () => {
  const problem = regexProblem(tagFilter.value);
  tagError.textContent = problem ?? "";
  if (problem === null) update({ tagFilter: tagFilter.value });
});
definitions.onChange(() => void refresh());
smoother.addEventListener("change", () => update({ smoother: smoother.value as State["smoother"] }));
smoothing.addEventListener("input", () => update({ smoothing: Number(smoothing.value) }, { urlLater: true }));
smoothing.addEventListener("change", commitUrl);
windowInput.addEventListener("change", () => update({ window: Math.max(1, Math.round(Number(windowInput.value))) }));
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
  xAxes.syncControls();
  tooltipSort.value = state.tooltipSort;
  cardSize.value = state.cardSize;
  grid.setSize(state.cardSize);
  logX.input.checked = state.logX;
  band.input.checked = state.band;
  element.dataset.smoother = state.smoother;
  grouping.syncControls();
}

/** The tags of the shown runs that the tag filter matches, by group. */
function groupedTags(): Map<string, string[]> {
  const runs = selectedRuns();
  const pattern = regex(state.tagFilter);
  const tags = tagRuns.tagsOf(runs);
  const byGroup = new Map<string, string[]>();
  for (const tag of [...tags].sort()) {
    if (pattern && !pattern.test(tag)) continue;
    const group = groupOf(tag);
    byGroup.set(group, [...(byGroup.get(group) ?? []), tag]);
  }
  return byGroup;
}

function cardOf(tag: string): ScalarCard {
  let card = cards.get(tag);
  if (!card) {
    card = new ScalarCard(tag, { groups: true });
    cards.set(tag, card);
  }
  card.setSize(state.cardSize);
  return card;
}

/** Lays the cards out again for the current tags; cards of tags still shown are kept with their data. */
function layout(): void {
  const byGroup = groupedTags();
  const sections = new Map([...byGroup].map(([group, tags]) => [group, tags.map(cardOf)]));
  for (const card of grid.layout(sections, "No scalar tags for the shown runs.")) {
    card.destroy();
    cards.delete(card.tag);
  }
  summary.textContent = `${formatCount([...byGroup.values()].flat().length)} tags`;
}

function show(card: ScalarCard): Promise<void> {
  return card.show(selectedRuns().filter((run) => tagRuns.has(run, card.tag)));
}

function redrawVisible(): void {
  for (const card of grid.shown()) void show(card);
}

// The tags in short (each once, with its runs): TensorBoard's listing repeats every tag for every run.
const TAGS = "data/trainboard/scalar_tags";
let prefetched: Promise<TagRunsAnswer> | null = null;

/** Asks for the tags early, beside the run list; the next refresh uses the answer. */
export function prefetch(): Promise<void> {
  prefetched = getJson<TagRunsAnswer>(TAGS);
  return prefetched.then(
    () => undefined,
    () => undefined,
  );
}

export async function refresh(): Promise<void> {
  const pending = prefetched;
  prefetched = null;
  tagRuns = new TagRuns(await (pending ?? getJson<TagRunsAnswer>(TAGS)));
  xAxes.setTags(tagRuns.tags());
  for (const card of cards.values()) card.invalidate();
  grouping.forget();
  layout();
  redrawVisible();
}

export function onState(changed: Set<keyof State>): void {
  syncControls();
  if (changed.has("runs") || changed.has("runFilter") || changed.has("tagFilter")) layout();
  if (changed.has("cardSize")) for (const card of cards.values()) card.setSize(state.cardSize);
  redrawVisible();
}

export function redrawAll(): void {
  redrawVisible();
}

export function mount(): void {
  syncControls();
}
