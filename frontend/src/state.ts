// The view's state, kept in the URL's fragment so that a view can be shared by link. Listeners hear every change.
// What every dashboard shares is listed in SHARED: the dashboard shown and the run list beside every dashboard (its
// selection and filter). Every other field is the shown dashboard's own: `state` holds the shown dashboard's values,
// and a dashboard left keeps its values here until it is shown again (a tag filter typed in Time Series is not
// Histograms'). A new field is a dashboard's own unless added to SHARED.

import type { Smoother } from "./smoothing";

/** "tag": the scalar tag `xTag` (x_axis.ts). */
export type XAxis = "step" | "relative" | "wall" | "tag";
export type CardSize = "small" | "medium" | "large";
export type TooltipSort = "nearest" | "alphabetical" | "ascending" | "descending";

export interface State {
  dashboard: string;
  /** Explicitly selected runs; null: the default selection (every run, up to DEFAULT_RUNS). */
  runs: string[] | null;
  runFilter: string;
  /** The run filter is a regular expression on run names (else a filter of the run filter language). */
  runRegex: boolean;
  tagFilter: string;
  smoother: Smoother;
  smoothing: number;
  window: number;
  x: XAxis;
  /** The scalar tag drawn as x when `x` is "tag". */
  xTag: string;
  logX: boolean;
  band: boolean;
  histogramMode: "offset" | "overlay";
  /** The graphs dashboard's run ("": the first that has a graph) and kind of graph. */
  graphRun: string;
  graphKind: "c_graph" | "s_graph";
  /** The exceptions dashboard's run and tensor ("": the first). */
  exceptionRun: string;
  exceptionTag: string;
  /** Scalars drawn by group ("": by run): `hparam:NAME`, `regex:PATTERN` or `dir:LEVEL`, with a std or min-max band. */
  groupBy: string;
  groupBand: "std" | "minmax" | "ci";
  /** The Time Series page's pinned cards (their keys: kind, run and tag), the kinds of card it
   * shows (a comma-separated list) and whether its charts' y range leaves outliers out. */
  pinned: string[];
  kinds: string;
  ignoreOutliers: boolean;
  /** The charts' card size and the order of their tooltips' rows. */
  cardSize: CardSize;
  tooltipSort: TooltipSort;
  /** The chart cards (their keys: a tag, or a custom scalars chart's category/title) with a log y axis, and those whose
   * legend the user switched (on where it is off by default, off where it is on). */
  logYCards: string[];
  legendCards: string[];
  /** The run selector shows the runs table (the default; else the runs' names), its columns (terms of the run filter language;
   * empty: the default ones) and its sort (`-max(val/acc)`: a column, `-` for descending; "": the server's order). */
  runsTable: boolean;
  columns: string[];
  sort: string;
}

export const DEFAULTS: State = {
  /** "": the first dashboard with data, in TensorBoard's order. */
  dashboard: "",
  runs: null,
  runFilter: "",
  runRegex: false,
  tagFilter: "",
  smoother: "ema",
  smoothing: 0.6,
  window: 10,
  x: "step",
  xTag: "",
  logX: false,
  band: false,
  histogramMode: "offset",
  graphRun: "",
  graphKind: "c_graph",
  exceptionRun: "",
  exceptionTag: "",
  groupBy: "",
  groupBand: "std",
  pinned: [],
  kinds: "scalars,histograms,images",
  ignoreOutliers: true,
  cardSize: "medium",
  tooltipSort: "nearest",
  logYCards: [],
  legendCards: [],
  runsTable: true,
  columns: [],
  sort: "",
};

/** The list fields, each written in the URL as one parameter per item (`run=a&run=b`), by the parameter's name. */
const LISTS: Partial<Record<keyof State, string>> = {
  runs: "run",
  pinned: "pin",
  logYCards: "logYCard",
  legendCards: "legendCard",
  columns: "col",
};

/** Shared by every dashboard, and shown as such: the run list stays beside every dashboard. */
export const SHARED: ReadonlySet<keyof State> = new Set<keyof State>([
  "dashboard",
  "runs",
  "runFilter",
  "runsTable",
  "columns",
  "sort",
]);

type Listener = (state: State, changed: Set<keyof State>) => void;

const listeners = new Set<Listener>();

/** Tells the listeners that what `keys` mean changed though their values did not (a filter's answer came). */
export function announce(keys: (keyof State)[]): void {
  for (const listener of [...listeners]) listener(state, new Set(keys));
}

const first = parse(location.hash);
export const state: State = { ...DEFAULTS, ...first.shown };
/** The own values of the dashboards not shown, by dashboard: only those that differ from the defaults. */
let kept = first.kept;

