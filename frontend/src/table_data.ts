// The runs table's data from the server: pages of rows of `/data/trainboard/runs_table` (filtered, sorted and cut
// there, so 10,000 runs cost a page at a time), the runs' metadata (`/data/trainboard/run_metadata`: display name,
// notes, labels, star, colour) and its changes. Pure functions of the run filter language's text are here too.

import { getJson, postJson } from "./api";

export interface Page {
  columns: string[];
  rows: unknown[][];
  total: number;
}

export interface RunMetadata {
  display_name: string;
  notes: string;
  labels: string[];
  starred: boolean;
  color: string;
}

export interface MetadataChange {
  display_name?: string;
  notes?: string;
  starred?: boolean;
  color?: string;
  add_labels?: string[];
  remove_labels?: string[];
}

/** The longest filter text the server takes (store/run_filter.py MAX_FILTER_LENGTH). */
const MAX_FILTER_LENGTH = 4096;

export function tablePage(
  filter: string,
  columns: readonly string[],
  sort: string,
  offset: number,
  limit: number,
): Promise<Page> {
  const params: Record<string, string> = { offset: String(offset), limit: String(limit) };
  if (filter.trim()) params.filter = filter;
  // With no columns the server gives its default set: asked for one, the table shows the run and that one.
  params.columns = columns.length ? columns.join(",") : "status";
  if (sort) params.sort = sort;
  return getJson<Page>("data/trainboard/runs_table", params);
}

/** The server's default columns: the run's own, each hparam and the last value of each scalar tag. */
export async function defaultColumns(): Promise<string[]> {
  const page = await getJson<Page>("data/trainboard/runs_table", { limit: "1" });
  return page.columns.slice(1);
}

export async function metadata(): Promise<Map<string, RunMetadata>> {
  const answer = await getJson<{ runs: Record<string, RunMetadata> }>("data/trainboard/run_metadata");
  return new Map(Object.entries(answer.runs));
}

/** The same change to each of `runs`; the answer is their metadata after it. */
export async function changeMetadata(runs: string[], change: MetadataChange): Promise<Map<string, RunMetadata>> {
  const answer = await postJson<{ runs: Record<string, RunMetadata> }>("data/trainboard/run_metadata", {
    runs,
    ...change,
  });
  return new Map(Object.entries(answer.runs));
}

/** A quoted string of the filter language: backslashes and quotes escaped. */
export function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (found) => `\\${found}`)}"`;
}

/** A regex that matches exactly one of `names`. */
function exactly(names: readonly string[]): string {
  return `^(${names.map((name) => name.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")).join("|")})$`;
}

/** Filters (each within the server's length) that together keep exactly the runs named. */
export function namesFilters(names: readonly string[]): string[] {
  const filters: string[] = [];
  let batch: string[] = [];
  const filterOf = (chosen: string[]) => `name ~ ${quoted(exactly(chosen))}`;
  for (const name of names) {
    if (batch.length && filterOf([...batch, name]).length > MAX_FILTER_LENGTH) {
      filters.push(filterOf(batch));
      batch = [];
    }
    batch.push(name);
  }
  if (batch.length) filters.push(filterOf(batch));
  return filters;
}

/** The columns (of `columns`) whose values differ among the rows, with every row's values. */
export function differences(columns: readonly string[], rows: readonly unknown[][]): string[] {
  return columns.filter((_, index) => new Set(rows.map((row) => JSON.stringify(row[index + 1] ?? null))).size > 1);
}

/** The sort after a click on a column's header: ascending, then descending, then none. */
export function nextSort(sort: string, column: string): string {
  if (sort === column) return `-${column}`;
  if (sort === `-${column}`) return "";
  return column;
}

/** The filter text's last word and the names that complete it: hparams, tags and the summaries of tags. */
export function completions(text: string, names: readonly string[]): { stem: string; options: string[] } {
  const found = /([A-Za-z_][\w./()-]*)$/.exec(text);
  if (!found) return { stem: text, options: [] };
  const word = found[1]!.toLowerCase();
  const stem = text.slice(0, text.length - found[1]!.length);
  const options = names.filter((name) => name.toLowerCase().startsWith(word) && name.toLowerCase() !== word);
  return { stem, options: options.slice(0, 50) };
}
