// The runs table, in place of the run list's names (the "Names" button goes back): a row per run the filter box
// keeps, with a colour swatch, a star, the run's (display) name, the columns chosen (status, hparams, summaries such
// as last(t) and max(t): terms of the run filter language), its labels and notes. The server filters, sorts and pages
// it (`/data/trainboard/runs_table`): only the rows in view exist, and only their pages are fetched, so 10,000 runs
// cost what thirty do. A header's click sorts; the columns are picked, hidden and reordered in "Columns" (kept per
// experiment). Rows are selected by checkbox (shift for a range) or "Only"; hovering a row highlights its run's lines
// in every chart, and hovering a line marks its row. Notes, labels, star, colour and display name are edited here
// (not on a pinned view or without the write role: a reader sees no editing control); the selection takes bulk labels,
// stars and hiding. "Differences" shows the selected runs side by side on the columns whose values differ. A run
// picked on a chart (a click on its line) is scrolled to and marked. A row's colour is a plain swatch: the one colour
// picker opens on its click (an `<input type=color>` per row made each row about twice as dear to build).

import { colorOf, pick } from "./colors";
import { formatCount, formatDate, formatNumber, h } from "./dom";
import { PICK_RUN, highlightRun } from "./highlight";
import * as place from "./place";
import * as runQuery from "./run_query";
import { state, subscribe, update } from "./state";
import {
  changeMetadata,
  defaultColumns,
  metadata,
  tablePage,
  type MetadataChange,
  type RunMetadata,
} from "./table_data";
import { differences, namesFilters, nextSort, quoted } from "./table_terms";
import * as grouped from "./table_group_rows";
import { writable } from "./write_access";

/** What the table asks of the run selector: which runs are selected, and a new selection. */
export interface Selection {
  isSelected(run: string): boolean;
  selected(): string[];
  set(runs: Set<string>): void;
}

const ROW_HEIGHT = 28;
const PAGE_SIZE = 200;
const OVERSCAN = 10;
/** While scrolling, the pages in view are asked once the view has stayed this long: rows flung past are not. */
const ASK_AFTER_SCROLL_MS = 80;
/** Hparams and summaries shown by default (the first of the server's default set), besides the status. */
const DEFAULT_SHOWN = 8;
const STORAGE_KEY = `trainboard:table-columns:${place.experiment ?? ""}`;
/** The run-metadata columns, shown from the metadata listing; sorted on the server where it knows them. */
const METADATA_COLUMNS = ["starred", "labels", "notes"] as const;
/** Columns the table shows in cells of their own: the display name in the name cell, the colour in the swatch. */
const SHOWN_IN_PLACE: readonly string[] = ["display_name", "color"];

let selection: Selection | null = null;
let available: string[] = [];
let sortable = new Set<string>();
let info = new Map<string, RunMetadata>();
/** The rows fetched for the current question, by index; and how many runs it keeps. */
let rows = new Map<number, unknown[]>();
let total = 0;
let questionKey = "";
const pending = new Set<number>();
let anchor: number | null = null;
/** The run whose line is hovered in a chart. */
let lineRun: string | null = null;
/** Writes refused (a pinned view, the read role; or not known yet: no row is drawn before it is): editing is hidden. */
let readOnly = true;
/** The run last picked on a chart. */
let picked: string | null = null;
let shownColumns: string[] = [];
/** The row elements drawn, by index. */
let drawnRows = new Map<number, HTMLElement>();
/** The rows drawn, first and last: scrolling within them draws nothing. */
let drawnRange = "";
/** A cell is being edited: the rows are not drawn again until it is done. */
let editing = false;
/** The question whose rows are drawn: a page of it that comes later adds its rows to them (scrolling), where the
 * first page of a new question replaces them. */
let drawnKey = "";

