import { describe, expect, it } from "vitest";
import { formatAge, formatCount, formatNumber } from "../src/dom";

describe("formatNumber", () => {
  it("gives every number the same significant digits, trailing zeros dropped", () => {
    // HParams once showed lr 3.0000e-4 beside 0.001.
    expect([3e-4, 0.001, 0.01, 0.1].map(formatNumber)).toEqual(["3e-4", "0.001", "0.01", "0.1"]);
    expect(formatNumber(1.234567891e-5)).toBe("1.23457e-5");
    expect(formatNumber(0.123456789)).toBe("0.123457");
    expect(formatNumber(1234.56789)).toBe("1234.57");
    expect(formatNumber(-2.5e-7)).toBe("-2.5e-7");
    expect(formatNumber(42)).toBe("42");
  });

  it("switches to exponents from 1e6 on, also for what rounds up to it", () => {
    expect(formatNumber(123456)).toBe("123456");
    expect(formatNumber(999999.7)).toBe("1e+6");
    expect(formatNumber(1234567)).toBe("1.23457e+6");
    expect(formatNumber(0.00099999999)).toBe("0.001");
  });

  it("writes zero, negative zero and non-finite values plainly", () => {
    expect(formatNumber(0)).toBe("0");
    expect(formatNumber(-0)).toBe("0");
    expect(formatNumber(1e-300)).toBe("1e-300");
    expect([NaN, Infinity, -Infinity].map(formatNumber)).toEqual(["NaN", "Infinity", "-Infinity"]);
  });

  it("keeps six significant digits: values read back agree to 1e-5", () => {
    for (const value of [Math.PI, 1 / 3, 2 / 3e5, 6.02214076e23, -1.602e-19]) {
      expect(Number(formatNumber(value))).toBeCloseTo(value, -Math.floor(Math.log10(Math.abs(value))) + 4);
    }
  });
});

describe("counts and ages", () => {
  it("groups thousands", () => {
    expect(formatCount(1234567)).toBe("1,234,567");
  });

  it("says how long ago in words", () => {
    const now = 1_700_000_000;
    expect(formatAge(now - 30, now)).toBe("just now");
    expect(formatAge(now - 5 * 60, now)).toBe("5 min ago");
    expect(formatAge(now - 3 * 3600, now)).toBe("3 h ago");
    expect(formatAge(now - 86400, now)).toBe("1 day ago");
    expect(formatAge(now - 2 * 86400, now)).toBe("2 days ago");
    expect(formatAge(now + 100, now)).toBe("just now");
  });
});
