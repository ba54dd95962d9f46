// The ranges a chart draws: the x extent of its lines, the y range of what it draws (all of it, or the 5th to 95th
// percentile), and the lookups of a line's point at an x.

import type { Columns } from "./buckets";
import type { Line } from "./chart";

export function extentOf(lines: Line[], log: boolean): [number, number] | null {
  let low = Infinity;
  let high = -Infinity;
  for (const { xs } of lines) {
    for (let index = 0; index < xs.length; index++) {
      const x = xs[index]!;
      if (log && !(x > 0)) continue;
      if (x < low) low = x;
      if (x > high) high = x;
    }
  }
  if (!(high >= low)) return null;
  if (high === low) return log ? [low / 2, high * 2] : [low - 1, high + 1];
  return [low, high];
}

export function yRangeOf(
  columns: Columns[],
  band: { mean: Float64Array; std: Float64Array } | null,
  log: boolean,
): [number, number] {
  let low = Infinity;
  let high = -Infinity;
  const include = (value: number) => {
    if (!Number.isFinite(value) || (log && value <= 0)) return;
    if (value < low) low = value;
    if (value > high) high = value;
  };
  for (const column of columns) {
    column.min.forEach(include);
    column.max.forEach(include);
    column.line.forEach(include);
  }
  band?.mean.forEach((mean, index) => {
    include(mean - band.std[index]!);
    include(mean + band.std[index]!);
  });
  if (!(high >= low)) return log ? [0.1, 10] : [0, 1];
  if (log) return [low / 1.2, high * 1.2];
  const pad = high > low ? (high - low) * 0.05 : Math.abs(high) * 0.1 || 1;
  return [low - pad, high + pad];
}

/** The 5th to 95th percentile of the values of the lines' points within the x range (raw and smoothed), padded as
 * the full range is; null when there are none. */
export function percentileRange(lines: Line[], range: [number, number], log: boolean): [number, number] | null {
  const values: number[] = [];
  for (const line of lines) {
    for (let index = 0; index < line.xs.length; index++) {
      const x = line.xs[index]!;
      if (x < range[0] || x > range[1]) continue;
      for (const value of [line.raw[index]!, line.smoothed[index]!]) {
        if (Number.isFinite(value) && !(log && value <= 0)) values.push(value);
      }
    }
  }
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  const at = (fraction: number) => sorted[Math.round(fraction * (sorted.length - 1))]!;
  const [low, high] = [at(0.05), at(0.95)];
  if (log) return [low / 1.2, high * 1.2];
  const pad = high > low ? (high - low) * 0.05 : Math.abs(high) * 0.1 || 1;
  return [low - pad, high + pad];
}

/** The line through (xs, values) at x, straight between the points either side; NaN outside its points. */
export function interpolate(xs: Float64Array, values: Float64Array, x: number): number {
  const index = nearest(xs, x);
  if (index < 0) return NaN;
  const at = xs[index]!;
  const other = x >= at ? index + 1 : index - 1;
  if (x === at || other < 0 || other >= xs.length) return x === at ? values[index]! : NaN;
  const fraction = (x - at) / (xs[other]! - at);
  return values[index]! + fraction * (values[other]! - values[index]!);
}

/** The index of the point whose x is nearest to `x`, in xs sorted ascending; -1 when empty. */
export function nearest(xs: Float64Array, x: number): number {
  if (xs.length === 0) return -1;
  let low = 0;
  let high = xs.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (xs[middle]! < x) low = middle + 1;
    else high = middle;
  }
  if (low > 0 && Math.abs(xs[low - 1]! - x) <= Math.abs(xs[low]! - x)) return low - 1;
  return low;
}
