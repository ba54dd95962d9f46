// A session group's row of the hparams table, expanded as TensorBoard's: a chart per metric with the scalar series
// of each of the group's sessions (the HParams API's metric_evals), coloured by session.

import "./dashboard_tools.css";
import uPlot from "uplot";
import { postJson } from "./api";
import { themedAxis } from "./chart_theme";
import { h } from "./dom";
import { formatTick } from "./nice_ticks";

export interface MetricName {
  tag: string;
  group: string;
}

/** [wall_time, step, value] rows, as metric_evals answers. */
type Evals = [number, number, number][];

const CHART_WIDTH = 360;
const CHART_HEIGHT = 200;
/** A session's colour by its place in the group (sessions are runs, but the table has no run colours). */
const colorAt = (index: number) => `hsl(${Math.round((index * 137.5 + 200) % 360)}, 60%, 45%)`;

async function evals(session: string, metric: MetricName): Promise<Evals | null> {
  try {
    return await postJson<Evals>("data/plugin/hparams/metric_evals", {
      experimentName: "",
      sessionName: session,
      metricName: metric,
    });
  } catch {
    // A session without the metric's series (the API answers 404): that session has no line on this chart.
    return null;
  }
}

function chart(title: string, found: [string, Evals][]): HTMLElement {
  const holder = h("div", { class: "plot" });
  const element = h(
    "figure",
    { class: "metric-chart", "data-metric": title, "data-sessions": JSON.stringify(found.map(([name]) => name)) },
    h("h4", {}, title),
    holder,
  );
  // Every session's steps on one x axis (uPlot.join fills the gaps, which the lines span).
  const data = uPlot.join(
    found.map(([, rows]) => [rows.map((row) => row[1]), rows.map((row) => row[2])] as uPlot.AlignedData),
  );
  element.dataset.points = JSON.stringify(found.map(([, rows]) => rows.map((row) => [row[1], row[2]])));
  new uPlot(
    {
      width: CHART_WIDTH,
      height: CHART_HEIGHT,
      legend: { show: false },
      scales: { x: { time: false } },
      axes: [themedAxis(), themedAxis({ size: 56, values: (_, ticks) => ticks.map(formatTick) })],
      series: [
        {},
        ...found.map(([name, rows], index) => ({
          label: name,
          stroke: colorAt(index),
          width: 1.5,
          spanGaps: true,
          // A series of one point is a dot.
          points: { show: rows.length <= 1 },
        })),
      ],
    },
    data,
    holder,
  );
  return element;
}

/** A chart per metric of the sessions' series, filled into `into`; the sessions' names are the legend. */
export async function metricCharts(
  into: HTMLElement,
  sessions: string[],
  metrics: { name: MetricName; title: string }[],
): Promise<void> {
  into.replaceChildren(h("p", { class: "readout" }, "loading the metrics' series…"));
  const charts = await Promise.all(
    metrics.map(async (metric) => {
      const found = await Promise.all(
        sessions.map(async (session): Promise<[string, Evals | null]> => [session, await evals(session, metric.name)]),
      );
      const series = found.filter((entry): entry is [string, Evals] => (entry[1]?.length ?? 0) > 0);
      return series.length ? chart(metric.title, series) : null;
    }),
  );
  const legend = h(
    "ul",
    { class: "embedding-legend session-legend" },
    ...sessions.map((session, index) =>
      h("li", {}, h("span", { class: "swatch", style: `background:${colorAt(index)}` }), session),
    ),
  );
  const shown = charts.filter((found): found is HTMLElement => found !== null);
  into.replaceChildren(
    legend,
    shown.length
      ? h("div", { class: "metric-charts" }, ...shown)
      : h("p", { class: "empty" }, "No scalar series for these metrics."),
  );
  into.dataset.filled = "true";
}
