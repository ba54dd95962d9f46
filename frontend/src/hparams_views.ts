// The hparams dashboard's pictures of the session groups the table shows: parallel coordinates (an axis per hparam
// and metric, a line per group; dragging along an axis filters that column through the HParams API) and a scatter
// plot matrix (each metric against each hparam).

import { formatNumber, h, svg } from "./dom";
import { formatTick, logTicks, niceTicks } from "./nice_ticks";

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
const TICK_LENGTH = 4;
const FONT = "11px system-ui, sans-serif";
const TITLE_FONT = `600 ${FONT}`;
const PLOT_HEIGHT = 260;
const MARGIN = 30;
/** About this many ticks on a numeric axis of the parallel coordinates, and of a scatter plot. */
const AXIS_TICKS = 8;
const CELL_TICKS = 5;
/** The least room between two labels of an axis of text values: closer ones are left out. */
const LABEL_ROOM = 13;
/** How near (pixels) the pointer must be to a group's line to pick it. */
const HOVER_REACH = 12;
const CELL = 190;
/** A scatter plot's room for its y tick labels (left) and x tick labels (bottom), and its inner padding. */
const CELL_LEFT = 46;
const CELL_BOTTOM = 20;
const CELL_PAD = 8;

/** How a numeric column's values are spread along its axis (TensorBoard's "Scale" of a column). */
export type ScaleKind = "linear" | "log";
/** The scale of each column by key; a column not in it is linear. */
export type Scales = ReadonlyMap<string, ScaleKind>;

/** Where a column's values go on [0, 1], and its ticks as [label, place]. */
interface Scale {
  at: (value: number | string) => number;
  ticks: [string, number][];
}

/** Whether a log scale can show the column: every value it has is above zero. */
export function logPossible(column: Column, rows: Row[]): boolean {
  const numbers = rows.map((row) => Number(row.values.get(column.key))).filter(Number.isFinite);
  return column.numeric && numbers.length > 0 && numbers.every((value) => value > 0);
}

function numberTicks(values: number[], at: (value: number) => number): [string, number][] {
  return values.map((value): [string, number] => [formatTick(value), Math.min(1, Math.max(0, at(value)))]);
}

/** A log scale: ticks at the powers of ten within the range (and their 2 and 5 multiples when it spans few). */
function logScale(numbers: number[]): Scale {
  const lowest = Math.min(...numbers);
  const highest = Math.max(...numbers);
  const low = Math.log10(lowest);
  const high = Math.log10(highest);
  const span = high > low ? high - low : 1;
  const at = (value: number | string) => (Math.log10(Number(value)) - low) / span;
  const inside = logTicks(lowest, highest);
  return { at, ticks: numberTicks(inside.length >= 2 ? inside : [lowest, ...inside, highest], at) };
}

/** Where a column's values go on [0, 1]: numbers by their range (or its logarithm) with round ticks inside it, other
 * values evenly by their sorted order. */
function scaleOf(column: Column, rows: Row[], kind: ScaleKind = "linear", tickCount = AXIS_TICKS): Scale {
  const values = rows.map((row) => row.values.get(column.key)).filter((value) => value !== undefined);
  if (kind === "log" && logPossible(column, rows)) return logScale(values.map(Number).filter(Number.isFinite));
  if (column.numeric) {
    const numbers = values.map(Number).filter(Number.isFinite);
    const low = Math.min(...numbers);
    const high = Math.max(...numbers);
    const span = high > low ? high - low : 1;
    const at = (value: number | string) => (Number(value) - low) / span;
    return { at, ticks: numbers.length ? numberTicks(niceTicks(low, high, tickCount), at) : [] };
  }
  const distinct = [...new Set(values.map(String))].sort();
  const at = (value: number | string) =>
    distinct.length > 1 ? distinct.indexOf(String(value)) / (distinct.length - 1) : 0.5;
  return { at, ticks: distinct.map((value) => [value, at(value)]) };
}

/** The ticks of `scale` on an axis `length` pixels long, less those whose label would touch the one kept before it:
 * labels `size(label)` pixels long along the axis (on a vertical axis, a line's height). */
function roomyTicks(
  scale: Scale,
  length: number,
  size: (label: string) => number = () => LABEL_ROOM,
): [string, number][] {
  let last: { place: number; size: number } | null = null;
  return scale.ticks.filter(([label, at]) => {
    const place = at * length;
    if (last && Math.abs(place - last.place) < (last.size + size(label)) / 2 + 2) return false;
    last = { place, size: size(label) };
    return true;
  });
}

/** Low values blue, high ones red, as TensorBoard colours groups by a metric. */
const LOW: [number, number, number] = [40, 100, 235];
const HIGH: [number, number, number] = [225, 45, 45];
/** A group's colour by its place in the answer, when colouring by no column (group names are not runs). */
const colorAt = (index: number) => `hsl(${Math.round((index * 137.5) % 360)}, 60%, 45%)`;
/** The colour of a group without a value in the colouring column. */
const NO_VALUE = "rgb(150, 150, 150)";

