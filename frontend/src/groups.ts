// Runs drawn by group on the scalars dashboard: a "Group by" control (an hparam, a regex capture on the run name, or
// a level of the run's path) and, on each card, every group's mean line with its band (mean ± std, or min to max),
// which the server computes on every point of the group's runs before sampling. A group keeps its hue while the page
// is open (colors.ts), and the legend under the chart lists each group's runs in shades of it.

import uPlot from "uplot";
import { postForm } from "./api";
import { titledXAxis, valueAxis } from "./chart_theme";
import { colorOfGroup, shades, withAlpha } from "./colors";
import { formatNumber, h } from "./dom";
import { state, update, type State } from "./state";

export interface Group {
  name: string;
  runs: string[];
  step: number[];
  mean: number[];
  low: number[];
  high: number[];
  count: number[];
}

interface Answer {
  groups: Group[];
}

type Kind = "" | "hparam" | "regex" | "dir";

const HEIGHT = 240;
const BAND_LABELS = { std: "mean ± std", minmax: "mean, min–max", ci: "mean, 95% CI of the mean" } as const;

const kind = h(
  "select",
  { id: "group-by", "aria-label": "Group runs by" },
  h("option", { value: "" }, "Runs"),
  h("option", { value: "hparam" }, "Hparam"),
  h("option", { value: "regex" }, "Regex capture"),
  h("option", { value: "dir" }, "Directory level"),
);
const argument = h("input", {
  type: "text",
  id: "group-argument",
  spellcheck: "false",
  "aria-label": "Hparam name, regular expression or directory level to group by",
});
const band = h(
  "select",
  { id: "group-band", "aria-label": "Band of a group" },
  h("option", { value: "std" }, "± std"),
  h("option", { value: "minmax" }, "min–max"),
  h("option", { value: "ci" }, "95% CI of mean"),
);
const problem = h("span", { class: "error", role: "alert", id: "group-error" });

export const controls = h(
  "span",
  { class: "field group-controls" },
  h("label", {}, "Group by ", kind),
  argument,
  band,
  problem,
);

const PLACEHOLDERS: Record<Kind, string> = { "": "", hparam: "lr", regex: "(.*)_seed\\d+", dir: "0" };

function split(groupBy: string): [Kind, string] {
  const at = groupBy.indexOf(":");
  const found = groupBy.slice(0, at) as Kind;
  return at > 0 && found in PLACEHOLDERS ? [found, groupBy.slice(at + 1)] : ["", ""];
}

function changed(): void {
  const chosen = kind.value as Kind;
  const value = argument.value.trim() || (chosen === "dir" ? "0" : "");
  update({ groupBy: chosen && value ? `${chosen}:${value}` : "", groupBand: band.value as State["groupBand"] });
}
kind.addEventListener("change", () => {
  argument.value = "";
  argument.placeholder = PLACEHOLDERS[kind.value as Kind];
  argument.hidden = kind.value === "";
  if (kind.value === "regex") argument.value = PLACEHOLDERS.regex;
  changed();
});
argument.addEventListener("change", changed);
band.addEventListener("change", changed);

export function syncControls(): void {
  const [found, value] = split(state.groupBy);
  kind.value = found;
  if (document.activeElement !== argument) argument.value = value;
  argument.placeholder = PLACEHOLDERS[found];
  argument.hidden = found === "";
  band.value = state.groupBand;
  band.hidden = found === "";
}

export function active(): boolean {
  return state.groupBy !== "";
}

const answers = new Map<string, Promise<Answer>>();

/** Forgets the answers: the data changed. */
export function forget(): void {
  answers.clear();
}

function groupsOf(tag: string, runs: string[]): Promise<Answer> {
  const form: [string, string][] = [
    ["tag", tag],
    ["by", state.groupBy],
    ["band", state.groupBand],
    ...runs.map((run): [string, string] => ["runs", run]),
  ];
  const key = JSON.stringify(form);
  let found = answers.get(key);
  if (!found) {
    found = postForm<Answer>("data/trainboard/groups/scalars", form, { read: true });
    answers.set(key, found);
    found.catch(() => answers.delete(key));
  }
  return found;
}

const plots = new WeakMap<HTMLElement, uPlot>();