const header = h("div", { class: "trow thead", role: "row" });
const spacer = h("div", { class: "tspacer" });
const body = h("div", { class: "tbody", id: "runs-table-body", role: "rowgroup" }, spacer);
const grid = h(
  "div",
  { class: "runs-table", id: "runs-table", role: "grid", "aria-label": "Runs table" },
  header,
  body,
);
const status = h("span", { class: "count", id: "runs-table-count" });
const problem = h("div", { class: "error", id: "runs-table-problem", role: "alert" });
const bulkLabel = h("input", { type: "text", id: "bulk-label", placeholder: "label", "aria-label": "Label to add" });
const bulk = h(
  "div",
  { class: "run-tools bulk", id: "bulk-actions" },
  bulkLabel,
  h("button", { type: "button", id: "bulk-add-label", onclick: () => void bulkChange("label") }, "Label"),
  h("button", { type: "button", id: "bulk-star", onclick: () => void bulkChange("star") }, "★ Star"),
  h("button", { type: "button", id: "bulk-unstar", onclick: () => void bulkChange("unstar") }, "☆"),
  h("button", { type: "button", id: "bulk-hide", onclick: () => bulkHide() }, "Hide"),
  h("button", { type: "button", id: "show-differences", onclick: () => void showDifferences() }, "Differences"),
);
const picker = h("div", { class: "column-picker", id: "column-picker", hidden: true });
/** The one colour picker, placed over the swatch clicked and opened there; `colorRun` is that swatch's run. */
const colorPicker = h("input", {
  type: "color",
  id: "run-color-picker",
  class: "color-picker",
  tabindex: -1,
  "aria-label": "Colour of the run",
});
let colorRun: string | null = null;
const differencesPanel = h("div", { class: "differences", id: "differences", hidden: true, role: "region" });

export const element = h(
  "div",
  { class: "runs-table-panel", id: "runs-table-panel" },
  h(
    "div",
    { class: "run-tools" },
    h("button", { type: "button", id: "pick-columns", onclick: () => togglePicker() }, "Columns"),
    status,
  ),
  picker,
  bulk,
  problem,
  differencesPanel,
  grid,
  colorPicker,
);

/** Starts the table: `chosen` is the run selector's selection. */
export function connect(chosen: Selection): void {
  selection = chosen;
  if (!state.columns.length) {
    const kept = localStorage.getItem(STORAGE_KEY);
    if (kept) update({ columns: JSON.parse(kept) as string[] });
  }
}

/** Whether the table has asked the server for its columns: the first time it is shown, not before (a page that
 * never shows it asks nothing, and a signed-out one is refused nothing). */
let started = false;
/** Whether the columns, the metadata and the page's right to write are known: rows are drawn only then. */
let ready = false;

async function start(): Promise<void> {
  // Columns already picked (the URL, or kept) are asked for at once, beside the defaults, the metadata and the right
  // to write; rows are drawn only once all of those are known.
  if (state.columns.length) refresh();
  const known = refreshMetadata();
  // The table says the server's problem when it asks for rows.
  const [given, can] = await Promise.all([defaultColumns().catch((): string[] => []), writable()]);
  readOnly = !can;
  // A server that has the run-metadata columns lists them among its default ones: then it sorts on them.
  const metadataColumns: readonly string[] = METADATA_COLUMNS;
  sortable = new Set(given.filter((column) => metadataColumns.includes(column)));
  available = given.filter((column) => !metadataColumns.includes(column) && !SHOWN_IN_PLACE.includes(column));
  await known;
  ready = true;
  // The rows of a page already asked for (columns picked) are drawn now, under a header that knows what sorts.
  renderHeader();
  render();
}

async function refreshMetadata(): Promise<void> {
  try {
    info = await metadata();
  } catch {
    return;
  }
  for (const [run, entry] of info) if (entry.color) pick(run, entry.color);
}

/** The data may have changed (new runs, new values): asked again. */
export function refresh(): void {
  questionKey = "";
  render();
}

function columns(): string[] {
  if (state.columns.length) return state.columns;
  // The run's times are in the picker: hparams and the last values tell runs apart.
  const times = new Set(["status", "start_time", "last_step", "duration"]);
  const picked = available.filter((column) => !times.has(column)).slice(0, DEFAULT_SHOWN);
  return ["status", ...picked];
}

/** The columns picked: in the URL, and kept for the experiment (a link without columns shows them). */
function pickColumns(order: string[]): void {
  update({ columns: order });
  try {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(order));
  } catch {
    // Storage full or off: the columns last as long as the URL.
  }
}

/** The filter box's last text the server may be asked, as a filter of the language (a regex on names becomes
 * `name ~ "…"`): while a text is judged, or when it is wrong, the rows of the last good one stay. */
