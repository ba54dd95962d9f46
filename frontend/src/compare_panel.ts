// The "Compare" panel of the scalars dashboard: two run filters (the run filter's language; a group is a filter, as
// `lr = 0.1`) compared on a summary of each run, such as max(val/acc), by data/trainboard/compare: each side's mean
// with its 95 % interval and n, the difference with Welch's interval, Welch's p-value, Cohen's d, and the server's
// warnings (fewer than 3 runs on a side, runs without the metric).

import "./derived.css";
import { getJson } from "./api";
import { formatNumber, h } from "./dom";

interface Side {
  filter: string;
  n: number;
  mean: number | string;
  std: number | string;
  low: number | string;
  high: number | string;
  values: Record<string, number | string>;
  lacking: string[];
}

export interface Comparison {
  metric: string;
  a: Side;
  b: Side;
  difference: { estimate: number | string; low: number | string; high: number | string };
  t: number | string;
  df: number | string;
  p_value: number | string;
  cohens_d: number | string;
  confidence: number;
  warnings: string[];
}

const input = (id: string, label: string, placeholder: string) =>
  h("input", { type: "text", id, placeholder, spellcheck: "false", required: true, "aria-label": label });
const filterA = input("compare-a", "Runs of side A (a run filter)", "lr = 0.1");
const filterB = input("compare-b", "Runs of side B (a run filter)", "lr = 0.01");
const metric = input("compare-metric", "Summary metric of each run", "max(val/acc)");
const result = h("div", { class: "compare-result", "aria-live": "polite" });
const form = h(
  "form",
  { class: "compare-form" },
  h("label", {}, "A ", filterA),
  h("label", {}, "B ", filterB),
  h("label", {}, "Metric ", metric),
  h("button", { type: "submit", class: "compare" }, "Compare"),
);

export const element = h(
  "section",
  { class: "compare-panel", id: "compare-panel", "aria-label": "Compare two sets of runs", hidden: true },
  form,
  result,
);

export const button = h(
  "button",
  { type: "button", id: "compare-button", "aria-pressed": "false", title: "Compare two sets of runs on a summary" },
  "Compare…",
);

button.addEventListener("click", () => {
  element.hidden = !element.hidden;
  button.setAttribute("aria-pressed", String(!element.hidden));
  if (!element.hidden) filterA.focus();
});
form.addEventListener("submit", (event) => {
  event.preventDefault();
  void compare();
});

async function compare(): Promise<void> {
  result.replaceChildren(h("p", { class: "readout" }, "Comparing…"));
  let answer: Comparison;
  try {
    answer = await getJson<Comparison>("data/trainboard/compare", {
      a: filterA.value,
      b: filterB.value,
      metric: metric.value,
    });
  } catch (error) {
    result.replaceChildren(
      h("p", { class: "error", role: "alert" }, String(error instanceof Error ? error.message : error)),
    );
    return;
  }
  result.replaceChildren(...render(answer));
}

/** A number as the server sent it ("NaN", "Infinity" for the non-finite). */
const number = (value: number | string): number => Number(value);

/** A cell that shows the figure rounded and keeps it whole in data-value (what a test reads). */
function figure(name: string, value: number | string): HTMLElement {
  return h("td", { class: name, "data-value": String(number(value)) }, formatNumber(number(value)));
}

function interval(name: string, low: number | string, high: number | string): HTMLElement {
  return h(
    "td",
    { class: name, "data-low": String(number(low)), "data-high": String(number(high)) },
    `${formatNumber(number(low))} to ${formatNumber(number(high))}`,
  );
}

export function render(answer: Comparison): HTMLElement[] {
  const percent = `${Math.round(answer.confidence * 100)}%`;
  const side = (key: "a" | "b", found: Side) =>
    h(
      "tr",
      { "data-side": key, title: Object.keys(found.values).join(", ") },
      h("th", { scope: "row" }, key.toUpperCase(), " ", h("code", {}, found.filter)),
      h("td", { class: "n", "data-value": String(found.n) }, String(found.n)),
      figure("mean", found.mean),
      interval("interval", found.low, found.high),
      figure("std", found.std),
      h("td", { class: "lacking" }, found.lacking.length ? `${found.lacking.length} lack it` : ""),
    );
  const table = h(
    "table",
    { class: "compare-table" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        h("th", {}, answer.metric),
        h("th", {}, "n"),
        h("th", {}, "Mean"),
        h("th", {}, `${percent} interval`),
        h("th", {}, "Std"),
        h("th", {}, ""),
      ),
    ),
    h(
      "tbody",
      {},
      side("a", answer.a),
      side("b", answer.b),
      h(
        "tr",
        { "data-side": "difference" },
        h("th", { scope: "row" }, "A − B"),
        h("td", {}, ""),
        figure("mean", answer.difference.estimate),
        interval("interval", answer.difference.low, answer.difference.high),
        h("td", {}, ""),
        h("td", {}, ""),
      ),
    ),
  );
  const tests = h(
    "p",
    { class: "compare-tests" },
    "Welch's t-test: p = ",
    h("b", { class: "p-value", "data-value": String(number(answer.p_value)) }, formatNumber(number(answer.p_value))),
    ` (t = ${formatNumber(number(answer.t))}, df = ${formatNumber(number(answer.df))}); Cohen's d = `,
    h("b", { class: "cohens-d", "data-value": String(number(answer.cohens_d)) }, formatNumber(number(answer.cohens_d))),
  );
  const warnings = answer.warnings.map((warning) => h("p", { class: "warning", role: "note" }, warning));
  return [table, tests, ...warnings];
}
