// The hparams dashboard's pictures of the session groups the table shows: parallel coordinates (an axis per hparam
// and metric, a line per group; dragging along an axis filters that column through the HParams API) and a scatter
// plot matrix (each metric against each hparam).

import { formatNumber, h, svg } from "./dom";

export interface Column {
  key: string;
  title: string;
  kind: "hparam" | "metric";
  numeric: boolean;
}

/** A session group's values by column key. */
export interface Row {
  name: string;
  values: Map<string, number | string>;
}

/** The least room between two axes: below it the picture scrolls sideways. */
const MIN_AXIS_GAP = 120;
/** Room between an axis and its tick labels, and around the labels. */
const LABEL_GAP = 6;
const FONT = "11px system-ui, sans-serif";
const TITLE_FONT = `600 ${FONT}`;
/** A group's colour by its place in the answer (group names are not runs: they get no run colour). */
const colorAt = (index: number) => `hsl(${Math.round((index * 137.5) % 360)}, 60%, 45%)`;
const PLOT_HEIGHT = 260;
const MARGIN = 30;
const CELL = 150;
const CELL_PAD = 12;

/** How a numeric column's values are spread along its axis (TensorBoard's "Scale" of a column). */
export type ScaleKind = "linear" | "log";
/** The scale of each column by key; a column not in it is linear. */
export type Scales = ReadonlyMap<string, ScaleKind>;

/** Whether a log scale can show the column: every value it has is above zero. */
export function logPossible(column: Column, rows: Row[]): boolean {
  const numbers = rows.map((row) => Number(row.values.get(column.key))).filter(Number.isFinite);
  return column.numeric && numbers.length > 0 && numbers.every((value) => value > 0);
}

/** A log scale: ticks at the powers of ten within the range (its ends too when fewer than two powers fall in it). */
function logScale(numbers: number[]): { at: (value: number | string) => number; ticks: [string, number][] } {
  const low = Math.log10(Math.min(...numbers));
  const high = Math.log10(Math.max(...numbers));
  const span = high > low ? high - low : 1;
  const at = (value: number | string) => (Math.log10(Number(value)) - low) / span;
  const powers: number[] = [];
  for (let power = Math.ceil(low - 1e-9); power <= high + 1e-9; power++) powers.push(10 ** power);
  const ticks = (powers.length >= 2 ? powers : [10 ** low, ...powers, 10 ** high]).map((value): [string, number] => [
    formatNumber(Number(value.toPrecision(12))),
    Math.min(1, Math.max(0, at(value))),
  ]);
  return { at, ticks: [...new Map(ticks.map((tick) => [tick[0], tick])).values()] };
}

/** Where a column's values go on [0, 1]: numbers by their range (or its logarithm), other values evenly by their
 * sorted order. */
function scaleOf(
  column: Column,
  rows: Row[],
  kind: ScaleKind = "linear",
): { at: (value: number | string) => number; ticks: [string, number][] } {
  const values = rows.map((row) => row.values.get(column.key)).filter((value) => value !== undefined);
  if (kind === "log" && logPossible(column, rows)) return logScale(values.map(Number).filter(Number.isFinite));
  if (column.numeric) {
    const numbers = values.map(Number).filter(Number.isFinite);
    const low = Math.min(...numbers);
    const high = Math.max(...numbers);
    const span = high > low ? high - low : 1;
    const at = (value: number | string) => (Number(value) - low) / span;
    return {
      at,
      ticks: numbers.length
        ? [
            [formatNumber(low), 0],
            [formatNumber(high), high > low ? 1 : 0],
          ]
        : [],
    };
  }
  const distinct = [...new Set(values.map(String))].sort();
  const at = (value: number | string) =>
    distinct.length > 1 ? distinct.indexOf(String(value)) / (distinct.length - 1) : 0.5;
  return { at, ticks: distinct.map((value) => [value, at(value)]) };
}

const measure = document.createElement("canvas").getContext("2d");

/** The width of `text` as an SVG text of the pictures draws it. */
function textWidth(text: string, font = FONT): number {
  if (!measure) return text.length * 7;
  measure.font = font;
  return measure.measureText(text).width;
}

/** Parallel coordinates as wide as `available` pixels (wider when the axes would be closer than MIN_AXIS_GAP), every
 * label inside; `onBrush(column, low, high)` gets the brushed range in the column's values. */
