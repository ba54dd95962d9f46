// The view's state, kept in the URL's fragment so that a view can be shared by link. Listeners hear every change.

import type { Smoother } from "./smoothing";

export type XAxis = "step" | "relative" | "wall";

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
  logY: boolean;
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
  groupBand: "std" | "minmax";
  /** The Time Series page's pinned cards (their keys: kind, run and tag), the kinds of card it
   * shows (a comma-separated list) and whether its charts' y range leaves outliers out. */
  pinned: string[];
  kinds: string;
  ignoreOutliers: boolean;
}

export const DEFAULTS: State = {
  dashboard: "scalars",
  runs: null,
  runFilter: "",
  runRegex: false,
  tagFilter: "",
  smoother: "ema",
  smoothing: 0.6,
  window: 10,
  x: "step",
  logY: false,
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
};

type Listener = (state: State, changed: Set<keyof State>) => void;

const listeners: Listener[] = [];

/** Tells the listeners that what `keys` mean changed though their values did not (a filter's answer came). */
export function announce(keys: (keyof State)[]): void {
  for (const listener of listeners) listener(state, new Set(keys));
}
export const state: State = { ...DEFAULTS, ...parse(location.hash) };

export function subscribe(listener: Listener): void {
  listeners.push(listener);
}

/** Applies `changes` and tells the listeners. `urlLater`: for a control that fires many times a second (a dragged
 * slider), the URL, which costs milliseconds per write, is written once the changes pause. */
export function update(changes: Partial<State>, { urlLater = false } = {}): void {
  const changed = new Set<keyof State>();
  for (const [key, value] of Object.entries(changes) as [keyof State, State[keyof State]][]) {
    if (JSON.stringify(state[key]) !== JSON.stringify(value)) {
      changed.add(key);
      (state as unknown as Record<string, unknown>)[key] = value;
    }
  }
  if (changed.size === 0) return;
  window.clearTimeout(urlTimer);
  if (urlLater) urlTimer = window.setTimeout(writeUrl, URL_PAUSE_MS);
  else writeUrl();
  for (const listener of listeners) listener(state, changed);
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

window.addEventListener("hashchange", () => {
  const next = { ...DEFAULTS, ...parse(location.hash) };
  update(next);
});

function serialise(current: State): string {
  const params = new URLSearchParams();
  for (const key of Object.keys(DEFAULTS) as (keyof State)[]) {
    const value = current[key];
    if (JSON.stringify(value) === JSON.stringify(DEFAULTS[key])) continue;
    if (key === "runs") for (const run of value as string[]) params.append("run", run);
    else if (key === "pinned") for (const card of value as string[]) params.append("pin", card);
    else params.set(key, typeof value === "boolean" ? (value ? "1" : "0") : String(value));
  }
  return params.toString();
}

function parse(hash: string): Partial<State> {
  const params = new URLSearchParams(hash.replace(/^#/, ""));
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
  if (params.has("run")) found.runs = params.getAll("run");
  if (params.has("pin")) found.pinned = params.getAll("pin");
  if (text("kinds") !== null) found.kinds = text("kinds")!;
  if (text("runFilter") !== null) found.runFilter = text("runFilter")!;
  if (text("tagFilter") !== null) found.tagFilter = text("tagFilter")!;
  if (text("graphRun") !== null) found.graphRun = text("graphRun")!;
  if (text("exceptionRun") !== null) found.exceptionRun = text("exceptionRun")!;
  if (text("exceptionTag") !== null) found.exceptionTag = text("exceptionTag")!;
  if (text("groupBy") !== null) found.groupBy = text("groupBy")!;
  const entries: Partial<State> = {
    smoother: choice("smoother", ["ema", "ma", "none"] as const),
    smoothing: number("smoothing", 0, 0.999),
    window: number("window", 1, 100000),
    x: choice("x", ["step", "relative", "wall"] as const),
    runRegex: flag("runRegex"),
    logY: flag("logY"),
    logX: flag("logX"),
    band: flag("band"),
    ignoreOutliers: flag("ignoreOutliers"),
    histogramMode: choice("histogramMode", ["offset", "overlay"] as const),
    graphKind: choice("graphKind", ["c_graph", "s_graph"] as const),
    groupBand: choice("groupBand", ["std", "minmax"] as const),
  };
  for (const [key, value] of Object.entries(entries)) {
    if (value !== undefined) (found as Record<string, unknown>)[key] = value;
  }
  return found;
}