let lastFilter = "";
function filterText(): string {
  if (!runQuery.accepted()) return lastFilter;
  const text = state.runFilter.trim();
  lastFilter = !text ? "" : state.runRegex ? `name ~ ${quoted(text)}` : text;
  return lastFilter;
}

subscribe((_, changed) => {
  if (changed.has("runFilter") || changed.has("runRegex") || changed.has("columns") || changed.has("sort")) refresh();
  else if (changed.has("groupBy")) refresh();
  else if (changed.has("runs")) render();
});

// A chart's hovered line marks its run's row: the charts mark themselves with the run they highlight.
new MutationObserver((records) => {
  const last = records[records.length - 1]!.target as HTMLElement;
  const run = last.dataset.highlight ?? null;
  if (run === lineRun) return;
  lineRun = run;
  for (const row of body.querySelectorAll<HTMLElement>(".trow[data-run]")) {
    row.classList.toggle("line-hovered", row.dataset.run === run);
  }
}).observe(document.body, { attributes: true, attributeFilter: ["data-highlight"], subtree: true });

body.addEventListener("scroll", () => {
  header.scrollLeft = body.scrollLeft;
  // Rows are drawn again only when the rows in view change, not on every pixel scrolled.
  if (visibleRange().join() !== drawnRange) render(true);
});

/** The rows to draw: those in view and OVERSCAN to 2 * OVERSCAN more each side, cut at multiples of OVERSCAN so
 * that scrolling redraws once every OVERSCAN rows. */
function visibleRange(): [number, number] {
  const top = Math.floor(body.scrollTop / ROW_HEIGHT) - OVERSCAN;
  const bottom = Math.ceil((body.scrollTop + (body.clientHeight || 600)) / ROW_HEIGHT) + OVERSCAN;
  const first = Math.max(0, Math.floor(top / OVERSCAN) * OVERSCAN);
  return [first, Math.min(total, Math.ceil(bottom / OVERSCAN) * OVERSCAN)];
}
body.addEventListener("mouseover", (event) => {
  const row = (event.target as HTMLElement).closest<HTMLElement>(".trow[data-run]");
  highlightRun(row?.dataset.run ?? null);
});
body.addEventListener("mouseleave", () => highlightRun(null));
document.addEventListener(PICK_RUN, (event) => void showPicked((event as CustomEvent<string>).detail));

/** Marks `run`'s row and scrolls it into the middle of the table's view (its place asked of the server when its
 * page is not fetched: the table's order is the server's). */
async function showPicked(run: string): Promise<void> {
  if (!state.runsTable || !started) return;
  picked = run;
  const key = questionKey;
  let index = [...rows].find(([, row]) => row[0] === run)?.[0];
  if (index === undefined && total > 0) {
    const every = await tablePage(filterText(), ["status"], state.sort, 0, total).catch(() => null);
    if (every === null || key !== questionKey) return; // the server away: the pick is marked when its row shows
    const found = every.rows.findIndex((row) => row[0] === run);
    if (found >= 0) index = found;
  }
  if (index !== undefined) body.scrollTop = Math.max(0, index * ROW_HEIGHT - (body.clientHeight - ROW_HEIGHT) / 2);
  render();
  body.querySelector<HTMLElement>(".trow.picked button.only")?.focus({ preventScroll: true });
}

colorPicker.addEventListener("change", () => {
  if (colorRun === null) return;
  pick(colorRun, colorPicker.value);
  window.dispatchEvent(new Event("trainboard:colors"));
  void change([colorRun], { color: colorPicker.value });
});

/** Opens the colour picker over `swatch`, for `run`. */
function chooseColor(run: string, swatch: HTMLElement): void {
  colorRun = run;
  colorPicker.value = colorOf(run);
  const box = swatch.getBoundingClientRect();
  colorPicker.style.left = `${box.left}px`;
  colorPicker.style.top = `${box.bottom}px`;
  try {
    colorPicker.showPicker();
  } catch {
    colorPicker.click(); // a browser without showPicker for colours
  }
}

/** Draws the rows in view, fetching the pages they are on. `scrolled`: only the rows in view changed, so the rows
 * drawn before are kept and only those new in view are built. */
