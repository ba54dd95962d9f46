import { describe, expect, it } from "vitest";
import { centres, reduceLine, reduceRaw, spread } from "../src/buckets";

const values = (...numbers: number[]) => Float64Array.from(numbers);

describe("reduceRaw", () => {
  it("folds points into columns with their mean, min and max", () => {
    const grid = { low: 0, high: 4, size: 2, log: false };
    const folded = reduceRaw(values(0, 1, 2, 3, 4, 5), values(1, 3, 10, -2, 6, 99), grid, false);
    expect([...folded.index]).toEqual([0, 0, 1, 1, 1, -1]);
    expect([...folded.raw]).toEqual([2, 14 / 3]);
    expect([...folded.min]).toEqual([1, -2]);
    expect([...folded.max]).toEqual([3, 10]);
    expect([...folded.count]).toEqual([2, 3]);
  });

  it("leaves empty columns NaN and keeps only positive values for a log scale", () => {
    const grid = { low: 1, high: 1000, size: 3, log: true };
    const folded = reduceRaw(values(1, 5, 500), values(-1, 2, 3), grid, true);
    expect([...folded.index]).toEqual([-1, 0, 2]);
    expect(folded.raw[1]).toBeNaN();
    expect(folded.count[1]).toBe(0);
  });
});

describe("reduceLine", () => {
  it("averages the smoothed values over the same columns", () => {
    const grid = { low: 0, high: 2, size: 2, log: false };
    const folded = reduceRaw(values(0, 0.5, 1.5), values(1, 1, 1), grid, false);
    expect([...reduceLine(values(2, 4, 7), folded, false).line]).toEqual([3, 7]);
  });
});

describe("centres and spread", () => {
  it("puts centres in the middle of each column, in log space on a log grid", () => {
    expect([...centres({ low: 0, high: 10, size: 5, log: false })]).toEqual([1, 3, 5, 7, 9]);
    const log = centres({ low: 1, high: 100, size: 2, log: true });
    expect(log[0]).toBeCloseTo(Math.sqrt(10), 12);
    expect(log[1]).toBeCloseTo(Math.sqrt(10) * 10, 12);
  });

  it("gives mean and population std where at least two runs have a point", () => {
    const { mean, std } = spread([values(1, NaN), values(3, 5)], 2);
    expect([mean[0], std[0]]).toEqual([2, 1]);
    expect(mean[1]).toBeNaN();
    expect(std[1]).toBeNaN();
  });
});
