// The runs table's group rows, computed from the table's own rows: pure functions (unit-tested). Runs are grouped as
// the charts group them (the server's /data/trainboard/groups/runs names each group and its runs); a group's row has,
// per column, the mean ± the population standard deviation of its runs' values (the std of the charts' bands), with
// non-finite values (the JSON's "NaN", "Infinity", "-Infinity") left out of both and counted, as the summaries' rules
// say (docs/storage.md), and the 95 % confidence interval of the mean (Student's t with n - 1 degrees of freedom over
// the n finite values, with their sample standard deviation: the charts' `ci` band); a column of text has each value
// with how many runs have it.

import { meanHalfWidth } from "./student_t";

/** A group as the server names it, with its runs. */
export interface Membership {
  name: string;
  runs: string[];
}

/** A column of numbers over a group's runs: the finite values' mean and population std (null without any), the 95 %
 * confidence interval of the mean with the sample std it comes from (null below two finite values), how many finite
 * values, how many non-finite, and how many runs lack a value. */
export interface NumberSummary {
  kind: "number";
  mean: number | null;
  std: number | null;
  sampleStd: number | null;
  low: number | null;
  high: number | null;
  finite: number;
  nonFinite: number;
  missing: number;
}

/** One column over a group's runs: numbers, or text with each value and its count, most frequent first. */
export type ColumnSummary = NumberSummary | { kind: "text"; values: [string, number][]; missing: number };

/** A group's row: its name, its runs in the table's order, and one summary per column. */
export interface GroupRow {
  name: string;
  runs: string[];
  columns: ColumnSummary[];
}

/** A line of the grouped table: a group's row, or a run's row (the server's: the run, then its columns' values). */
export type TableLine = { group: GroupRow; open: boolean } | { row: unknown[] };

const NON_FINITE = new Set(["NaN", "Infinity", "-Infinity"]);

/** A column's values over a group's runs (null or undefined: the run lacks it). One pass to count and add, a second
 * for the squares (as numpy's std: the squares of the differences from the mean, not the mean of squares). */
export function summarise(values: readonly unknown[]): ColumnSummary {
  let finite = 0;
  let nonFinite = 0;
  let missing = 0;
  let sum = 0;
  let text = false;
  let equal = true;
  let first = NaN;
  for (const value of values) {
    if (value === null || value === undefined) missing++;
    else if (typeof value === "number" && Number.isFinite(value)) {
      if (finite === 0) first = value;
      else if (value !== first) equal = false;
      finite++;
      sum += value;
    } else if (typeof value === "number" || (typeof value === "string" && NON_FINITE.has(value))) nonFinite++;
    else text = true;
  }
  if (text) return textSummary(values, missing);
  const counts = { finite, nonFinite, missing };
  if (!finite) return { kind: "number", mean: null, std: null, ...interval(null, 0, 0), ...counts };
  // Equal values (a group by an hparam, in its column) are their own mean, with no spread: not 0.1 ± 1e-17.
  if (equal) return { kind: "number", mean: first, std: 0, ...interval(first, finite, 0), ...counts };
  const mean = sum / finite;
  let squares = 0;
  for (const value of values) {
    if (typeof value === "number" && Number.isFinite(value)) squares += (value - mean) ** 2;
  }
  return { kind: "number", mean, std: Math.sqrt(squares / finite), ...interval(mean, finite, squares), ...counts };
}

/** The 95 % confidence interval of a mean of `n` values whose squared differences from it add up to `squares`. */
function interval(mean: number | null, n: number, squares: number): Pick<NumberSummary, "sampleStd" | "low" | "high"> {
  if (mean === null || n < 2) return { sampleStd: null, low: null, high: null };
  const sampleStd = Math.sqrt(squares / (n - 1));
  const half = meanHalfWidth(n, sampleStd)!;
  return { sampleStd, low: mean - half, high: mean + half };
}

function textSummary(values: readonly unknown[], missing: number): ColumnSummary {
  const counts = new Map<string, number>();
  for (const value of values) {
    if (value === null || value === undefined) continue;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    counts.set(text, (counts.get(text) ?? 0) + 1);
  }
  const ordered = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
  return { kind: "text", values: ordered, missing };
}

/** Each group's row over `rows` (the table's rows, in its order: [run, ...values of `columnCount` columns]); a run of
 * a group that no row has (the filter changed meanwhile) is left out, and a group left with no run is dropped. */