/** Draws the card's groups in place of its runs' chart. */
export async function drawCard(card: HTMLElement, chart: HTMLElement, tag: string, runs: string[]): Promise<void> {
  chart.hidden = true;
  let holder = card.querySelector<HTMLElement>(".group-chart");
  if (!holder) {
    holder = h("div", { class: "group-chart" }, h("div", { class: "plot" }), h("ul", { class: "group-legend" }));
    card.append(holder);
  }
  const asked = `${state.groupBy}\u0000${state.groupBand}\u0000${runs.join("\u0000")}`;
  card.dataset.asked = asked;
  let answer: Answer;
  try {
    // No run shown, no group (a request without runs would group them all).
    answer = runs.length ? await groupsOf(tag, runs) : { groups: [] };
    problem.textContent = "";
  } catch (error) {
    problem.textContent = String(error instanceof Error ? error.message : error).replace(/^[\s\S]*?: /, "");
    return;
  }
  // Only the answer to the card's latest question is drawn (an older one may come later).
  if (!active() || card.dataset.asked !== asked) return;
  paint(holder, answer.groups);
  card.dataset.groups = String(answer.groups.length);
}

/** Back to the runs' chart. */
export function clearCard(card: HTMLElement, chart: HTMLElement): void {
  chart.hidden = false;
  const holder = card.querySelector<HTMLElement>(".group-chart");
  if (!holder) return;
  const plotHolder = holder.querySelector<HTMLElement>(".plot")!;
  plots.get(plotHolder)?.destroy();
  holder.remove();
  delete card.dataset.groups;
}

function paint(holder: HTMLElement, groups: Group[]): void {
  const plotHolder = holder.querySelector<HTMLElement>(".plot")!;
  const legend = holder.querySelector<HTMLElement>(".group-legend")!;
  plots.get(plotHolder)?.destroy();
  plotHolder.replaceChildren();
  const series: uPlot.Series[] = [{}];
  const bands: uPlot.Band[] = [];
  groups.forEach((group, index) => {
    const color = colorOfGroup(group.name);
    const base = 1 + index * 3;
    series.push(
      { label: group.name, stroke: color, width: 2, spanGaps: true, points: { show: group.step.length === 1 } },
      {
        label: `${group.name} low`,
        stroke: withAlpha(color, 0.5),
        width: 0.5,
        spanGaps: true,
        points: { show: false },
      },
      {
        label: `${group.name} high`,
        stroke: withAlpha(color, 0.5),
        width: 0.5,
        spanGaps: true,
        points: { show: false },
      },
    );
    bands.push({ series: [base + 2, base + 1], fill: withAlpha(color, 0.18) });
  });
  const tables = groups.map(
    (group): uPlot.AlignedData =>
      [group.step, group.mean, gaps(group.low), gaps(group.high)] as unknown as uPlot.AlignedData,
  );
  const data = tables.length ? uPlot.join(tables) : ([[]] as unknown as uPlot.AlignedData);
  const plot = new uPlot(
    {
      width: Math.max(200, holder.clientWidth || 400),
      height: HEIGHT,
      legend: { show: false },
      cursor: { drag: { x: true, y: false } },
      scales: { x: { time: false } },
      axes: [titledXAxis("Step"), valueAxis()],
      series,
      bands,
    },
    data,
    plotHolder,
  );
  plots.set(plotHolder, plot);
  legend.replaceChildren(
    ...groups.map((group) => {
      const last = group.mean.length - 1;
      const runs = group.runs.join(", ");
      return h(
        "li",
        { "data-group": group.name, "data-points": String(group.step.length), title: runs },
        h("span", { class: "swatch", style: `background:${colorOfGroup(group.name)}` }),
        h("b", { class: "group-name" }, group.name),
        h("span", { class: "band-kind" }, ` ${BAND_LABELS[state.groupBand]}`),
        last >= 0 ? h("span", { class: "last" }, ` last ${formatNumber(group.mean[last]!)}`) : "",
        h("span", { class: "group-runs" }, ` · ${group.runs.length} run${group.runs.length === 1 ? "" : "s"}: `),
        ...runSwatches(group),
      );
    }),
  );
}

/** A band's edge with no value where the server sent "NaN" (the 95% interval of one run's mean): a gap. */
function gaps(values: (number | string)[]): (number | null)[] {
  return values.map((value) => (Number.isFinite(Number(value)) ? Number(value) : null));
}

/** The group's runs, each with a shade of the group's hue. */
function runSwatches(group: Group): HTMLElement[] {
  const family = shades(colorOfGroup(group.name), group.runs.length);
  return group.runs.map((run, index) =>
    h(
      "span",
      { class: "group-run", "data-run": run },
      h("span", { class: "shade", style: `background:${family[index]}` }),
      index < group.runs.length - 1 ? `${run}, ` : run,
    ),
  );
}
