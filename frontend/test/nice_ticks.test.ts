import { describe, expect, it } from "vitest";
import { formatTick, integerTicks, logTicks, niceTicks } from "../src/nice_ticks";

describe("niceTicks", () => {
  it("puts round values (1, 2 or 5 times a power of ten) inside the range", () => {
    expect(niceTicks(0, 1)).toEqual([0, 0.2, 0.4, 0.6, 0.8, 1]);
    expect(niceTicks(0.0183, 0.0961, 4)).toEqual([0.02, 0.04, 0.06, 0.08]);
    expect(niceTicks(-3.64562, 3.2)).toEqual([-2, 0, 2]);
    expect(niceTicks(0.1, 0.3, 2)).toEqual([0.1, 0.2, 0.3]); // no 0.30000000000000004
  });

  it("gives the value itself for a range of no width, nothing for a non-finite one", () => {
    expect(niceTicks(4, 4)).toEqual([4]);
    expect(niceTicks(NaN, 1)).toEqual([]);
    expect(niceTicks(0, Infinity)).toEqual([]);
  });
});

describe("integerTicks", () => {
  it("gives whole steps only, even over a short range", () => {
    expect(integerTicks(0, 3, 5)).toEqual([0, 1, 2, 3]);
    expect(integerTicks(4998, 4999, 5)).toEqual([4998, 4999]);
    expect(integerTicks(0, 5000, 5)).toEqual([0, 1000, 2000, 3000, 4000, 5000]);
  });
});

describe("logTicks", () => {
  it("gives powers of ten, and their 2 and 5 multiples when there are fewer than three", () => {
    expect(logTicks(1e-5, 1)).toEqual([1e-5, 1e-4, 1e-3, 0.01, 0.1, 1]);
    expect(logTicks(1e-4, 1e-2)).toEqual([1e-4, 1e-3, 1e-2]);
    expect(logTicks(3e-4, 3e-3)).toEqual([5e-4, 1e-3, 2e-3]);
    expect(logTicks(0, 1)).toEqual([]);
  });
});

describe("formatTick", () => {
  it("writes a tick as formatNumber does, with no more exponent digits than needed", () => {
    expect([0, 0.5, 1000, 4998].map(formatTick)).toEqual(["0", "0.5", "1000", "4998"]);
    expect(formatTick(1e-5)).toBe("1e-5");
    expect(formatTick(2.5e-7)).toBe("2.5e-7");
    expect(formatTick(1.23456e-5)).toBe("1.23e-5");
  });
});
