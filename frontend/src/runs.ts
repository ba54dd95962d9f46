// The run selector: a virtual list (only the rows in view exist), so thousands of runs cost no more than thirty;
// a filter box (the run filter language, or a regex with the `.*` button), select/deselect all matching runs, a
// colour per run that the user may change. Hovering a run highlights its lines in every chart; a run picked on a chart
// (a click on its line) is scrolled to and marked, with "Only" beside it to show that run alone.

import { colorOf, dashOf, pick, showRuns } from "./colors";
import { formatCount, h, svg } from "./dom";
import type { FilterProblem } from "./filter_problem";
import { PICK_RUN, highlightRun } from "./highlight";
import * as runQuery from "./run_query";
import * as table from "./runs_table";
import { completions } from "./table_terms";
import { state, subscribe, update } from "./state";
import * as views from "./views";

/** With no selection in the URL, this many runs (the first, by name) are selected. */
export const DEFAULT_RUNS = 100;
const ROW_HEIGHT = 26;
const OVERSCAN = 8;

let allRuns: string[] = [];
let active = 0;
/** The run last picked on a chart. */
let picked: string | null = null;

export function setRuns(runs: string[]): void {
  allRuns = runs;
  runQuery.ask(true); // the runs' values may have changed
  table.refresh();
  render();
}

export function selectedRuns(): string[] {
  const chosen = state.runs === null ? new Set(allRuns.slice(0, DEFAULT_RUNS)) : new Set(state.runs);
  const passes = runQuery.matcher();
  const shown = allRuns.filter((run) => chosen.has(run) && passes(run));
  // Every chart and the list draw the runs shown: their colours are made distinct here, where the shown runs are known.
  showRuns(shown);
  return shown;
}

// The selection as a set, made again only when the selection or the runs change: each draw of the table asks about
// every run (10,000 lookups in a list of 10,000 were the long tasks of its scrolling).
let chosenFrom: [string[] | null, string[]] = [null, []];
let chosen = new Set<string>();

function isSelected(run: string): boolean {
  if (chosenFrom[0] !== state.runs || chosenFrom[1] !== allRuns) {
    chosenFrom = [state.runs, allRuns];
    chosen = new Set(state.runs ?? allRuns.slice(0, DEFAULT_RUNS));
  }
  return chosen.has(run);
}

function matching(): string[] {
  return allRuns.filter(runQuery.matcher());
}

function setSelection(runs: Set<string>): void {
  update({ runs: allRuns.filter((run) => runs.has(run)) });
}

function toggle(run: string): void {
  const chosen = new Set(state.runs ?? allRuns.slice(0, DEFAULT_RUNS));
  if (chosen.has(run)) chosen.delete(run);
  else chosen.add(run);
  setSelection(chosen);
}

const PLACEHOLDERS = { filter: "e.g. lr < 0.01 and acc > 0.9", regex: "Regex on run names" };
const TITLES = {
  filter:
    "Filter runs on hyperparameters and final metrics: lr < 0.01 and acc > 0.9, " +
    'optimizer = adam or name ~ "seed_[12]", not (val/loss >= 1). The .* button switches to a regex on run names.',
  regex: "A regular expression on run names (case-insensitive). The .* button switches back to the filter language.",
};
const filterInput = h("input", {
  type: "search",
  id: "run-filter",
  "aria-describedby": "run-filter-problem",
  spellcheck: "false",
  list: "run-filter-names",
});
/** Completion of the filter's last word: hparam and tag names, and the tags' summaries (max(val/acc)). */
const filterNames = h("datalist", { id: "run-filter-names" });
const regexToggle = h(
  "button",
  { type: "button", id: "run-regex", class: "regex-toggle", onclick: () => runQuery.toggleRegex() },
  ".*",
);
const filterError = h("div", { class: "error filter-problem", id: "run-filter-problem", role: "alert" });
const filterMode = h("span", { class: "filter-mode", id: "run-filter-mode", "aria-live": "polite" });
const count = h("span", { class: "count", id: "run-count" });
const spacer = h("div", { class: "spacer" });
const list = h(
  "div",
  {
    class: "run-list",
    id: "run-list",
    role: "listbox",
    tabindex: 0,
    "aria-multiselectable": "true",
    "aria-label": "Runs: arrows to move, space to select",
  },
  spacer,
);

