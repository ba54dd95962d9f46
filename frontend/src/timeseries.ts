// TensorBoard's Time Series page: every scalar, histogram and image card of the shown runs on one page, filtered by
// tag regex and kind, grouped by the tag's prefix, pinned cards first (kept in the URL). A scalar card draws every
// run (the Scalars page's chart card, with a step selector); a histogram or image card one run. Cards fill when they
// come near the screen (the one lazy card grid), and can be made as wide as the row or full-screen (Escape leaves it).

import { getJson, type TagInfo } from "./api";
import { LazyCardGrid, cardRow, groupOf } from "./card_grid";
import { colorOf } from "./colors";
import { formatCount, h } from "./dom";
import { fillHistograms, fillImages, rememberListing, type Listing } from "./media";
import { regex, regexProblem } from "./regex";
import { selectedRuns } from "./runs";
import { ScalarCard } from "./scalar_card";
import { sizeControl, sortControl } from "./scalars";
import { commitUrl, state, update } from "./state";
import * as xAxes from "./x_axis";

type Kind = "scalars" | "histograms" | "images";
const KINDS: { kind: Kind; label: string }[] = [
  { kind: "scalars", label: "Scalars" },
  { kind: "histograms", label: "Histograms" },
  { kind: "images", label: "Images" },
];

interface Card {
  key: string;
  kind: Kind;
  tag: string;
  /** The run of a histogram or image card; "" for a scalar card (every shown run). */
  run: string;
  element: HTMLElement;
  pin: HTMLButtonElement;
  /** A scalar card's chart card; a histogram or image card's body and full-screen button. */
  scalar: ScalarCard | null;
  body: HTMLElement | null;
  full: HTMLButtonElement | null;
  stale: boolean;
  filling: boolean;
}

/** Each kind's tags by run. */
let tags: Record<Kind, Record<string, string[]>> = { scalars: {}, histograms: {}, images: {} };
// Whether the histogram and image listings have come once: until then the count says more are coming, rather than
// show a total that then grows.
let othersListed = false;
const cards = new Map<string, Card>();
const grid = new LazyCardGrid<Card>((card) => {
  if (cards.get(card.key) === card) void show(card);
});

const tagFilter = h("input", {
  type: "search",
  id: "ts-tag-filter",
  placeholder: "Filter tags (regex)",
  "aria-label": "Filter tags by regular expression",
  spellcheck: "false",
});
const tagError = h("span", { class: "error", role: "alert" });
const kindBoxes = KINDS.map(({ kind, label }) => {
  const input = h("input", { type: "checkbox", "data-kind": kind });
  input.addEventListener("change", () =>
    update({
      kinds: kindBoxes
        .filter((box) => box.input.checked)
        .map((box) => box.kind)
        .join(","),
    }),
  );
  return { kind, input, label: h("label", { class: "kind" }, input, label) };
});
const smoothing = h("input", {
  type: "range",
  id: "ts-smoothing",
  min: 0,
  max: 0.999,
  step: 0.001,
  "aria-label": "Smoothing weight",
});
const smoothingValue = h("output", { for: "ts-smoothing" });
const outliers = h("input", { type: "checkbox", id: "ignore-outliers" });
const tooltipSort = sortControl("ts-tooltip-sort");
const cardSize = sizeControl("ts-card-size");
const summary = h("span", { class: "count", id: "ts-count" });
const xAxis = xAxes.control("ts-x-axis");
const pinnedSection = h("section", { class: "pinned-cards", "aria-label": "Pinned cards" });

export const element = h(
  "section",
  { class: "dashboard timeseries", "aria-label": "Time Series" },
  h(
    "div",
    { class: "toolbar" },
    h("span", { class: "field" }, tagFilter, tagError),
    h("span", { class: "kinds", role: "group", "aria-label": "Kinds of card" }, ...kindBoxes.map((box) => box.label)),
    h("label", {}, "Smoothing ", smoothing, smoothingValue),
    h("label", {}, outliers, "Ignore outliers in chart scaling"),
    h("label", {}, "X ", xAxis),
    h("label", {}, "Tooltip ", tooltipSort),
    h("label", {}, "Cards ", cardSize),
    summary,
  ),
  pinnedSection,
  grid.element,
);

tagFilter.addEventListener("input", () => {
  const problem = regexProblem(tagFilter.value);
  tagError.textContent = problem ?? "";
  if (problem === null) update({ tagFilter: tagFilter.value });
});
smoothing.addEventListener("input", () => update({ smoothing: Number(smoothing.value) }, { urlLater: true }));
smoothing.addEventListener("change", commitUrl);
outliers.addEventListener("change", () => update({ ignoreOutliers: outliers.checked }));
document.addEventListener("keydown", (event) => {
  if (event.key !== "Escape") return;
  for (const card of cards.values())
    if (card.full && card.element.classList.contains("fullscreen")) setFullscreen(card, false);
});