export function render(scrolled = false): void {
  if (!state.runsTable || selection === null || editing) return;
  if (!started) {
    started = true;
    void start();
    return;
  }
  // Before the defaults are known, only columns already picked can be asked for; no row is drawn before it is ready.
  if (!ready && !state.columns.length) return;
  const shown = columns();
  const key = JSON.stringify([filterText(), shown, state.sort, state.groupBy]);
  if (key !== questionKey) {
    questionKey = key;
    drawnKey = "";
    rows = new Map();
    pending.clear();
    anchor = null;
    shownColumns = shown;
    renderHeader();
    void (state.groupBy ? fetchGrouped(key) : fetchPage(0, key));
    return;
  }
  if (!ready) return;
  const [first, last] = visibleRange();
  drawnRange = [first, last].join();
  clearTimeout(askTimer);
  if (scrolled) askTimer = window.setTimeout(() => askPages(key), ASK_AFTER_SCROLL_MS);
  else askPages(key);
  spacer.style.height = `${total * ROW_HEIGHT}px`;
  spacer.style.width = `${rowWidth()}px`;
  const kept = scrolled ? drawnRows : new Map<number, HTMLElement>();
  if (!scrolled) spacer.replaceChildren();
  drawnRows = new Map();
  for (let index = first; index < last; index++) {
    const row = rows.get(index);
    const group = state.groupBy ? grouped.groupAt(index) : undefined;
    const drawn = kept.get(index) ?? (group ? groupRow(index) : row ? rowElement(index, row) : null);
    if (drawn) drawnRows.set(index, drawn);
  }
  for (const [index, drawn] of kept) if (!drawnRows.has(index)) drawn.remove();
  for (const drawn of drawnRows.values()) if (drawn.parentNode !== spacer) spacer.append(drawn);
  drawnKey = key;
  const selected = selection.selected().length;
  const runs = state.groupBy ? grouped.counted() : `${formatCount(total)} run${total === 1 ? "" : "s"}`;
  status.textContent = `${runs}, ${formatCount(selected)} selected`;
  bulk.hidden = selected === 0;
  for (const control of bulk.querySelectorAll<HTMLElement>("input, #bulk-add-label, #bulk-star, #bulk-unstar")) {
    control.hidden = readOnly;
  }
  bulk.querySelector<HTMLButtonElement>("#show-differences")!.disabled = selected < 2;
}

let askTimer: number | undefined;

/** Asks for the pages of the rows in view that have not come. */
function askPages(key: string): void {
  if (key !== questionKey || state.groupBy) return; // grouped, every row was asked for at once
  const [first, last] = visibleRange();
  for (let page = Math.floor(first / PAGE_SIZE); page * PAGE_SIZE < last; page++) {
    if (!rows.has(page * PAGE_SIZE)) void fetchPage(page * PAGE_SIZE, key);
  }
}

async function fetchPage(offset: number, key: string): Promise<void> {
  if (pending.has(offset)) return;
  pending.add(offset);
  try {
    const page = await tablePage(filterText(), shownColumns, state.sort, offset, PAGE_SIZE);
    if (key !== questionKey) return;
    problem.textContent = "";
    total = page.total;
    page.rows.forEach((row, index) => rows.set(offset + index, row));
  } catch (error) {
    if (key !== questionKey) return;
    // A filter the server refuses is said under the filter box; a column it refuses, here.
    problem.textContent = state.columns.length ? String((error as Error).message) : "";
    return;
  } finally {
    pending.delete(offset);
  }
  render(key === drawnKey);
}

/** Grouped ("Group by"): every row, under its group's row (table_group_rows.ts). */
async function fetchGrouped(key: string): Promise<void> {
  try {
    await grouped.load(filterText(), shownColumns, state.sort, state.groupBy);
  } catch (error) {
    if (key === questionKey) problem.textContent = String((error as Error).message);
    return;
  }
  if (key !== questionKey) return;
  problem.textContent = "";
  rows = grouped.layOut();
  total = rows.size;
  render();
}

function groupRow(index: number): HTMLElement {
  return grouped.groupRowElement(index, index * ROW_HEIGHT, shownColumns, {
    isSelected: (run) => selection!.isSelected(run),
    select: (runs, on) => {
      const others = new Set(runs);
      const kept = selection!.selected().filter((run) => !others.has(run));
      selection!.set(new Set(on ? [...kept, ...runs] : kept));
    },
    toggled: () => {
      rows = grouped.layOut();
      total = rows.size;
      render();
    },
  });
}

const NAME_WIDTH = 220;
const CELL_WIDTH = 104;
const FIXED = "28px 26px 26px";

