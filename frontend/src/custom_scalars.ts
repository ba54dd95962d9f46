// The custom scalars dashboard: the layout the runs wrote (categories of charts, each naming tags by regex), one
// line per (run, matching tag) in the chart card of the other scalar pages: a run's colour, a mark per tag, a legend,
// smoothed as set here. Margin charts draw their value, lower and upper series as lines.

import { getJson, type ScalarSeries } from "./api";
import { ChartCard } from "./chart_card";
import { colorOf, dashOf } from "./colors";
import { h } from "./dom";
import type { Dashboard } from "./media";
import { selectedRuns } from "./runs";
import { smooth } from "./smoothing";
import { commitUrl, state, update } from "./state";

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
let charts: { card: ChartCard; patterns: string[]; data: Map<string, ScalarSeries> }[] = [];

const smoothing = h("input", {
  type: "range",
  id: "cs-smoothing",
  min: 0,
  max: 0.999,
  step: 0.001,
  "aria-label": "Smoothing weight",
});
const smoothingValue = h("output", { for: "cs-smoothing" });
smoothing.addEventListener("input", () =>
  update({ smoothing: Number(smoothing.value), smoother: "ema" }, { urlLater: true }),
);
smoothing.addEventListener("change", commitUrl);

function syncControls(): void {
  const weight = state.smoother === "ema" ? state.smoothing : 0;
  smoothing.value = String(weight);
  smoothingValue.textContent = weight.toFixed(3);
}

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
  const tags = [...new Set([...entry.data.keys()].map((key) => key.split("\u0000")[1]!))].sort();
  const lines = [...entry.data].sort().map(([key, series]) => {
    const [run, tag] = key.split("\u0000") as [string, string];
    return {
      run,
      label: `${run}: ${tag}`,
      color: colorOf(run),
      dash: dashOf(run),
      // One run's tags share its colour: a mark per tag tells them apart (none when the chart has one tag).
      marker: tags.length > 1 ? tags.indexOf(tag) : undefined,
      xs: state.x === "wall" ? series.wallTimes : series.steps,
      steps: series.steps,
      wallTimes: series.wallTimes,
      raw: series.values,
      smoothed: smooth(series.values, state.smoother, state.smoothing, state.window),
    };
  });
  entry.card.set(lines, {
    x: state.x === "wall" ? "wall" : "step",
    logX: state.logX,
    logY: false,
    band: false,
    smoothing: state.smoother !== "none",
    tooltipSort: state.tooltipSort,
  });
  entry.card.element.dataset.lines = String(lines.length);
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

export const customScalars: Dashboard = {
  id: "custom_scalars",
  title: "Custom scalars",
  plugin: "custom_scalars",
  element: h(
    "section",
    { class: "dashboard custom-scalars", "aria-label": "Custom scalars" },
    h("div", { class: "toolbar" }, h("label", {}, "Smoothing ", smoothing, smoothingValue)),
    groups,
  ),
  async refresh() {
    syncControls();
    const layout = await getJson<Layout>("data/plugin/custom_scalars/layout");
    for (const entry of charts) entry.card.destroy();
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
            const card = new ChartCard({
              key: `${category.title}/${spec.title}`,
              title: spec.title,
              hint: patterns.join(", "),
              attributes: { "data-chart": spec.title },
              legend: true,
            });
            card.setSize(state.cardSize);
            charts.push({ card, patterns, data: new Map() });
            return card.element;
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
    syncControls();
    if (changed.has("runs") || changed.has("runFilter")) {
      // The cards stay: only their lines are loaded again, for the runs selected now.
      void loadAll();
      return;
    }
    for (const entry of charts) draw(entry);
  },
};