export function groupRows(groups: readonly Membership[], rows: readonly unknown[][], columnCount: number): GroupRow[] {
  const groupOf = new Map<string, number>();
  groups.forEach((group, index) => group.runs.forEach((run) => groupOf.set(run, index)));
  const members: unknown[][][] = groups.map(() => []);
  for (const row of rows) {
    const index = groupOf.get(String(row[0]));
    if (index !== undefined) members[index]!.push(row);
  }
  return groups.flatMap((group, index) => {
    const found = members[index]!;
    if (!found.length) return [];
    const columns = Array.from({ length: columnCount }, (_, at) => summarise(found.map((row) => row[at + 1])));
    return [{ name: group.name, runs: found.map((row) => String(row[0])), columns }];
  });
}

/** The groups in the table's sort (`column` or `-column`, as the server takes it): by the column's mean where it is
 * a number, by name otherwise; groups without a mean last either way (the server puts missing values last). The runs
 * keep the server's order within their group. No sort: the server's order of groups (by name). */
export function sortGroups(groups: readonly GroupRow[], columns: readonly string[], sort: string): GroupRow[] {
  const descending = sort.startsWith("-");
  const key = descending ? sort.slice(1) : sort;
  const at = columns.indexOf(key);
  const byName = (a: GroupRow, b: GroupRow) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  const direction = descending ? -1 : 1;
  const meanOf = (group: GroupRow): number | null => {
    const summary = group.columns[at];
    return summary?.kind === "number" ? summary.mean : null;
  };
  const numbered = at >= 0 && groups.some((group) => group.columns[at]!.kind === "number");
  if (!key || (!numbered && key !== "name")) return [...groups];
  return [...groups].sort((a, b) => {
    if (!numbered) return direction * byName(a, b);
    const [left, right] = [meanOf(a), meanOf(b)];
    if (left === null || right === null) return left === right ? byName(a, b) : left === null ? 1 : -1;
    return direction * (left - right) || byName(a, b);
  });
}

/** The table's lines: each group's row, then its runs' rows unless it is collapsed. */
export function lines(
  groups: readonly GroupRow[],
  rows: readonly unknown[][],
  collapsed: ReadonlySet<string>,
): TableLine[] {
  const rowOf = new Map(rows.map((row) => [String(row[0]), row]));
  return groups.flatMap((group): TableLine[] => {
    const open = !collapsed.has(group.name);
    const runs = open ? group.runs.map((run): TableLine => ({ row: rowOf.get(run)! })) : [];
    return [{ group, open }, ...runs];
  });
}

/** A summary as its cell says it: a line with the value (the mean, or the text values with their counts) and one
 * under it with the spread ("± std") and how many values were not finite. The 95 % interval of the mean is in the
 * cell's title only: the table's columns are too narrow for its two bounds (they pushed the count of non-finite
 * values out of sight). */
export function summaryLines(summary: ColumnSummary, format: (value: number) => string): [string, string] {
  if (summary.kind === "text") {
    if (summary.values.length === 1) return [summary.values[0]![0], ""];
    return [summary.values.map(([value, count]) => `${value} ×${count}`).join(", "), ""];
  }
  const spread = summary.std === null ? "" : `± ${format(summary.std)}`;
  const excluded = summary.nonFinite ? `${summary.nonFinite} NaN/inf` : "";
  return [summary.mean === null ? "—" : format(summary.mean), [spread, excluded].filter(Boolean).join(" · ")];
}

/** The whole of a summary, for its cell's title. */
export function summaryTitle(column: string, summary: ColumnSummary, runs: number): string {
  const lacking = summary.missing ? `; ${summary.missing} of ${runs} runs lack it` : "";
  if (summary.kind === "text")
    return `${column}: ${summary.values.map(([v, n]) => `${v} (${n})`).join(", ")}${lacking}`;
  const values =
    summary.mean === null
      ? "no finite value"
      : `mean ${summary.mean} ± std ${summary.std} (population, n) of ${summary.finite} finite values` +
        (summary.low === null
          ? "; no 95 % interval of the mean below 2 values"
          : `; 95 % interval of the mean [${summary.low}, ${summary.high}] (Student's t, ${summary.finite - 1}` +
            ` degrees of freedom, sample std ${summary.sampleStd} (n − 1))`);
  const excluded = summary.nonFinite ? `; ${summary.nonFinite} non-finite left out` : "";
  return `${column}: ${values}${excluded}${lacking}`;
}