function rowWidth(): number {
  return 80 + NAME_WIDTH + (shownColumns.length + 2.5) * CELL_WIDTH;
}

function template(): string {
  return `${FIXED} ${NAME_WIDTH}px repeat(${shownColumns.length}, ${CELL_WIDTH}px) ${CELL_WIDTH}px ${CELL_WIDTH * 1.5}px`;
}

function renderHeader(): void {
  grid.style.setProperty("--columns", template());
  const cell = (column: string, label: string, sortKey: string | null): HTMLElement => {
    const direction = state.sort === sortKey ? "ascending" : state.sort === `-${sortKey}` ? "descending" : "none";
    const attributes = {
      class: `th${sortKey ? " sortable" : ""}`,
      role: "columnheader",
      "aria-sort": direction,
      title: sortKey ? `${column}: click to sort` : column,
      "data-column": column,
    };
    const arrow = direction === "ascending" ? " ▲" : direction === "descending" ? " ▼" : "";
    const head = h("div", attributes, h("span", {}, label), arrow);
    if (sortKey) head.addEventListener("click", () => update({ sort: nextSort(state.sort, sortKey) }));
    return head;
  };
  header.replaceChildren(
    h("div", { class: "th" }),
    h("div", { class: "th" }),
    cell("starred", "★", sortable.has("starred") ? "starred" : null),
    cell("name", "Run", "name"),
    ...shownColumns.map((column) => cell(column, column, column)),
    cell("labels", "Labels", sortable.has("labels") ? "labels" : null),
    cell("notes", "Notes", sortable.has("notes") ? "notes" : null),
  );
}

function formatValue(value: unknown, column: string): string {
  if (value === null || value === undefined) return "";
  if (typeof value === "number") {
    if (column === "start_time") return formatDate(value);
    if (!Number.isFinite(value)) return String(value);
    return Number.isInteger(value) ? String(value) : formatNumber(value);
  }
  return String(value);
}

function rowElement(index: number, row: unknown[]): HTMLElement {
  const run = String(row[0]);
  const entry = info.get(run);
  const checked = selection!.isSelected(run);
  const box = h("input", { type: "checkbox", checked, "aria-label": `Select ${run}`, class: "select" });
  box.addEventListener("click", (event) => void select(index, run, box.checked, event.shiftKey));
  const swatch = { class: "run-swatch", style: `background:${colorOf(run)}` };
  const color = readOnly
    ? h("span", { ...swatch, role: "img", "aria-label": `Colour of ${run}` })
    : h("button", { ...swatch, type: "button", "aria-label": `Colour of ${run}`, title: "Change the colour" });
  if (!readOnly) color.addEventListener("click", () => chooseColor(run, color));
  const starred = entry?.starred ?? false;
  const star = readOnly
    ? h("span", { class: `star${starred ? " on" : ""}`, title: starred ? "Starred" : "" }, starred ? "★" : "")
    : h(
        "button",
        {
          type: "button",
          class: `star${starred ? " on" : ""}`,
          "aria-pressed": String(starred),
          "aria-label": `Star ${run}`,
        },
        starred ? "★" : "☆",
      );
  if (!readOnly) star.addEventListener("click", () => void change([run], { starred: !starred }));
  const only = h(
    "button",
    { type: "button", class: "only", title: `Show only ${run}`, onclick: () => selection!.set(new Set([run])) },
    "Only",
  );
  const name = h(
    "div",
    { class: "td name", title: entry?.display_name ? `${entry.display_name} (${run})` : run },
    h("span", { class: "shown-name" }, entry?.display_name || run),
    only,
  );
  if (!readOnly) {
    name.addEventListener("dblclick", () =>
      editInline(name, entry?.display_name ?? "", (text) => change([run], { display_name: text })),
    );
  }
  const labels = h(
    "div",
    { class: "td labels" },
    ...(entry?.labels ?? []).map((label) => h("span", { class: "label" }, label)),
  );
  if (!readOnly) {
    labels.addEventListener("dblclick", () =>
      editInline(labels, (entry?.labels ?? []).join(", "), (text) => setLabels(run, entry?.labels ?? [], text)),
    );
  }
  const notes = h("div", { class: "td notes", title: entry?.notes ?? "" }, entry?.notes ?? "");
  if (!readOnly) {
    notes.addEventListener("dblclick", () =>
      editInline(notes, entry?.notes ?? "", (text) => change([run], { notes: text }), true),
    );
  }
  return h(
    "div",
    {
      class: ["trow", checked ? "selected" : "", run === lineRun ? "line-hovered" : "", run === picked ? "picked" : ""]
        .join(" ")
        .trim(),
      role: "row",
      "aria-selected": String(checked),
      "data-run": run,
      "data-index": index,
      style: `top:${index * ROW_HEIGHT}px`,
    },
    box,
    color,
    star,
    name,
    ...shownColumns.map((column, at) => {
      const value = row[at + 1];
      return h("div", { class: `td${typeof value === "number" ? " num" : ""}` }, formatValue(value, column));
    }),
    labels,
    notes,
  );
}

