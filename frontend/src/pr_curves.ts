// The PR curves dashboard, as TensorBoard's: one chart per tag with the curve of every selected run that has it,
// coloured by run, and under it a step slider per run (each run's curve is of the step its slider is at).

import "./dashboard_tools.css";
import uPlot from "uplot";
import { getJson } from "./api";
import { themedAxis } from "./chart_theme";
import { colorOf } from "./colors";
import { formatCount, formatNumber, h } from "./dom";
import type { Dashboard } from "./media";
import { regex, regexProblem } from "./regex";
import { selectedRuns } from "./runs";
import { state, update } from "./state";

interface PrPoint {
  wall_time: number;
  step: number;
  precision: number[];
  recall: number[];
  thresholds: number[];
}

type Curve = { run: string; recall: number[]; precision: number[] };

let tagsByRun: Record<string, string[]> = {};
// Which load is the latest: an answer to an older one is dropped.
let loading = 0;

const filter = h("input", {
  type: "search",
  class: "tag-filter",
  placeholder: "Filter tags (regex)",
  "aria-label": "Filter tags by regular expression",
  spellcheck: "false",
});
const problem = h("span", { class: "error", role: "alert" });
const summary = h("span", { class: "count" });
const groups = h("div", { class: "groups" });
filter.addEventListener("input", () => {
  const found = regexProblem(filter.value);
  problem.textContent = found ?? "";
  if (found === null) update({ tagFilter: filter.value });
});

const element = h(
  "section",
  { class: "dashboard pr_curves", "aria-label": "PR curves" },
  h("div", { class: "toolbar" }, h("span", { class: "field" }, filter, problem), summary),
  groups,
);

/** The tags the filter keeps, each with the selected runs that have it. */
function shownTags(): [string, string[]][] {
  const pattern = regex(state.tagFilter);
  const runs = selectedRuns();
  const tags = [...new Set(runs.flatMap((run) => tagsByRun[run] ?? []))].sort();
  return tags
    .filter((tag) => !pattern || pattern.test(tag))
    .map((tag) => [tag, runs.filter((run) => (tagsByRun[run] ?? []).includes(tag))]);
}

/** Every run's curve on one x axis: the points of all runs sorted by recall, each index holding one run's point (the
 * others null, spanned), so curves of different thresholds and a vertical drop (equal recalls) draw as they are. */
function aligned(curves: Curve[]): uPlot.AlignedData {
  const points: [number, number, number][] = [];
  curves.forEach((curve, index) => {
    // Recall falls as the threshold rises: reversed, each curve's x ascends.
    for (let i = curve.recall.length - 1; i >= 0; i--) points.push([curve.recall[i]!, index, curve.precision[i]!]);
  });
  points.sort((a, b) => a[0] - b[0]);
  return [points.map(([x]) => x), ...curves.map((_, index) => points.map(([, run, y]) => (run === index ? y : null)))];
}

function chart(holder: HTMLElement, curves: Curve[], width: number): uPlot {
  holder.dataset.runs = JSON.stringify(curves.map((curve) => curve.run));
  return new uPlot(
    {
      width,
      height: 260,
      legend: { show: false },
      // Room either side of recall 0 and 1 keeps the vertical drop at recall 1 in view.
      scales: { x: { time: false, auto: false, range: [-0.02, 1.02] }, y: { auto: false, range: [0, 1.05] } },
      axes: [themedAxis({ label: "recall" }), themedAxis({ label: "precision", size: 60 })],
      series: [
        {},
        ...curves.map((curve) => ({
          label: curve.run,
          stroke: colorOf(curve.run),
          width: 1.5,
          spanGaps: true,
          points: { show: false },
        })),
      ],
    },
    aligned(curves),
    holder,
  );
}

async function fillCard(body: HTMLElement, tag: string, runs: string[], mine: number): Promise<void> {
  const answers = await Promise.all(
    runs.map(async (run) => {
      const found = await getJson<Record<string, PrPoint[]>>("data/plugin/pr_curves/pr_curves", { run, tag });
      return [run, found[run] ?? []] as const;
    }),
  );
  if (mine !== loading) return;
  const series = answers.filter(([, points]) => points.length > 0);
  // Each run's step: its last, until its slider moves.
  const chosen = new Map(series.map(([run, points]) => [run, points.length - 1]));
  const holder = h("div", { class: "plot" });
  const rows = h("div", { class: "pr-runs" });
  let plot: uPlot | null = null;
  const draw = () => {
    const curves = series.map(([run, points]) => {
      const point = points[chosen.get(run)!]!;
      return { run, recall: point.recall, precision: point.precision };
    });
    plot?.destroy();
    plot = chart(holder, curves, Math.max(300, body.clientWidth || 420));
  };
  for (const [run, points] of series) {
    const caption = h("span", { class: "step" });
    const readout = h("span", { class: "readout pr-readout" });
    const slider = h("input", {
      type: "range",
      class: "step-slider",
      min: 0,
      max: points.length - 1,
      step: 1,
      value: points.length - 1,
      "aria-label": `Step of ${run}`,
    });
    const row = h(
      "div",
      { class: "pr-run-row", "data-run": run, style: "display: contents" },
      h(
        "span",
        { class: "pr-run", title: run },
        h("span", { class: "swatch", style: `background:${colorOf(run)}` }),
        run,
      ),
      slider,
      h("span", {}, caption, " ", readout),
    );
    const show = () => {
      const index = Number(slider.value);
      const point = points[index]!;
      chosen.set(run, index);
      row.dataset.step = String(point.step);
      caption.textContent = `step ${point.step}`;
      readout.textContent = `precision ${formatNumber(point.precision[0] ?? NaN)}, recall ${formatNumber(point.recall[0] ?? NaN)} at the lowest threshold`;
    };
    slider.addEventListener("input", () => {
      show();
      draw();
    });
    show();
    rows.append(row);
  }
  body.replaceChildren(
    ...(series.length ? [holder, rows] : [h("p", { class: "empty" }, "No curves for the shown runs.")]),
  );
  if (series.length) draw();
}

function layout(): void {
  const mine = ++loading;
  const tags = shownTags();
  summary.textContent = `${formatCount(tags.length)} charts`;
  const cards = tags.map(([tag, runs]) => {
    const body = h("div", { class: "card-body" });
    const card = h(
      "article",
      { class: "card pr-card", "data-tag": tag },
      h("header", {}, h("h3", { title: tag }, tag), h("span", { class: "card-run" }, `${runs.length} runs`)),
      body,
    );
    void fillCard(body, tag, runs, mine).then(
      () => (card.dataset.filled = "true"),
      (error: unknown) => body.replaceChildren(h("p", { class: "error" }, String(error))),
    );
    return card;
  });
  groups.replaceChildren(
    cards.length ? h("div", { class: "cards" }, ...cards) : h("p", { class: "empty" }, "No data for the shown runs."),
  );
}

export const prCurves: Dashboard = {
  id: "pr_curves",
  title: "PR curves",
  plugin: "pr_curves",
  element,
  async refresh() {
    if (document.activeElement !== filter) filter.value = state.tagFilter;
    const listing = await getJson<Record<string, Record<string, unknown>>>("data/plugin/pr_curves/tags");
    tagsByRun = Object.fromEntries(Object.entries(listing).map(([run, tags]) => [run, Object.keys(tags)]));
    layout();
  },
  onState(changed) {
    if (document.activeElement !== filter) filter.value = state.tagFilter;
    if (changed.has("runs") || changed.has("runFilter") || changed.has("tagFilter")) layout();
  },
};
