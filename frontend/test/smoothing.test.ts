import { describe, expect, it } from "vitest";
import { ema, movingAverage, smooth } from "../src/smoothing";

const series = (...values: number[]) => Float64Array.from(values);

describe("ema", () => {
  it("debiases as TensorBoard does: the first point is the value itself", () => {
    const smoothed = ema(series(1, 2, 3), 0.5);
    // last = 0.5, 1.25, 2.125; divided by 1 - 0.5, 1 - 0.25, 1 - 0.125
    expect([...smoothed]).toEqual([1, 1.25 / 0.75, 2.125 / 0.875]);
  });

  it("lets non-finite values through without counting them", () => {
    const smoothed = ema(series(1, NaN, 3, Infinity), 0.5);
    expect(smoothed[1]).toBeNaN();
    expect(smoothed[3]).toBe(Infinity);
    // Over 1 and 3 alone: last = 0.5, then 0.25 + 1.5, divided by 1 - 0.25.
    expect(smoothed[2]).toBeCloseTo(1.75 / 0.75, 12);
  });

  it("keeps a constant series exactly", () => {
    expect([...ema(series(0.1, 0.1, 0.1), 0.99)]).toEqual([0.1, 0.1, 0.1]);
  });

  it("writes into the array it is given", () => {
    const into = new Float64Array(2);
    expect(ema(series(4, 8), 0.5, into)).toBe(into);
  });
});

describe("movingAverage", () => {
  it("averages the last `window` finite values", () => {
    expect([...movingAverage(series(1, 2, 3, 4), 2)]).toEqual([1, 1.5, 2.5, 3.5]);
    const gappy = movingAverage(series(2, NaN, 4, 6), 2);
    expect([gappy[0], gappy[2], gappy[3]]).toEqual([2, 3, 5]);
    expect(gappy[1]).toBeNaN();
  });
});

describe("smooth", () => {
  it("returns the values themselves when nothing smooths", () => {
    const values = series(1, 5, 2);
    expect(smooth(values, "none", 0.6, 10)).toBe(values);
    expect(smooth(values, "ema", 0, 10)).toBe(values);
    expect(smooth(values, "ma", 0.6, 1)).toBe(values);
    expect([...smooth(values, "ma", 0, 3)]).toEqual([1, 3, 8 / 3]);
  });
});