/** A click on a row's checkbox; with shift, every row from the last clicked one takes its state. */
async function select(index: number, run: string, on: boolean, range: boolean): Promise<void> {
  const chosen = new Set(selection!.selected());
  let runs = [run];
  if (range && anchor !== null && anchor !== index) {
    const low = Math.min(anchor, index);
    const high = Math.max(anchor, index);
    runs = await rangeRuns(low, high);
  }
  anchor = index;
  for (const name of runs) {
    if (on) chosen.add(name);
    else chosen.delete(name);
  }
  selection!.set(chosen);
}

/** The runs of rows low..high, fetched where not in view. */
async function rangeRuns(low: number, high: number): Promise<string[]> {
  const found: string[] = [];
  let complete = true;
  for (let index = low; index <= high; index++) {
    const row = rows.get(index);
    if (row?.length) found.push(String(row[0]));
    else if (!row) complete = false; // a group's line has an empty row
  }
  if (complete) return found;
  const page = await tablePage(filterText(), ["status"], state.sort, low, high - low + 1);
  return page.rows.map((row) => String(row[0]));
}

function editInline(cell: HTMLElement, value: string, save: (text: string) => Promise<void>, multiline = false): void {
  const input = multiline
    ? h("textarea", { class: "edit", rows: 4, "aria-label": "Edit" })
    : h("input", { type: "text", class: "edit", "aria-label": "Edit" });
  input.value = value;
  editing = true;
  const done = (keep: boolean) => {
    if (!editing) return; // Enter, then the blur of the input taken away
    editing = false;
    if (keep && input.value !== value) void save(input.value);
    else render();
  };
  input.addEventListener("keydown", (event) => {
    const key = event as KeyboardEvent;
    if (key.key === "Escape") done(false);
    else if (key.key === "Enter" && (!multiline || key.ctrlKey || key.metaKey)) done(true);
  });
  input.addEventListener("blur", () => done(true));
  cell.replaceChildren(input);
  input.focus();
}

async function setLabels(run: string, before: string[], text: string): Promise<void> {
  const after = text
    .split(",")
    .map((label) => label.trim())
    .filter(Boolean);
  await change([run], {
    add_labels: after.filter((label) => !before.includes(label)),
    remove_labels: before.filter((label) => !after.includes(label)),
  });
}

/** Sends a metadata change; a refusal (a read-only server) hides editing and says why. */
async function change(runs: string[], wanted: MetadataChange): Promise<void> {
  try {
    const changed = await changeMetadata(runs, wanted);
    for (const [run, entry] of changed) info.set(run, entry);
    problem.textContent = "";
  } catch (error) {
    const status = (error as { status?: number }).status ?? 0;
    if (status === 401 || status === 403 || status === 404 || status === 405) readOnly = true;
    problem.textContent = String((error as Error).message);
  }
  // A sort or filter on the metadata may now place the rows elsewhere.
  if (sortable.size) refresh();
  else render();
}

async function bulkChange(kind: "label" | "star" | "unstar"): Promise<void> {
  const runs = selection!.selected();
  if (!runs.length) return;
  if (kind === "label") {
    const label = bulkLabel.value.trim();
    if (!label) return;
    await change(runs, { add_labels: [label] });
    bulkLabel.value = "";
  } else await change(runs, { starred: kind === "star" });
}

/** "Hide": the selected rows' runs are no longer drawn. */
function bulkHide(): void {
  selection!.set(new Set());
}

function togglePicker(): void {
  picker.hidden = !picker.hidden;
  if (!picker.hidden) renderPicker();
}

