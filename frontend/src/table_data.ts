// The runs table's data from the server: pages of rows of `/data/trainboard/runs_table` (filtered, sorted and cut
// there, so 10,000 runs cost a page at a time), the runs' metadata (`/data/trainboard/run_metadata`: display name,
// notes, labels, star, colour) and its changes.

import { getJson, postJson } from "./api";

/** The answers on their way, by question: a page asked twice while the first is coming (the table's start and the
 * run list's arrival both ask for the first page) is fetched once. */
const coming = new Map<string, Promise<unknown>>();

function getOnce<T>(path: string, params: Record<string, string>): Promise<T> {
  const key = JSON.stringify([path, params]);
  const known = coming.get(key);
  if (known) return known as Promise<T>;
  const answer = getJson<T>(path, params).finally(() => coming.delete(key));
  coming.set(key, answer);
  return answer;
}

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
  return getOnce<Page>("data/trainboard/runs_table", params);
}

/** The server's default columns: the run's own, each hparam and the last value of each scalar tag. */
export async function defaultColumns(): Promise<string[]> {
  const page = await getOnce<Page>("data/trainboard/runs_table", { limit: "1" });
  return page.columns.slice(1);
}

export async function metadata(): Promise<Map<string, RunMetadata>> {
  const answer = await getOnce<{ runs: Record<string, RunMetadata> }>("data/trainboard/run_metadata", {});
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
