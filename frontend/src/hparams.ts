// The hparams dashboard: the experiment's session groups as a table, sorted and filtered by the HParams API
// (/data/plugin/hparams/experiment and /session_groups); click a column's header to sort by it, type in the row
// under the headers to filter (a regex for text columns, "min..max" for numbers).

import { postJson } from "./api";
import { formatNumber, h } from "./dom";
import { regex } from "./regex";
import { metricCharts } from "./hparams_rows";
import {
  groupColors,
  highlightGroup,
  logPossible,
  parallelCoordinates,
  scatterMatrix,
  type Row,
  type ScaleKind,
} from "./hparams_views";
import type { Dashboard } from "./media";

interface ColumnInfo {
  key: string;
  title: string;
  kind: "hparam" | "metric";
  name: string | { tag: string; group: string };
  numeric: boolean;
  boolean: boolean;
}

interface Experiment {
  hparamInfos: { name: string; displayName?: string; type?: string }[];
  metricInfos: { name: { tag: string; group: string }; displayName?: string }[];
}

interface SessionGroup {
  name: string;
  hparams: Record<string, string | number | boolean>;
  metricValues: { name: { tag: string; group: string }; value: number | string }[];
  sessions: unknown[];
}

const STATUSES = ["STATUS_UNKNOWN", "STATUS_SUCCESS", "STATUS_FAILURE", "STATUS_RUNNING"];
const PAGE = 1000;

let columns: ColumnInfo[] = [];
let sort: { key: string; order: "ORDER_ASC" | "ORDER_DESC" } | null = null;
const filters = new Map<string, string>();
// Each numeric column's scale in the pictures; the groups drawn last, to draw again when a scale changes.
const scaleKinds = new Map<string, ScaleKind>();
let drawnRows: Row[] = [];
// Each load takes a number; an answer that comes back after a newer load began is dropped.
let latest = 0;

const table = h("table", { class: "hparams-table", id: "hparams-table" });
const parallel = h("div", { class: "views-scroll", id: "hparams-parallel" });
const matrix = h("div", { class: "views-scroll", id: "hparams-matrix" });
const summary = h("span", { class: "count", id: "hparams-count" });
const problem = h("span", { class: "error", role: "alert" });
const scalesBar = h("div", { class: "hparams-scales", id: "hparams-scales" });
// The column whose values colour the groups' lines and dots (TensorBoard's "Color by"); "" colours by place.
const colorBy = h("select", { id: "hparams-color-by", "aria-label": "Colour the groups by" });
const colorLegend = h("span", { id: "hparams-color-legend" });
const hovered = h("p", { class: "readout", id: "hparams-hovered", role: "status" });
colorBy.addEventListener("change", () => {
  colorBy.dataset.chosen = colorBy.value;
  drawViews();
});
// A row pointed at in the table highlights its group in the pictures.
table.addEventListener("pointerover", (event) =>
  hover((event.target as Element).closest<HTMLElement>("tbody tr")?.dataset.group ?? null),
);
table.addEventListener("pointerleave", () => hover(null));

function columnParams(): unknown[] {
  return columns.map((column) => {
    const param: Record<string, unknown> = { includeInResult: true };
    param[column.kind] = column.name;
    if (sort?.key === column.key) param.order = sort.order;
    const filter = filters.get(column.key)?.trim();
    if (filter) {
      const interval = /^(-?[\d.e+-]*)\.\.(-?[\d.e+-]*)$/i.exec(filter);
      if (column.numeric && interval) {
        // JSON has no infinities: the API reads them as the strings protobuf's JSON mapping uses.
        param.filterInterval = {
          minValue: interval[1] ? Number(interval[1]) : "-Infinity",
          maxValue: interval[2] ? Number(interval[2]) : "Infinity",
        };
      } else if (column.boolean) {
        // The API filters booleans by their values only: the pattern picks which.
        param.filterDiscrete = [true, false].filter((value) => matches(filter, String(value)));
      } else param.filterRegexp = filter;
    }
    return param;
  });
}

function matches(pattern: string, text: string): boolean {
  return regex(pattern, "")?.test(text) ?? false;
}

function cell(value: unknown): string {
  if (typeof value === "number") return formatNumber(value);
  return value === undefined || value === null ? "" : String(value);
}