/** Adds a listener; the function returned removes it. */
export function subscribe(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

/** The page shows `dashboard` because the URL names none (the first with data): its values are kept under its name
 * when another dashboard is shown. */
export function settle(dashboard: string): void {
  if (state.dashboard === "") state.dashboard = dashboard;
}

/** Applies `changes` and tells the listeners. Showing another dashboard keeps the one left's own values and brings
 * back the shown one's (`changes` wins over them). `urlLater`: for a control that fires many times a second (a
 * dragged slider), the URL, which costs milliseconds per write, is written once the changes pause. */
export function update(changes: Partial<State>, { urlLater = false } = {}): void {
  if (changes.dashboard !== undefined && changes.dashboard !== state.dashboard) {
    if (state.dashboard !== "") kept.set(state.dashboard, ownValues(state));
    changes = { ...ownDefaults(), ...kept.get(changes.dashboard), ...changes };
    kept.delete(changes.dashboard!);
  }
  const changed = new Set<keyof State>();
  for (const [key, value] of Object.entries(changes) as [keyof State, State[keyof State]][]) {
    if (!same(state[key], value)) {
      changed.add(key);
      (state as unknown as Record<string, unknown>)[key] = value;
    }
  }
  if (changed.size === 0) return;
  window.clearTimeout(urlTimer);
  if (urlLater) urlTimer = window.setTimeout(writeUrl, URL_PAUSE_MS);
  else writeUrl();
  for (const listener of [...listeners]) listener(state, changed);
}

function ownKeys(): (keyof State)[] {
  return (Object.keys(DEFAULTS) as (keyof State)[]).filter((key) => !SHARED.has(key));
}

function ownDefaults(): Partial<State> {
  return Object.fromEntries(ownKeys().map((key) => [key, DEFAULTS[key]])) as Partial<State>;
}

/** The fields of `values` that are a dashboard's own and differ from the defaults. */
function ownValues(values: Partial<State>): Partial<State> {
  const own = ownKeys().filter((key) => key in values && !same(values[key], DEFAULTS[key]));
  return Object.fromEntries(own.map((key) => [key, values[key]])) as Partial<State>;
}

function same(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

const URL_PAUSE_MS = 200;
let urlTimer: number | undefined;

function writeUrl(): void {
  urlTimer = undefined;
  history.replaceState(null, "", `#${serialise(state)}`);
}

/** Writes the URL now if `urlLater` left it pending: when the slider is let go, or the page is left. */
export function commitUrl(): void {
  if (urlTimer === undefined) return;
  window.clearTimeout(urlTimer);
  writeUrl();
}
window.addEventListener("pagehide", commitUrl);

// A link followed or edited by hand: the view it names, every dashboard's values as it says.
window.addEventListener("hashchange", () => {
  const next = parse(location.hash);
  update({ ...DEFAULTS, ...next.shown });
  kept = next.kept;
  writeUrl();
});

// The shown dashboard's values as they are named (tagFilter=loss); another dashboard's prefixed by its name
// (histograms.tagFilter=loss).
function serialise(current: State): string {
  const params = new URLSearchParams();
  write(params, current, "");
  for (const [dashboard, values] of kept) if (dashboard !== current.dashboard) write(params, values, `${dashboard}.`);
  return params.toString();
}

function write(params: URLSearchParams, values: Partial<State>, prefix: string): void {
  for (const key of Object.keys(DEFAULTS) as (keyof State)[]) {
    const value = values[key];
    if (value === undefined || same(value, DEFAULTS[key])) continue;
    const list = LISTS[key];
    if (list) for (const item of value as string[]) params.append(prefix + list, item);
    else params.set(prefix + key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
}

function parse(hash: string): { shown: Partial<State>; kept: Map<string, Partial<State>> } {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
  const shown = new URLSearchParams();
  const others = new Map<string, URLSearchParams>();
  for (const [key, value] of params) {
    const dot = key.indexOf(".");
    if (dot < 0) shown.append(key, value);
    else {
      const dashboard = key.slice(0, dot);
      if (!others.has(dashboard)) others.set(dashboard, new URLSearchParams());
      others.get(dashboard)!.append(key.slice(dot + 1), value);
    }
  }
  const kept = new Map([...others].map(([dashboard, own]) => [dashboard, ownValues(parseParams(own))]));
  return { shown: parseParams(shown), kept };
}

function parseParams(params: URLSearchParams): Partial<State> {
  const found: Partial<State> = {};
  const text = (key: string): string | null => params.get(key);
  const number = (key: string, low: number, high: number): number | undefined => {
    const value = Number(text(key));
    return text(key) !== null && Number.isFinite(value) ? Math.min(high, Math.max(low, value)) : undefined;
  };
  const flag = (key: string): boolean | undefined => (text(key) === null ? undefined : text(key) === "1");
  const choice = <T extends string>(key: string, allowed: readonly T[]): T | undefined =>
    allowed.find((option) => option === text(key));
  if (text("dashboard")) found.dashboard = text("dashboard")!;
  for (const [key, list] of Object.entries(LISTS) as [keyof State, string][]) {
    if (params.has(list)) (found as Record<string, unknown>)[key] = params.getAll(list);
  }
  if (text("kinds") !== null) found.kinds = text("kinds")!;
  if (text("runFilter") !== null) found.runFilter = text("runFilter")!;
  if (text("tagFilter") !== null) found.tagFilter = text("tagFilter")!;
  if (text("graphRun") !== null) found.graphRun = text("graphRun")!;
  if (text("exceptionRun") !== null) found.exceptionRun = text("exceptionRun")!;
  if (text("exceptionTag") !== null) found.exceptionTag = text("exceptionTag")!;
  if (text("groupBy") !== null) found.groupBy = text("groupBy")!;
  if (text("xTag") !== null) found.xTag = text("xTag")!;
  if (text("sort") !== null) found.sort = text("sort")!;
  const entries: Partial<State> = {
    smoother: choice("smoother", ["ema", "ma", "none"] as const),
    smoothing: number("smoothing", 0, 0.999),
    window: number("window", 1, 100000),
    x: choice("x", ["step", "relative", "wall", "tag"] as const),
    runRegex: flag("runRegex"),
    runsTable: flag("runsTable"),
    logX: flag("logX"),
    band: flag("band"),
    ignoreOutliers: flag("ignoreOutliers"),
    histogramMode: choice("histogramMode", ["offset", "overlay"] as const),
    graphKind: choice("graphKind", ["c_graph", "s_graph"] as const),
    groupBand: choice("groupBand", ["std", "minmax", "ci"] as const),
    cardSize: choice("cardSize", ["small", "medium", "large"] as const),
    tooltipSort: choice("tooltipSort", ["nearest", "alphabetical", "ascending", "descending"] as const),
  };
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) (found as Record<string, unknown>)[key] = value;
  }
  return found;
}