function ramp(fraction: number): string {
  const mix = LOW.map((low, channel) => Math.round(low + (HIGH[channel]! - low) * fraction));
  return `rgb(${mix.join(", ")})`;
}

/** Each row's colour: by its value in the numeric column `by` (blue low, red high), or by its place without one;
 * with the legend of that colouring. */
export function groupColors(
  column: Column | undefined,
  rows: Row[],
  kinds: Scales = new Map(),
): { colors: string[]; legend: HTMLElement } {
  if (!column) return { colors: rows.map((_, index) => colorAt(index)), legend: h("span", { class: "color-legend" }) };
  const scale = scaleOf(column, rows, kinds.get(column.key));
  const colors = rows.map((row) => {
    const value = row.values.get(column.key);
    return value === undefined ? NO_VALUE : ramp(Math.min(1, Math.max(0, scale.at(value))));
  });
  const numbers = rows.map((row) => Number(row.values.get(column.key))).filter(Number.isFinite);
  const legend = numbers.length
    ? h(
        "span",
        { class: "color-legend" },
        formatNumber(Math.min(...numbers)),
        h("span", { class: "color-ramp", style: `background: linear-gradient(to right, ${ramp(0)}, ${ramp(1)})` }),
        formatNumber(Math.max(...numbers)),
      )
    : h("span", { class: "color-legend" });
  return { colors, legend };
}

/** Marks the lines and dots of group `name` in `views` as highlighted (drawn over the others, which dim); null
 * clears it. Only the elements of the groups highlighted before and now are touched: a thousand groups stay fast. */
export function highlightGroup(views: Element[], name: string | null): void {
  for (const view of views) {
    view.classList.toggle("has-highlight", name !== null);
    for (const element of view.querySelectorAll(".highlighted")) element.classList.remove("highlighted");
    if (name === null) continue;
    for (const element of view.querySelectorAll(`[data-group="${CSS.escape(name)}"]`)) {
      element.classList.add("highlighted");
      // Last drawn is on top: the highlighted line or dot moves to the end of its group of lines or dots.
      if (element.parentNode?.lastElementChild !== element) element.parentNode?.append(element);
    }
  }
}

const measure = document.createElement("canvas").getContext("2d");

/** The width of `text` as an SVG text of the pictures draws it. */
function textWidth(text: string, font = FONT): number {
  if (!measure) return text.length * 7;
  measure.font = font;
  return measure.measureText(text).width;
}

/** The y (pixels) of a polyline's points at `x`, between the two points around it; null outside its ends. */
function yAt(points: [number, number][], x: number): number | null {
  for (let index = 1; index < points.length; index++) {
    const [x0, y0] = points[index - 1]!;
    const [x1, y1] = points[index]!;
    if (x >= x0 && x <= x1) return x1 > x0 ? y0 + ((y1 - y0) * (x - x0)) / (x1 - x0) : y0;
  }
  return null;
}

/** Parallel coordinates as wide as `available` pixels (wider when the axes would be closer than MIN_AXIS_GAP), every
 * label inside and drawn over the lines; a line per row in `colors[row]`. `onBrush(column, values, range)` gets the
 * values a drag along an axis kept, `onHover` the row whose line is nearest the pointer (null away from every line). */
export function parallelCoordinates(
  columns: Column[],
  rows: Row[],
  colors: string[],
  handlers: {
    onBrush: (column: Column, values: (number | string)[], range: [number, number]) => void;
    onHover: (row: Row | null) => void;
  },
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
  const lines = svg("g", { class: "lines" });
  const paths = rows.map((row, rowIndex) => {
    const points: [number, number][] = [];
    columns.forEach((column, index) => {
      const value = row.values.get(column.key);
      if (value !== undefined) points.push([x(index), y(scales[index]!.at(value))]);
    });
    const line = svg("polyline", {
      class: "group-line",
      points: points.map((point) => point.join(",")).join(" "),
      stroke: colors[rowIndex] ?? NO_VALUE,
    });
    line.dataset.group = row.name;
    line.append(svg("title", {}, row.name));
    lines.append(line);
    return points;
  });
  plot.append(lines);
  // The line nearest the pointer (vertically, where the pointer is between two axes) is the hovered group's.
  let hovered: Row | null = null;
  plot.addEventListener("pointermove", (event) => {
    const box = plot.getBoundingClientRect();
    const [atX, atY] = [event.clientX - box.left, event.clientY - box.top];
    let nearest: Row | null = null;
    let distance = HOVER_REACH;
    paths.forEach((points, index) => {
      const lineY = yAt(points, atX);
      if (lineY !== null && Math.abs(lineY - atY) <= distance)
        [nearest, distance] = [rows[index]!, Math.abs(lineY - atY)];
    });
    if (nearest !== hovered) handlers.onHover((hovered = nearest));
  });
  plot.addEventListener("pointerleave", () => {
    if (hovered) handlers.onHover((hovered = null));
  });
  columns.forEach((column, index) => {
    const axis = svg("g", { class: "axis", transform: `translate(${x(index)}, 0)` });
    axis.dataset.column = column.key;
    axis.dataset.scale = kinds.get(column.key) === "log" && logPossible(column, rows) ? "log" : "linear";
    axis.append(
      svg("line", { x1: 0, x2: 0, y1: y(0), y2: y(1) }),
      svg("text", { class: "axis-title", x: 0, y: MARGIN - 12, "text-anchor": "middle" }, column.title),
      ...roomyTicks(scales[index]!, PLOT_HEIGHT).map(([label, at]) =>
        svg(
          "g",
          { class: "tick", transform: `translate(0, ${y(at)})` },
          svg("line", { x1: 0, x2: TICK_LENGTH, y1: 0, y2: 0 }),
          // A backing of the page's colour: the lines that fan out from the axis pass under the label, not through it.
          svg("rect", {
            class: "tick-backing",
            x: LABEL_GAP - 2,
            y: -7,
            width: textWidth(label) + 4,
            height: 14,
            rx: 2,
          }),
          svg("text", { x: LABEL_GAP, y: 4 }, label),
        ),
      ),
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
        handlers.onBrush(column, inside, range);
      };
      handle.addEventListener("pointermove", move);
      handle.addEventListener("pointerup", up);
    });
    plot.append(axis);
  });
  return plot;
}