async function load(): Promise<void> {
  problem.textContent = "";
  const mine = ++latest;
  let groups: SessionGroup[];
  let total: number;
  try {
    const found = await postJson<{ sessionGroups: SessionGroup[]; totalSize: number }>(
      "data/plugin/hparams/session_groups",
      {
        experimentName: "",
        allowedStatuses: STATUSES,
        colParams: columnParams(),
        startIndex: 0,
        sliceSize: PAGE,
      },
    );
    if (mine !== latest) return;
    groups = found.sessionGroups;
    total = found.totalSize ?? groups.length;
  } catch (error) {
    if (mine === latest) problem.textContent = String(error);
    return;
  }
  const body = h(
    "tbody",
    {},
    ...groups.map((group) =>
      h(
        "tr",
        { "data-group": group.name },
        h("td", { class: "name" }, expandButton(group), group.name),
        ...columns.map((column) => {
          if (column.kind === "hparam") return h("td", {}, cell(group.hparams[column.name as string]));
          const name = column.name as { tag: string; group: string };
          const metric = group.metricValues.find(
            (value) => value.name.tag === name.tag && value.name.group === name.group,
          );
          return h(
            "td",
            {},
            metric ? cell(typeof metric.value === "string" ? Number(metric.value) : metric.value) : "",
          );
        }),
      ),
    ),
  );
  table.querySelector("tbody")?.remove();
  table.append(body);
  summary.textContent = `${groups.length} of ${total} session groups`;
  drawnRows = groups.map((group) => rowOf(group));
  drawViews();
}

function drawViews(): void {
  scalesBar.replaceChildren(
    h("span", {}, "Scale:"),
    ...columns
      .filter((column) => column.numeric)
      .map((column) => {
        const select = h(
          "select",
          { class: "column-scale", "data-column": column.key, "aria-label": `Scale of ${column.title}` },
          h("option", { value: "linear" }, "linear"),
          h("option", { value: "log", disabled: !logPossible(column, drawnRows) }, "log"),
        );
        select.value = scaleKinds.get(column.key) ?? "linear";
        select.addEventListener("change", () => {
          scaleKinds.set(column.key, select.value as ScaleKind);
          drawViews();
        });
        return h("label", {}, `${column.title} `, select);
      }),
  );
  const { colors, legend } = groupColors(
    columns.find((column) => column.key === colorBy.value),
    drawnRows,
    scaleKinds,
  );
  colorLegend.replaceChildren(legend);
  parallel.replaceChildren(
    parallelCoordinates(
      columns,
      drawnRows,
      colors,
      { onBrush: brushed, onHover: (row) => hover(row?.name ?? null) },
      parallel.clientWidth || 900,
      scaleKinds,
    ),
  );
  matrix.replaceChildren(scatterMatrix(columns, drawnRows, colors, scaleKinds));
  hover(null);
}

/** Highlights group `name`'s line and dots and shows its values (null: none). */
function hover(name: string | null): void {
  highlightGroup([parallel, matrix], name);
  for (const row of table.querySelectorAll<HTMLElement>("tbody tr")) {
    row.classList.toggle("highlighted", name !== null && row.dataset.group === name);
  }
  const row = drawnRows.find((found) => found.name === name);
  hovered.textContent = row
    ? `${row.name}: ` +
      columns
        .filter((column) => row.values.has(column.key))
        .map((column) => `${column.title} ${cell(row.values.get(column.key))}`)
        .join(", ")
    : "Point at a line or a row for its group's values.";
}

/** The column choices of "Colour by": every numeric column, the first metric chosen until the user picks. */
function colorChoices(): void {
  const chosen = colorBy.dataset.chosen ?? columns.find((column) => column.kind === "metric")?.key ?? "";
  colorBy.replaceChildren(
    h("option", { value: "" }, "group"),
    ...columns.filter((column) => column.numeric).map((column) => h("option", { value: column.key }, column.title)),
  );
  colorBy.value = columns.some((column) => column.key === chosen) ? chosen : "";
}

/** The button that opens a row below the group's with a chart per metric of its sessions' series. */
function expandButton(group: SessionGroup): HTMLButtonElement {
  const button = h(
    "button",
    { type: "button", class: "expand", "aria-expanded": "false", "aria-label": `Show the metrics of ${group.name}` },
    "▸",
  );
  button.addEventListener("click", () => {
    const row = button.closest("tr")!;
    const open = row.nextElementSibling?.classList.contains("expanded-row") ? row.nextElementSibling : null;
    if (open) {
      open.remove();
      button.textContent = "▸";
      button.setAttribute("aria-expanded", "false");
      return;
    }
    const charts = h("div", { class: "expanded-metrics" });
    row.after(
      h("tr", { class: "expanded-row", "data-group": group.name }, h("td", { colspan: columns.length + 1 }, charts)),
    );
    button.textContent = "▾";
    button.setAttribute("aria-expanded", "true");
    const sessions = (group.sessions as { name: string }[]).map((session) => session.name);
    const metrics = columns
      .filter((column) => column.kind === "metric")
      .map((column) => ({ name: column.name as { tag: string; group: string }, title: column.title }));
    void metricCharts(charts, sessions, metrics);
  });
  return button;
}

