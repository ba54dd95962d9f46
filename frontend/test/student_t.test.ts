import { describe, expect, it } from "vitest";
import { incompleteBeta, logGamma, meanHalfWidth, tQuantile, tTwoSided } from "../src/student_t";

/** Within a relative 1e-9 of SciPy's figure. */
function close(actual: number, expected: number) {
  expect(Math.abs(actual - expected) / Math.abs(expected)).toBeLessThan(1e-9);
}

describe("Student's t, against SciPy 1.17", () => {
  it("gives t.ppf(0.975, df) for the degrees of freedom of 2 to 10,000 runs", () => {
    const expected: [number, number][] = [
      [1, 12.706204736174694],
      [2, 4.302652729749462],
      [3, 3.1824463052837078],
      [4, 2.7764451051977934],
      [5, 2.5705818356363146],
      [9, 2.262157162798205],
      [29, 2.045229642132703],
      [59, 2.000995378088267],
      [99, 1.9842169515864174],
      [999, 1.9623414611334493],
      [9999, 1.960201263621357],
    ];
    for (const [df, t] of expected) close(tQuantile(0.975, df), t);
  });

  it("gives other quantiles, fractional degrees of freedom and the median", () => {
    close(tQuantile(0.9, 7), 1.4149239276505086);
    close(tQuantile(0.995, 3), 5.840909309733355);
    close(tQuantile(0.975, 2.5), 3.5746548420036817);
    expect(tQuantile(0.5, 4)).toBe(0);
  });

  it("gives the two-sided tail, the incomplete beta function and log-gamma", () => {
    close(tTwoSided(2.0, 5), 0.10193947882985835); // 2 * t.sf(2, 5)
    close(tTwoSided(0.3, 1), 0.8144528418445154);
    expect(tTwoSided(Infinity, 3)).toBe(0);
    close(incompleteBeta(0.3, 2.5, 0.5), 0.018927124071945658); // special.betainc
    close(incompleteBeta(0.9, 0.5, 0.5), 0.7951672353008665);
    expect(incompleteBeta(0, 2, 0.5)).toBe(0);
    expect(incompleteBeta(1, 2, 0.5)).toBe(1);
    close(logGamma(0.5), 0.5723649429247); // special.gammaln
    close(logGamma(10.5), 13.940625219403763);
    close(logGamma(5000.5), 37586.88488728106);
  });

  it("gives half the 95 % interval of a mean, none below two values", () => {
    // values 1, 2, 3, 4: sample std sqrt(5/3); t.ppf(0.975, 3) * s / 2
    close(meanHalfWidth(4, Math.sqrt(5 / 3))!, (3.1824463052837078 * Math.sqrt(5 / 3)) / 2);
    expect(meanHalfWidth(1, 0)).toBeNull();
    expect(meanHalfWidth(0, 0)).toBeNull();
  });
});
