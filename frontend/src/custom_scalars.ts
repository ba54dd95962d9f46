// The custom scalars dashboard: the layout the runs wrote (categories of charts, each naming tags by regex), one
// line per (run, matching tag), smoothed and drawn as the scalars dashboard draws them. Margin charts draw their
// value, lower and upper series as lines.

import { getJson, type ScalarSeries } from "./api";
import { Chart } from "./chart";
import { colorOf } from "./colors";
import { h } from "./dom";
import type { Dashboard } from "./media";
import { selectedRuns } from "./runs";
import { smooth } from "./smoothing";
import { state } from "./state";

interface LayoutChart {
  title: string;
  multiline?: { tag: string[] };
  margin?: { series: { value: string; lower: string; upper: string }[] };
}

interface Layout {
  category?: { title: string; chart: LayoutChart[]; closed?: boolean }[];
}

type Rows = [number, number, number | string][];

const groups = h("div", { class: "groups" });
let charts: { chart: Chart; patterns: string[]; element: HTMLElement; data: Map<string, ScalarSeries> }[] = [];

function columns(rows: Rows): ScalarSeries {
  return {
    wallTimes: Float64Array.from(rows, (row) => row[0]),
    steps: Float64Array.from(rows, (row) => row[1]),
    values: Float64Array.from(rows, (row) => Number(row[2])),
  };
}

async function load(patterns: string[]): Promise<Map<string, ScalarSeries>> {
  const found = new Map<string, ScalarSeries>();
  await Promise.all(
    selectedRuns().flatMap((run) =>
      patterns.map(async (pattern) => {
        const body = await getJson<{ regex_valid: boolean; tag_to_events: Record<string, Rows> }>(
          "data/plugin/custom_scalars/scalars",
          { run, tag: pattern },
        );
        for (const [tag, rows] of Object.entries(body.tag_to_events)) {
          if (rows.length) found.set(`${run}\u0000${tag}`, columns(rows));
        }
      }),
    ),
  );
  return found;
}

function draw(entry: (typeof charts)[number]): void {
  const lines = [...entry.data].sort().map(([key, series]) => {
    const [run, tag] = key.split("\u0000") as [string, string];
    const label = `${run}: ${tag}`;
    return {
      run: label,
      color: colorOf(entry.data.size > 1 && patternsPerRun(entry) > 1 ? label : run),
      xs: state.x === "wall" ? series.wallTimes : series.steps,
      steps: series.steps,
      wallTimes: series.wallTimes,
      raw: series.values,
      smoothed: smooth(series.values, state.smoother, state.smoothing, state.window),
    };
  });
  entry.chart.set(lines, {
    x: state.x === "wall" ? "wall" : "step",
    logX: state.logX,
    logY: state.logY,
    band: false,
    smoothing: state.smoother !== "none",
  });
  entry.element.dataset.lines = String(lines.length);
}

// Loads started: a load that an older run selection began draws nothing once a newer one has started.
let loads = 0;

async function loadAll(): Promise<void> {
  const started = ++loads;
  await Promise.all(
    charts.map(async (entry) => {
      const data = await load(entry.patterns);
      if (started !== loads) return;
      entry.data = data;
      draw(entry);
    }),
  );
}

function patternsPerRun(entry: (typeof charts)[number]): number {
  const runs = new Set([...entry.data.keys()].map((key) => key.split("\u0000")[0]));
  return entry.data.size / Math.max(1, runs.size);
}

export const customScalars: Dashboard = {
  id: "custom_scalars",
  title: "Custom scalars",
  plugin: "custom_scalars",
  element: h("section", { class: "dashboard custom-scalars", "aria-label": "Custom scalars" }, groups),
  async refresh() {
    const layout = await getJson<Layout>("data/plugin/custom_scalars/layout");
    for (const entry of charts) entry.chart.destroy();
    charts = [];
    const sections = (layout.category ?? []).map((category) =>
      h(
        "details",
        { class: "group", "data-group": category.title, open: !category.closed },
        h("summary", {}, category.title),
        h(
          "div",
          { class: "cards" },
          ...category.chart.map((spec) => {
            const patterns =
              spec.multiline?.tag ??
              (spec.margin?.series ?? []).flatMap((series) => [series.value, series.lower, series.upper]);
            const chart = new Chart(spec.title);
            const element = h(
              "article",
              { class: "card", "data-chart": spec.title },
              h("header", {}, h("h3", { title: patterns.join(", ") }, spec.title)),
              chart.element,
            );
            charts.push({ chart, patterns, element, data: new Map() });
            return element;
          }),
        ),
      ),
    );
    groups.replaceChildren(
      ...(sections.length ? sections : [h("p", { class: "empty" }, "No custom scalar layout in this logdir.")]),
    );
    await loadAll();
  },
  onState(changed) {
    if (changed.has("runs") || changed.has("runFilter")) {
      // The cards stay: only their lines are loaded again, for the runs selected now.
      void loadAll();
      return;
    }
    for (const entry of charts) draw(entry);
  },
};
