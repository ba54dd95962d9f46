// The colours every chart paints with, read from the page's CSS once per theme (not once per chart), and the axis
// style built from them: every uPlot set-up takes its axes from here.

import type uPlot from "uplot";
import { formatTick } from "./nice_ticks";

export interface ChartTheme {
  foreground: string;
  muted: string;
  grid: string;
  background: string;
}

let cached: { theme: string; colors: ChartTheme } | null = null;

export function chartTheme(): ChartTheme {
  const theme = document.documentElement.dataset.theme ?? "";
  if (cached?.theme === theme) return cached.colors;
  const style = getComputedStyle(document.documentElement);
  const read = (name: string, fallback: string) => style.getPropertyValue(name).trim() || fallback;
  const colors = {
    foreground: read("--fg", "#222222"),
    muted: read("--muted", "#666666"),
    grid: read("--grid", "#dddddd"),
    background: read("--bg", "#ffffff"),
  };
  cached = { theme, colors };
  return colors;
}

// One font for every axis' ticks and title: a canvas parses its font anew on each change of it, and a chart's axes
// drawn in one font set it once.
const FONT = "12px system-ui, sans-serif";

/** An axis in the theme's colours, with `extra` (its labels, size, increments) on top. */
export function themedAxis(extra: uPlot.Axis = {}): uPlot.Axis {
  const { foreground, grid } = chartTheme();
  return {
    stroke: foreground,
    font: FONT,
    grid: { stroke: grid, width: 1 },
    ticks: { stroke: grid, width: 1 },
    ...extra,
  };
}

/** A y axis of values: its ticks written as the charts write numbers (1e-4, not "0"), and kept on the plot's element
 * (`data-y-ticks`) for what reads the chart; a log axis leaves its minor ticks' labels out as null splits (no label
 * there, not "null"). */
export function valueAxis(): uPlot.Axis {
  return themedAxis({
    values: (u, splits) => {
      const labels = splits.map((value) => (value == null ? null : formatTick(value)));
      u.root.dataset.yTicks = labels.filter((label) => label !== null).join(" ");
      return labels;
    },
    size: 60,
  });
}

// The x axis's title under its tick labels: the ticks' row is made lower than uPlot's default, so that the title
// takes about the room the ticks had and the plot keeps its height.
const TICKS_SIZE = 32;
const TITLE_SIZE = 16;

/** An x axis titled `title` (what x is: "Step", "x = train/lr"), cut with an ellipsis to the plot's width. */
export function titledXAxis(title: string, extra: uPlot.Axis = {}): uPlot.Axis {
  return themedAxis({
    size: TICKS_SIZE,
    label: (u) => fitted(u.ctx, title, u.bbox.width),
    labelSize: TITLE_SIZE,
    labelGap: 0,
    labelFont: FONT,
    ...extra,
  });
}

/** `text`, or as much of it as fits `width` (the context's pixels, in its font) followed by an ellipsis. */
function fitted(context: CanvasRenderingContext2D, text: string, width: number): string {
  if (context.measureText(text).width <= width) return text;
  let [low, high] = [0, text.length];
  while (low < high) {
    const middle = Math.ceil((low + high) / 2);
    if (context.measureText(`${text.slice(0, middle)}…`).width <= width) low = middle;
    else high = middle - 1;
  }
  return `${text.slice(0, low)}…`;
}

/** Tick increments of whole numbers only (1, 2, 5, 10, 20, 25, 50, ...): a step axis never gets a tick at 4,998.25. */
export const INTEGER_INCREMENTS: number[] = (() => {
  const found: number[] = [];
  for (let power = 1; power <= 1e15; power *= 10)
    found.push(power, 2 * power, ...(power >= 10 ? [2.5 * power] : []), 5 * power);
  return found;
})();
