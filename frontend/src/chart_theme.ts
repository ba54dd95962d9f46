// The colours every chart paints with, read from the page's CSS once per theme (not once per chart), and the axis
// style built from them: every uPlot set-up takes its axes from here.

import type uPlot from "uplot";

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

/** An axis in the theme's colours, with `extra` (its labels, size, increments) on top. */
export function themedAxis(extra: uPlot.Axis = {}): uPlot.Axis {
  const { foreground, grid } = chartTheme();
  return { stroke: foreground, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, ...extra };
}

/** Tick increments of whole numbers only (1, 2, 5, 10, 20, 25, 50, ...): a step axis never gets a tick at 4,998.25. */
export const INTEGER_INCREMENTS: number[] = (() => {
  const found: number[] = [];
  for (let power = 1; power <= 1e15; power *= 10)
    found.push(power, 2 * power, ...(power >= 10 ? [2.5 * power] : []), 5 * power);
  return found;
})();
