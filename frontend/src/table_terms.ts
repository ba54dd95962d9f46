// The runs table's text of the run filter language, and what it computes from rows: pure functions (unit-tested).

/** The longest filter text the server takes (store/run_filter.py MAX_FILTER_LENGTH). */
const MAX_FILTER_LENGTH = 4096;

/** A quoted string of the filter language: backslashes and quotes escaped. */
export function quoted(text: string): string {
  return `"${text.replace(/[\\"]/g, (found) => `\\${found}`)}"`;
}

const escapedName = (name: string): string => name.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** Filters (each within the server's length) that together keep exactly the runs named. */
export function namesFilters(names: readonly string[]): string[] {
  const filterOf = (chosen: string[]) => `name ~ ${quoted(`^(${chosen.join("|")})$`)}`;
  const filters: string[] = [];
  let batch: string[] = [];
  let length = filterOf([]).length;
  for (const name of names) {
    const escaped = escapedName(name);
    // Each character of the pattern is at most two in the quoted string, and a name adds its `|`.
    const adds = quoted(escaped).length - 2 + 1;
    if (batch.length && length + adds > MAX_FILTER_LENGTH) {
      filters.push(filterOf(batch));
      batch = [];
      length = filterOf([]).length;
    }
    batch.push(escaped);
    length += adds;
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
