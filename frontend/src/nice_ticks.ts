// Axis ticks: where the hand-drawn axes (hparams' pictures, histograms, the exceptions histogram) put them, round
// numbers as d3's ticks choose them (1, 2 or 5 times a power of ten), so that labels read 0.02, 0.04 and not 0.0183;
// and how every axis, uPlot's too, writes them.

import { formatNumber } from "./dom";

/** An axis label: as `formatNumber`, but with no more exponent digits than it needs (1e-5, not 1.0000e-5), which an
 * axis 60 pixels wide would cut. */
export function formatTick(value: number): string {
  const text = formatNumber(value);
  return text.includes("e") ? Number(value.toPrecision(3)).toExponential() : text;
}

/** The nice step for about `count` ticks over `span`: the smallest of 1, 2, 5 times a power of ten at least span/count
 * (so at least count / 2.5 ticks fall in the span). */
function niceStep(span: number, count: number): number {
  const rough = span / count;
  const power = 10 ** Math.floor(Math.log10(rough));
  return [1, 2, 5, 10].map((multiple) => multiple * power).find((step) => step >= rough * (1 - 1e-9)) ?? 10 * power;
}

/** Round values within [low, high], about `count` of them; the value itself when the range has no width. */
export function niceTicks(low: number, high: number, count = 5): number[] {
  if (!Number.isFinite(low) || !Number.isFinite(high)) return [];
  if (!(high > low)) return [low];
  const step = niceStep(high - low, count);
  const ticks: number[] = [];
  for (let index = Math.ceil(low / step - 1e-9); index <= Math.floor(high / step + 1e-9); index++) {
    // toPrecision drops the float noise of index * step (0.30000000000000004).
    ticks.push(Number((index * step).toPrecision(12)));
  }
  return ticks;
}

/** Whole numbers within [low, high] (steps), about `count` of them. */
export function integerTicks(low: number, high: number, count = 5): number[] {
  if (!(high > low)) return Number.isFinite(low) ? [low] : [];
  const step = Math.max(1, niceStep(high - low, count));
  const ticks: number[] = [];
  for (let value = Math.ceil(low / step) * step; value <= high; value += step) ticks.push(value);
  return ticks;
}

/** Powers of ten within [low, high] (both above zero); with fewer than three, their 2 and 5 multiples too. */
export function logTicks(low: number, high: number): number[] {
  if (!(low > 0) || !(high >= low)) return [];
  const inside = (value: number) => value >= low * (1 - 1e-9) && value <= high * (1 + 1e-9);
  const powers: number[] = [];
  for (let power = Math.floor(Math.log10(low)); power <= Math.ceil(Math.log10(high)); power++) powers.push(power);
  const pick = (multiples: number[]) =>
    powers.flatMap((power) => multiples.map((multiple) => Number((multiple * 10 ** power).toPrecision(12))));
  const tens = pick([1]).filter(inside);
  return tens.length >= 3 ? tens : pick([1, 2, 5]).filter(inside);
}