const viewToggle = h("button", {
  type: "button",
  id: "runs-view",
  class: "runs-view",
  onclick: () => update({ runsTable: !state.runsTable }),
});
/** Select all / None: of the runs the filter keeps, beside either picker. */
const namesTools = h(
  "span",
  { class: "names-tools" },
  h(
    "button",
    {
      type: "button",
      id: "select-matching",
      onclick: () => setSelection(new Set([...selectedAll(), ...matching()])),
    },
    "Select all matching",
  ),
  h("button", { type: "button", id: "deselect-matching", onclick: () => deselectMatching() }, "None"),
);

export const element = h(
  "aside",
  { class: "runs", "aria-label": "Runs" },
  h("div", { class: "run-tools filter-box" }, filterInput, filterNames, regexToggle),
  filterError,
  filterMode,
  views.element,
  h("div", { class: "run-tools" }, namesTools, viewToggle),
  count,
  list,
  table.element,
);

table.connect({ isSelected, selected: selectedAll, set: setSelection });
subscribe((_, changed) => {
  if (changed.has("runsTable")) render();
});

function selectedAll(): string[] {
  return allRuns.filter(isSelected);
}

function deselectMatching(): void {
  const drop = new Set(matching());
  setSelection(new Set(selectedAll().filter((run) => !drop.has(run))));
}

filterInput.value = state.runFilter;
filterInput.addEventListener("input", () => {
  update({ runFilter: filterInput.value });
  const { stem, options } = completions(filterInput.value, state.runRegex ? [] : table.summaryNames());
  filterNames.replaceChildren(...options.map((name) => h("option", { value: stem + name })));
  runQuery.typed();
});
list.addEventListener("scroll", () => render());
list.addEventListener("mouseover", (event) => {
  const row = (event.target as HTMLElement).closest<HTMLElement>(".run[data-run]");
  highlightRun(row?.dataset.run ?? null);
});
list.addEventListener("mouseleave", () => highlightRun(null));
document.addEventListener(PICK_RUN, (event) => showPicked((event as CustomEvent<string>).detail));

/** Marks `run` in the list and scrolls it into the middle of the list's view. */
function showPicked(run: string): void {
  picked = run;
  const index = matching().indexOf(run);
  if (index >= 0) {
    active = index;
    list.scrollTop = Math.max(0, index * ROW_HEIGHT - (list.clientHeight - ROW_HEIGHT) / 2);
  }
  render();
  list.querySelector<HTMLElement>(`.run.picked button.only`)?.focus({ preventScroll: true });
}
list.addEventListener("keydown", (event) => {
  const rows = matching();
  const moves: Record<string, number> = { ArrowDown: 1, ArrowUp: -1, PageDown: 10, PageUp: -10 };
  if (event.key in moves) active = Math.max(0, Math.min(rows.length - 1, active + moves[event.key]!));
  else if (event.key === "Home") active = 0;
  else if (event.key === "End") active = rows.length - 1;
  else if (event.key === " " || event.key === "Enter") {
    if (rows[active] !== undefined) toggle(rows[active]!);
  } else return;
  event.preventDefault();
  const top = active * ROW_HEIGHT;
  if (top < list.scrollTop) list.scrollTop = top;
  else if (top + ROW_HEIGHT > list.scrollTop + list.clientHeight) list.scrollTop = top + ROW_HEIGHT - list.clientHeight;
  render();
});