function shownKinds(): Set<string> {
  return new Set(state.kinds.split(","));
}

function syncControls(): void {
  if (document.activeElement !== tagFilter) {
    tagFilter.value = state.tagFilter;
    tagError.textContent = regexProblem(state.tagFilter) ?? "";
  }
  const kinds = shownKinds();
  for (const box of kindBoxes) box.input.checked = kinds.has(box.kind);
  smoothing.value = String(state.smoothing);
  smoothingValue.textContent = state.smoothing.toFixed(3);
  outliers.checked = state.ignoreOutliers;
  xAxes.syncControls();
  tooltipSort.value = state.tooltipSort;
  cardSize.value = state.cardSize;
  element.dataset.cardSize = state.cardSize;
}

function keyOf(kind: Kind, run: string, tag: string): string {
  return `${kind}|${run}|${tag}`;
}

/** The cards the filters let through, in order: by tag, then kind, then run. */
function wanted(): { kind: Kind; run: string; tag: string }[] {
  const pattern = regex(state.tagFilter);
  const kinds = shownKinds();
  const runs = selectedRuns();
  const found: { kind: Kind; run: string; tag: string }[] = [];
  for (const { kind } of KINDS) {
    if (!kinds.has(kind)) continue;
    const byRun = tags[kind];
    const all = new Set(runs.flatMap((run) => byRun[run] ?? []));
    for (const tag of all) {
      if (pattern && !pattern.test(tag)) continue;
      if (kind === "scalars") found.push({ kind, run: "", tag });
      else for (const run of runs) if (byRun[run]?.includes(tag)) found.push({ kind, run, tag });
    }
  }
  const order = KINDS.map(({ kind }) => kind);
  return found.sort(
    (a, b) =>
      a.tag.localeCompare(b.tag) ||
      order.indexOf(a.kind) - order.indexOf(b.kind) ||
      runs.indexOf(a.run) - runs.indexOf(b.run),
  );
}

function button(label: string, className: string, onclick: () => void): HTMLButtonElement {
  return h("button", { type: "button", class: className, onclick }, label);
}

function makeCard(kind: Kind, run: string, tag: string): Card {
  const key = keyOf(kind, run, tag);
  const pin = button("Pin", "pin", () => togglePin(card));
  const wider = button("Wider", "wider", () => {
    const wide = card.element.classList.toggle("wide");
    wider.setAttribute("aria-pressed", String(wide));
  });
  wider.setAttribute("aria-pressed", "false");
  const card: Card = {
    key,
    kind,
    tag,
    run,
    pin,
    element: h("article"),
    scalar: null,
    body: null,
    full: null,
    stale: true,
    filling: false,
  };
  if (kind === "scalars") {
    card.scalar = new ScalarCard(tag, {
      className: "ts-card scalars",
      attributes: { "data-kind": kind },
      actions: [pin, wider],
      stepSelection: true,
      ignoreOutliers: () => state.ignoreOutliers,
    });
    card.element = card.scalar.element;
    return card;
  }
  card.body = h("div", { class: "card-body" });
  card.full = button("Full screen", "full", () => setFullscreen(card, !card.element.classList.contains("fullscreen")));
  card.element = h(
    "article",
    { class: `card ts-card ${kind}`, "data-kind": kind, "data-tag": tag, "data-run": run },
    h(
      "header",
      {},
      h("h3", { title: tag }, tag),
      h(
        "span",
        { class: "card-run", title: run },
        h("span", { class: "swatch", style: `background:${colorOf(run)}` }),
        ` ${run}`,
      ),
      h("span", { class: "actions" }, pin, wider, card.full),
    ),
    card.body,
  );
  return card;
}

function togglePin(card: Card): void {
  const pinned = state.pinned.includes(card.key)
    ? state.pinned.filter((key) => key !== card.key)
    : [...state.pinned, card.key];
  update({ pinned });
}

/** A histogram or image card over the whole window (a scalar card's chart card has its own). */
function setFullscreen(card: Card, full: boolean): void {
  card.element.classList.toggle("fullscreen", full);
  document.body.classList.toggle("card-fullscreen", full);
  if (!card.full) return;
  card.full.textContent = full ? "Exit full screen" : "Full screen";
  if (full) card.full.focus();
}

