// The runs table grouped as the charts are ("Group by" on the scalars dashboard): a row per group above its runs,
// with its colour (the hue of its band in the charts), its count of runs and each column's mean ± std over them and
// the 95 % confidence interval of the mean (table_groups.ts computes them). A group's row collapses and expands its
// runs, and its checkbox selects them all.
// Grouped, the table asks the server for every row the filter keeps (in pages of the most it gives) and which group
// each run is in (/data/trainboard/groups/runs), and lays them out here; sorting sorts the groups by the column's mean
// and the runs within each group.

import { getJson } from "./api";
import { colorOfGroup } from "./colors";
import { formatCount, formatNumber, h } from "./dom";
import { tablePage } from "./table_data";
import {
  groupRows,
  lines,
  sortGroups,
  summaryLines,
  summaryTitle,
  type GroupRow,
  type Membership,
  type TableLine,
} from "./table_groups";
import "./table_groups.css";

/** The most rows the runs-table route gives at once. */
const MOST_ROWS = 10_000;

/** What was fetched for the grouped table's current question. */
let groups: GroupRow[] = [];
let allRows: unknown[][] = [];
/** The groups collapsed to their row, by name; kept while the page is open. */
const collapsed = new Set<string>();
let laidOut: TableLine[] = [];

/** Fetches every row the filter keeps with `columns`, sorted, and the groups of `by` (hparam:lr, regex:…, dir:0). */
export async function load(filter: string, columns: readonly string[], sort: string, by: string): Promise<void> {
  const params: Record<string, string> = { by };
  if (filter) params.filter = filter;
  const asked = getJson<{ groups: Membership[] }>("data/trainboard/groups/runs", params);
  const found: unknown[][] = [];
  let total = Infinity;
  while (found.length < total) {
    const page = await tablePage(filter, columns, sort, found.length, MOST_ROWS);
    total = page.total;
    found.push(...page.rows);
    if (!page.rows.length) break;
  }
  const memberships = (await asked).groups;
  // The groups take their hues in the charts' order (by name), whichever of the two asks first.
  for (const group of memberships) colorOfGroup(group.name);
  allRows = found;
  groups = sortGroups(groupRows(memberships, found, columns.length), columns, sort);
}

/** The table's rows, by line: a run's row where the line is a run's (the group rows are at `groupAt`). */
export function layOut(): Map<number, unknown[]> {
  laidOut = lines(groups, allRows, collapsed);
  const rows = new Map<number, unknown[]>();
  laidOut.forEach((line, index) => {
    // A group's line holds an empty row: the table fetches no page for it.
    rows.set(index, "row" in line ? line.row : []);
  });
  return rows;
}

/** The group whose row is at line `index`, if it is a group's. */
export function groupAt(index: number): { group: GroupRow; open: boolean } | undefined {
  const line = laidOut[index];
  return line && "group" in line ? line : undefined;
}

/** How many runs and groups the grouped table has. */
export function counted(): string {
  const runs = groups.reduce((sum, group) => sum + group.runs.length, 0);
  return `${formatCount(runs)} run${runs === 1 ? "" : "s"} in ${formatCount(groups.length)} group${groups.length === 1 ? "" : "s"}`;
}

/** What a group's row does to the table. */
export interface GroupActions {
  isSelected(run: string): boolean;
  select(runs: string[], on: boolean): void;
  /** The group was collapsed or expanded: the lines changed. */
  toggled(): void;
}

/** A group's row at line `index` (`top` px down), under `columns`. */
export function groupRowElement(
  index: number,
  top: number,
  columns: readonly string[],
  actions: GroupActions,
): HTMLElement {
  const { group, open } = groupAt(index)!;
  const chosen = group.runs.filter((run) => actions.isSelected(run)).length;
  const box = h("input", {
    type: "checkbox",
    class: "select",
    checked: chosen === group.runs.length,
    "aria-label": `Select the runs of group ${group.name}`,
  });
  box.indeterminate = chosen > 0 && chosen < group.runs.length;
  box.addEventListener("click", () => actions.select(group.runs, box.checked));
  const toggle = h(
    "button",
    {
      type: "button",
      class: "group-toggle",
      "aria-expanded": String(open),
      "aria-label": `${open ? "Collapse" : "Expand"} group ${group.name}`,
    },
    open ? "▾" : "▸",
  );
  toggle.addEventListener("click", () => {
    if (open) collapsed.add(group.name);
    else collapsed.delete(group.name);
    actions.toggled();
  });
  const count = group.runs.length;
  return h(
    "div",
    {
      class: "trow group-row",
      role: "row",
      "aria-expanded": String(open),
      "data-group": group.name,
      "data-runs": String(count),
      "data-index": index,
      style: `top:${top}px`,
    },
    box,
    h("span", { class: "group-swatch", style: `background:${colorOfGroup(group.name)}` }),
    toggle,
    h(
      "div",
      { class: "td name", title: `${group.name}: ${group.runs.join(", ")}` },
      h("span", { class: "shown-name" }, h("b", {}, group.name)),
      h("span", { class: "group-count" }, `${count} run${count === 1 ? "" : "s"}`),
    ),
    ...columns.map((column, at) => {
      const summary = group.columns[at]!;
      const attributes: Record<string, string> = {
        class: `td${summary.kind === "number" ? " num" : ""}`,
        title: summaryTitle(column, summary, count),
        "data-column": column,
      };
      if (summary.kind === "number") {
        attributes["data-mean"] = String(summary.mean);
        attributes["data-std"] = String(summary.std);
        attributes["data-low"] = String(summary.low);
        attributes["data-high"] = String(summary.high);
        attributes["data-finite"] = String(summary.finite);
        attributes["data-nonfinite"] = String(summary.nonFinite);
      }
      const [value, spread] = summaryLines(summary, formatNumber);
      return h(
        "div",
        attributes,
        h("span", { class: "group-value" }, value),
        spread ? h("span", { class: "group-spread" }, spread) : "",
      );
    }),
    h("div", { class: "td" }),
    h("div", { class: "td" }),
  );
}