export function render(): void {
  const tableShown = state.runsTable;
  element.classList.toggle("wide", tableShown);
  viewToggle.textContent = tableShown ? "Names" : "Table";
  viewToggle.title = tableShown ? "Show the runs' names only" : "Show the runs table: hparams, metrics, notes";
  count.hidden = tableShown;
  list.hidden = tableShown;
  table.element.hidden = !tableShown;
  if (document.activeElement !== filterInput) filterInput.value = state.runFilter;
  const described = runQuery.describe();
  const regexMode = state.runRegex;
  filterInput.placeholder = PLACEHOLDERS[regexMode ? "regex" : "filter"];
  filterInput.title = TITLES[regexMode ? "regex" : "filter"];
  filterInput.setAttribute(
    "aria-label",
    regexMode ? "Filter runs by a regular expression on their names" : "Filter runs by hyperparameters and metrics",
  );
  regexToggle.setAttribute("aria-pressed", String(regexMode));
  regexToggle.title = regexMode ? "Regex on run names: on (click for the filter language)" : "Regex on run names";
  showProblem(described.problem);
  filterMode.textContent = described.label;
  filterMode.dataset.mode = described.mode;
  const rows = matching();
  active = Math.min(active, Math.max(0, rows.length - 1));
  const selected = selectedRuns().length;
  count.textContent = `${formatCount(selected)} of ${formatCount(allRuns.length)} runs shown (${formatCount(rows.length)} matching)`;
  spacer.style.height = `${rows.length * ROW_HEIGHT}px`;
  const first = Math.max(0, Math.floor(list.scrollTop / ROW_HEIGHT) - OVERSCAN);
  const inView = Math.ceil((list.scrollTop + (list.clientHeight || 600)) / ROW_HEIGHT) + OVERSCAN;
  // Behind the table the names list draws no row: they are drawn when it is shown.
  const last = tableShown ? first : Math.min(rows.length, inView);
  const items: HTMLElement[] = [];
  for (let index = first; index < last; index++) {
    const run = rows[index]!;
    const checked = isSelected(run);
    const color = h("input", {
      type: "color",
      value: colorOf(run),
      tabindex: -1,
      "aria-label": `Colour of ${run}`,
      class: "color",
    });
    color.addEventListener("change", () => {
      pick(run, color.value);
      window.dispatchEvent(new Event("trainboard:colors"));
    });
    const box = h("input", { type: "checkbox", tabindex: -1, "aria-hidden": "true", checked });
    box.addEventListener("change", () => toggle(run));
    const only = h(
      "button",
      { type: "button", class: "only", title: `Show only ${run}`, onclick: () => setSelection(new Set([run])) },
      "Only",
    );
    items.push(
      h(
        "div",
        {
          class: ["run", index === active ? "active" : "", run === picked ? "picked" : ""].join(" ").trim(),
          role: "option",
          id: `run-option-${index}`,
          "aria-selected": checked ? "true" : "false",
          "data-run": run,
          style: `top:${index * ROW_HEIGHT}px`,
          title: run,
        },
        h("label", {}, box, color, dashSample(run), h("span", { class: "name" }, run)),
        only,
      ),
    );
  }
  spacer.replaceChildren(...items);
  if (rows[active] !== undefined) list.setAttribute("aria-activedescendant", `run-option-${active}`);
  if (tableShown) table.render();
}

/** The problem under the box: the text with the place marked (a caret at its end), then what was expected there. */
function showProblem(problem: FilterProblem | null): void {
  filterError.dataset.position = problem?.position === null || !problem ? "" : String(problem.position);
  if (!problem) {
    filterError.replaceChildren();
    return;
  }
  if (problem.position === null) {
    filterError.replaceChildren(problem.message);
    return;
  }
  const marked = h("mark", { class: problem.marked ? "" : "at-end" }, problem.marked || " ");
  filterError.replaceChildren(
    h("code", { class: "filter-text" }, problem.before, marked, problem.after),
    h("span", {}, ` at ${problem.position}: ${problem.message}`),
  );
}

/** A short stroke in the run's dash pattern, for the runs past the palette's size (they share a colour, not a dash). */
function dashSample(run: string): SVGElement | null {
  const dash = dashOf(run);
  if (dash.length === 0) return null;
  return svg(
    "svg",
    { class: "dash", width: 18, height: 6, "aria-hidden": "true" },
    svg("line", {
      x1: 0,
      y1: 3,
      x2: 18,
      y2: 3,
      stroke: colorOf(run),
      "stroke-width": 2,
      "stroke-dasharray": dash.join(" "),
    }),
  );
}