function rowOf(group: SessionGroup): Row {
  const values = new Map<string, number | string>();
  for (const column of columns) {
    if (column.kind === "hparam") {
      const value = group.hparams[column.name as string];
      if (typeof value === "number" && !Number.isFinite(value)) continue;
      if (value !== undefined) values.set(column.key, typeof value === "boolean" ? String(value) : value);
      continue;
    }
    const name = column.name as { tag: string; group: string };
    const metric = group.metricValues.find((found) => found.name.tag === name.tag && found.name.group === name.group);
    // NaN and infinities have no place on an axis: the table shows them.
    if (metric && Number.isFinite(Number(metric.value))) values.set(column.key, Number(metric.value));
  }
  return { name: group.name, values };
}

/** A brushed axis becomes its column's filter: an interval for numbers, the brushed values for others. */
function brushed(column: { key: string; numeric: boolean }, values: (number | string)[]): void {
  if (column.numeric) {
    const numbers = values.map(Number);
    filters.set(column.key, numbers.length ? `${Math.min(...numbers)}..${Math.max(...numbers)}` : "1..0");
  } else {
    const escaped = [...new Set(values.map(String))].map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    filters.set(column.key, escaped.length ? `^(${escaped.join("|")})$` : "^$.");
  }
  header();
  void load();
}

function header(): void {
  // The mark has a slot of its own in every header, empty when unsorted, so that sorting moves no column.
  const sortMark = (column: ColumnInfo) =>
    h(
      "span",
      { class: "sort-mark", "aria-hidden": "true" },
      sort?.key === column.key ? (sort.order === "ORDER_ASC" ? "▲" : "▼") : "",
    );
  const titles = h(
    "tr",
    {},
    h("th", {}, "Session group"),
    ...columns.map((column) => {
      const button = h(
        "button",
        { type: "button", class: "sort", "data-column": column.key },
        column.title,
        sortMark(column),
      );
      button.addEventListener("click", () => {
        sort =
          sort?.key === column.key && sort.order === "ORDER_ASC"
            ? { key: column.key, order: "ORDER_DESC" }
            : { key: column.key, order: "ORDER_ASC" };
        header();
        void load();
      });
      return h(
        "th",
        { "aria-sort": sort?.key === column.key ? (sort.order === "ORDER_ASC" ? "ascending" : "descending") : "none" },
        button,
      );
    }),
  );
  const filterRow = h(
    "tr",
    {},
    h("th", {}),
    ...columns.map((column) => {
      const input = h("input", {
        type: "search",
        class: "column-filter",
        "data-column": column.key,
        value: filters.get(column.key) ?? "",
        placeholder: column.numeric ? "min..max" : "regex",
        "aria-label": `Filter ${column.title}`,
      });
      input.addEventListener("change", () => {
        filters.set(column.key, input.value);
        void load();
      });
      return h("th", {}, input);
    }),
  );
  table.querySelector("thead")?.remove();
  table.prepend(h("thead", {}, titles, filterRow));
}

export const hparams: Dashboard = {
  ownRuns: true,
  id: "hparams",
  title: "HParams",
  plugin: "hparams",
  element: h(
    "section",
    { class: "dashboard hparams", "aria-label": "HParams" },
    h("div", { class: "toolbar" }, summary, problem),
    h("div", { class: "table-scroll" }, table),
    h("h2", {}, "Parallel coordinates"),
    h(
      "p",
      { class: "hint" },
      "Drag along an axis to keep the groups in that range (it fills the column's filter); point at a line for its " +
        "group.",
    ),
    scalesBar,
    h("div", { class: "hparams-scales" }, h("label", {}, "Colour by ", colorBy), colorLegend),
    parallel,
    hovered,
    h("h2", {}, "Metrics against hparams"),
    matrix,
  ),
  async refresh() {
    const experiment = await postJson<Experiment>("data/plugin/hparams/experiment", { experimentName: "" });
    columns = [
      ...experiment.hparamInfos.map((info) => ({
        key: `h:${info.name}`,
        title: info.displayName || info.name,
        kind: "hparam" as const,
        name: info.name,
        numeric: info.type !== "DATA_TYPE_STRING" && info.type !== "DATA_TYPE_BOOL",
        boolean: info.type === "DATA_TYPE_BOOL",
      })),
      ...experiment.metricInfos.map((info) => ({
        key: `m:${info.name.group}/${info.name.tag}`,
        title: info.displayName || info.name.tag,
        kind: "metric" as const,
        name: info.name,
        numeric: true,
        boolean: false,
      })),
    ];
    colorChoices();
    header();
    await load();
  },
  onState() {},
};