/** Lays the cards out: pinned first (in the order pinned), then by the tag's group; cards kept keep their data. */
function layout(): void {
  const found = wanted();
  const pinned = new Set(state.pinned);
  const byGroup = new Map<string, Card[]>();
  for (const { kind, run, tag } of found) {
    const key = keyOf(kind, run, tag);
    let card = cards.get(key);
    if (!card) {
      card = makeCard(kind, run, tag);
      cards.set(key, card);
    }
    card.scalar?.setSize(state.cardSize);
    const isPinned = pinned.has(key);
    card.element.classList.toggle("is-pinned", isPinned);
    card.pin.textContent = isPinned ? "Unpin" : "Pin";
    card.pin.setAttribute("aria-pressed", String(isPinned));
    if (isPinned) continue;
    const group = groupOf(tag);
    byGroup.set(group, [...(byGroup.get(group) ?? []), card]);
  }
  const pinnedCards = state.pinned.flatMap((key) => cards.get(key) ?? []);
  pinnedSection.replaceChildren(
    h("h2", {}, "Pinned ", h("span", { class: "count" }, String(pinnedCards.length))),
    pinnedCards.length
      ? cardRow(pinnedCards)
      : h("p", { class: "empty" }, "Pin cards (their Pin button) to keep them here, at the top, for comparison."),
  );
  for (const card of grid.layout(byGroup, "No cards for the shown runs and filters.", pinnedCards)) {
    card.scalar?.destroy();
    cards.delete(card.key);
  }
  summary.textContent = `${formatCount(found.length)} card${found.length === 1 ? "" : "s"}${othersListed ? "" : ", listing more…"}`;
  summary.dataset.listed = othersListed ? "all" : "scalars";
}

async function show(card: Card): Promise<void> {
  if (card.scalar) {
    if (card.stale) card.scalar.invalidate();
    card.stale = false;
    await card.scalar.show(selectedRuns().filter((run) => tags.scalars[run]?.includes(card.tag)));
    card.element.dataset.filled = "true";
    return;
  }
  if (!card.stale || card.filling) return;
  card.filling = true;
  card.stale = false;
  try {
    await (card.kind === "histograms" ? fillHistograms : fillImages)(card.body!, card.run, card.tag);
    card.element.dataset.filled = "true";
  } catch (error) {
    card.body!.replaceChildren(h("p", { class: "error" }, String(error)));
  } finally {
    card.filling = false;
  }
}

function showVisible(kinds?: Set<Kind>): void {
  for (const card of grid.shown()) if (!kinds || kinds.has(card.kind)) void show(card);
}

async function listing(plugin: Kind): Promise<Record<string, string[]>> {
  try {
    const found = await getJson<Listing | TagInfo>(`data/plugin/${plugin}/tags`);
    if (plugin === "images") rememberListing(plugin, found as Listing);
    return Object.fromEntries(
      Object.entries(found).map(([run, byTag]) => [run, Array.isArray(byTag) ? byTag : Object.keys(byTag)]),
    );
  } catch {
    return {}; // the plugin has no data here: no cards of its kind
  }
}

export async function refresh(): Promise<void> {
  syncControls();
  // The scalar cards are laid out and fetched as soon as their tags are in hand (the page preloads them): the first
  // chart does not wait for the other kinds' listings, whose cards join the grid when those come.
  const others = Promise.all([listing("histograms"), listing("images")]);
  tags = { ...tags, scalars: await listing("scalars") };
  xAxes.setTags(Object.values(tags.scalars ?? {}).flat());
  for (const card of cards.values()) card.stale = true;
  // Not without cards: the page would say "no cards" until the other kinds come.
  if (wanted().length) {
    layout();
    showVisible();
  }
  const [histograms, images] = await others;
  tags = { ...tags, histograms, images };
  othersListed = true;
  layout();
  showVisible(new Set<Kind>(["histograms", "images"]));
}

export function onState(changed: Set<string>): void {
  syncControls();
  const relayout = ["runs", "runFilter", "tagFilter", "kinds", "pinned", "cardSize"].some((key) => changed.has(key));
  if (relayout) layout();
  if (changed.has("histogramMode")) {
    for (const card of cards.values()) if (card.kind === "histograms") card.stale = true;
  }
  showVisible(relayout || changed.has("histogramMode") ? undefined : new Set<Kind>(["scalars"]));
}

/** The page as the dashboards list registers it (listed with the scalars plugin: it is always there). */
export const timeSeries = {
  id: "timeseries",
  title: "Time Series",
  plugin: "scalars",
  element,
  refresh,
  onState,
};