function renderPicker(): void {
  const shown = columns();
  const others = available.filter((column) => !shown.includes(column));
  const move = (column: string, by: number) => {
    const order = [...shown];
    const at = order.indexOf(column);
    const to = at + by;
    if (to < 0 || to >= order.length) return;
    [order[at], order[to]] = [order[to]!, order[at]!];
    pickColumns(order);
    renderPicker();
  };
  const setShown = (order: string[]) => {
    pickColumns(order);
    renderPicker();
  };
  const add = h("input", {
    type: "text",
    id: "add-column",
    list: "column-names",
    placeholder: "max(val/acc), lr, …",
    "aria-label": "Add a column: a term of the filter language",
  });
  add.addEventListener("keydown", (event) => {
    if ((event as KeyboardEvent).key !== "Enter" || !add.value.trim()) return;
    setShown([...shown, add.value.trim()]);
  });
  picker.replaceChildren(
    h(
      "ul",
      { class: "picked-columns" },
      ...shown.map((column) =>
        h(
          "li",
          { "data-column": column },
          h("span", { class: "column-name" }, column),
          h("button", { type: "button", title: "Left", onclick: () => move(column, -1) }, "↑"),
          h("button", { type: "button", title: "Right", onclick: () => move(column, 1) }, "↓"),
          h(
            "button",
            {
              type: "button",
              class: "hide-column",
              title: `Hide ${column}`,
              onclick: () => setShown(shown.filter((name) => name !== column)),
            },
            "×",
          ),
        ),
      ),
    ),
    add,
    h("datalist", { id: "column-names" }, ...summaryNames().map((name) => h("option", { value: name }))),
    h(
      "div",
      { class: "other-columns" },
      ...others.map((column) =>
        h(
          "button",
          { type: "button", class: "add-column", onclick: () => setShown([...shown, column]) },
          `+ ${column}`,
        ),
      ),
    ),
  );
}

/** The names the filter and the columns may use: hparams, status and times, and each tag's summaries. */
export function summaryNames(): string[] {
  const tags = available.flatMap((column) => {
    const found = /^last\((.*)\)$/.exec(column);
    return found ? [found[1]!] : [];
  });
  const plain = available.filter((column) => !column.startsWith("last("));
  const functions = ["last", "max", "min", "mean", "first", "count", "step_of_min", "step_of_max"];
  return [...plain, ...tags, ...functions.flatMap((fn) => tags.map((tag) => `${fn}(${tag})`))];
}

/** The selected runs side by side on the columns (of every known one) whose values differ among them. */
async function showDifferences(): Promise<void> {
  const runs = selection!.selected();
  if (runs.length < 2) return;
  const asked = [...new Set([...available, ...columns()])];
  const found: unknown[][] = [];
  let names: string[] = asked;
  for (const filter of namesFilters(runs)) {
    const page = await tablePage(filter, asked, "name", 0, 10_000);
    names = page.columns.slice(1);
    found.push(...page.rows);
  }
  for (const row of found) {
    const entry = info.get(String(row[0]));
    row.push(entry?.labels.join(", ") ?? "", entry?.notes ?? "", entry?.starred ?? false);
  }
  const every = [...names, "labels", "notes", "starred"];
  const differing = differences(every, found);
  const close = h(
    "button",
    { type: "button", id: "close-differences", onclick: () => (differencesPanel.hidden = true) },
    "Close",
  );
  const table = h(
    "table",
    { class: "differences-table" },
    h(
      "thead",
      {},
      h("tr", {}, h("th", {}, "column"), ...found.map((row) => h("th", { title: String(row[0]) }, String(row[0])))),
    ),
    h(
      "tbody",
      {},
      ...differing.map((column) => {
        const at = every.indexOf(column) + 1;
        return h(
          "tr",
          { "data-column": column },
          h("th", {}, column),
          ...found.map((row) => h("td", {}, formatValue(row[at], column))),
        );
      }),
    ),
  );
  differencesPanel.replaceChildren(
    h(
      "div",
      { class: "run-tools" },
      h("strong", {}, `Differences among ${found.length} runs: ${differing.length} of ${every.length} columns`),
      close,
    ),
    differing.length ? table : h("p", {}, "The selected runs have the same value in every column."),
  );
  differencesPanel.hidden = false;
}