/** Each metric (rows) against each hparam (columns), one dot per group that has both, in `colors[row]`; every plot
 * with ticks on both axes, the hparams' names above the columns and the metrics' left of the rows. */
export function scatterMatrix(
  columns: Column[],
  rows: Row[],
  colors: string[],
  kinds: Scales = new Map(),
): HTMLElement {
  const hparams = columns.filter((column) => column.kind === "hparam");
  const metrics = columns.filter((column) => column.kind === "metric");
  const scales = new Map(
    columns.map((column) => [column.key, scaleOf(column, rows, kinds.get(column.key), CELL_TICKS)]),
  );
  const grid = h("div", { class: "scatter-matrix" });
  grid.style.gridTemplateColumns = `max-content repeat(${hparams.length}, ${CELL}px)`;
  grid.append(h("span", {}), ...hparams.map((hparam) => h("div", { class: "matrix-title" }, hparam.title)));
  const inner = CELL - CELL_LEFT - CELL_BOTTOM - 2 * CELL_PAD;
  const across = (fraction: number) => CELL_LEFT + CELL_PAD + fraction * inner;
  const down = (fraction: number) => CELL_PAD + (1 - fraction) * inner;
  const bottom = CELL - CELL_BOTTOM;
  for (const metric of metrics) {
    grid.append(h("div", { class: "matrix-title metric" }, metric.title));
    for (const hparam of hparams) {
      const xScale = scales.get(hparam.key)!;
      const yScale = scales.get(metric.key)!;
      const cell = svg("svg", { class: "scatter", width: CELL, height: CELL, role: "img" });
      cell.setAttribute("aria-label", `${metric.title} against ${hparam.title}`);
      cell.dataset.metric = metric.key;
      cell.dataset.hparam = hparam.key;
      const frame = svg("rect", { class: "frame", x: CELL_LEFT + 0.5, y: 0.5, width: CELL - CELL_LEFT - 1 });
      frame.setAttribute("height", String(bottom - 1));
      cell.append(frame);
      const xTicks = svg("g", { class: "x-ticks" });
      for (const [label, at] of roomyTicks(xScale, inner, (label) => textWidth(label))) {
        const place = across(at);
        xTicks.append(
          svg("line", { x1: place, x2: place, y1: bottom, y2: bottom + TICK_LENGTH }),
          svg("text", { x: place, y: CELL - 4, "text-anchor": "middle" }, label),
        );
      }
      const yTicks = svg("g", { class: "y-ticks" });
      for (const [label, at] of roomyTicks(yScale, inner)) {
        const place = down(at);
        yTicks.append(
          svg("line", { x1: CELL_LEFT - TICK_LENGTH, x2: CELL_LEFT, y1: place, y2: place }),
          svg("text", { x: CELL_LEFT - LABEL_GAP, y: place + 4, "text-anchor": "end" }, label),
        );
      }
      const dots = svg("g", { class: "dots" });
      rows.forEach((row, rowIndex) => {
        const xValue = row.values.get(hparam.key);
        const yValue = row.values.get(metric.key);
        if (xValue === undefined || yValue === undefined) return;
        const dot = svg("circle", {
          cx: across(xScale.at(xValue)),
          cy: down(yScale.at(yValue)),
          r: 3.5,
          fill: colors[rowIndex] ?? NO_VALUE,
        });
        dot.dataset.group = row.name;
        dot.append(
          svg("title", {}, `${row.name}: ${hparam.title} ${String(xValue)}, ${metric.title} ${String(yValue)}`),
        );
        dots.append(dot);
      });
      cell.append(xTicks, yTicks, dots);
      grid.append(cell);
    }
  }
  return grid;
}