export function parallelCoordinates(
  columns: Column[],
  rows: Row[],
  onBrush: (column: Column, values: (number | string)[], range: [number, number]) => void,
  available: number,
  kinds: Scales = new Map(),
): SVGSVGElement {
  const scales = columns.map((column) => scaleOf(column, rows, kinds.get(column.key)));
  // Titles are centred on their axis, tick labels start right of it: the first and last axes leave room for them.
  const titleHalf = (index: number) => textWidth(columns[index]?.title ?? "", TITLE_FONT) / 2 + LABEL_GAP;
  const tickRight = (index: number) =>
    Math.max(0, ...(scales[index]?.ticks ?? []).map(([label]) => textWidth(label))) + 2 * LABEL_GAP;
  const last = Math.max(0, columns.length - 1);
  const left = Math.max(MARGIN, titleHalf(0));
  const right = Math.max(MARGIN, titleHalf(last), tickRight(last));
  const gap = last ? Math.max(MIN_AXIS_GAP, (available - left - right) / last) : 0;
  const width = Math.ceil(Math.max(available, left + right + gap * last));
  const height = PLOT_HEIGHT + MARGIN * 2;
  const plot = svg("svg", { class: "parallel", width, height, viewBox: `0 0 ${width} ${height}`, role: "img" });
  plot.setAttribute("aria-label", `Parallel coordinates of ${rows.length} session groups`);
  const x = (index: number) => left + index * gap;
  const y = (fraction: number) => MARGIN + (1 - fraction) * PLOT_HEIGHT;
  rows.forEach((row, rowIndex) => {
    const points: string[] = [];
    columns.forEach((column, index) => {
      const value = row.values.get(column.key);
      if (value !== undefined) points.push(`${x(index)},${y(scales[index]!.at(value))}`);
    });
    const line = svg("polyline", { class: "group-line", points: points.join(" "), stroke: colorAt(rowIndex) });
    line.dataset.group = row.name;
    line.append(svg("title", {}, row.name));
    plot.append(line);
  });
  columns.forEach((column, index) => {
    const axis = svg("g", { class: "axis", transform: `translate(${x(index)}, 0)` });
    axis.dataset.column = column.key;
    axis.dataset.scale = kinds.get(column.key) === "log" && logPossible(column, rows) ? "log" : "linear";
    axis.append(
      svg("line", { x1: 0, x2: 0, y1: y(0), y2: y(1) }),
      svg("text", { class: "axis-title", x: 0, y: MARGIN - 12, "text-anchor": "middle" }, column.title),
      ...scales[index]!.ticks.map(([label, at]) => svg("text", { x: LABEL_GAP, y: y(at) + 4 }, label)),
    );
    // A brush: drag along the axis to keep the groups whose value falls in the range.
    const handle = svg("rect", { class: "brush-area", x: -10, y: y(1), width: 20, height: PLOT_HEIGHT });
    const brush = svg("rect", { class: "brush", x: -8, width: 16, y: 0, height: 0 });
    axis.append(brush, handle);
    handle.addEventListener("pointerdown", (down) => {
      handle.setPointerCapture(down.pointerId);
      const top = plot.getBoundingClientRect().top;
      const start = down.clientY - top;
      const move = (event: PointerEvent) => {
        const end = event.clientY - top;
        brush.setAttribute("y", String(Math.min(start, end)));
        brush.setAttribute("height", String(Math.abs(end - start)));
      };
      const up = (event: PointerEvent) => {
        handle.removeEventListener("pointermove", move);
        handle.removeEventListener("pointerup", up);
        const fractions = [start, event.clientY - top].map((at) => 1 - (at - MARGIN) / PLOT_HEIGHT);
        const range: [number, number] = [Math.min(...fractions), Math.max(...fractions)];
        const inside = rows
          .map((row) => row.values.get(column.key))
          .filter((value): value is number | string => value !== undefined)
          .filter((value) => {
            const at = scales[index]!.at(value);
            return at >= range[0] && at <= range[1];
          });
        onBrush(column, inside, range);
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up);
    });
    plot.append(axis);
  });
  return plot;
}

/** Each metric (rows) against each hparam (columns), one dot per group that has both. */
export function scatterMatrix(columns: Column[], rows: Row[], kinds: Scales = new Map()): HTMLElement {
  const hparams = columns.filter((column) => column.kind === "hparam");
  const metrics = columns.filter((column) => column.kind === "metric");
  const scales = new Map(columns.map((column) => [column.key, scaleOf(column, rows, kinds.get(column.key))]));
  const grid = h("div", { class: "scatter-matrix" });
  grid.style.gridTemplateColumns = `repeat(${hparams.length}, ${CELL}px)`;
  for (const metric of metrics) {
    for (const hparam of hparams) {
      const cell = svg("svg", { class: "scatter", width: CELL, height: CELL, role: "img" });
      cell.setAttribute("aria-label", `${metric.title} against ${hparam.title}`);
      cell.dataset.metric = metric.key;
      cell.dataset.hparam = hparam.key;
      cell.append(svg("rect", { class: "frame", x: 0.5, y: 0.5, width: CELL - 1, height: CELL - 1 }));
      const inner = CELL - 2 * CELL_PAD;
      rows.forEach((row, rowIndex) => {
        const xValue = row.values.get(hparam.key);
        const yValue = row.values.get(metric.key);
        if (xValue === undefined || yValue === undefined) return;
        const dot = svg("circle", {
          cx: CELL_PAD + scales.get(hparam.key)!.at(xValue) * inner,
          cy: CELL_PAD + (1 - scales.get(metric.key)!.at(yValue)) * inner,
          r: 3,
          fill: colorAt(rowIndex),
        });
        dot.dataset.group = row.name;
        dot.append(
          svg("title", {}, `${row.name}: ${hparam.title} ${String(xValue)}, ${metric.title} ${String(yValue)}`),
        );
        cell.append(dot);
      });
      cell.append(
        svg("text", { x: 4, y: CELL - 3, class: "label" }, hparam.title),
        svg("text", { x: 4, y: 10, class: "label" }, metric.title),
      );
      grid.append(cell);
    }
  }
  return grid;
}
