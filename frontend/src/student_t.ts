// Student's t distribution for the runs table's group rows: the 95 % confidence interval of a mean. The same
// algorithm as the server's (trainboard/analysis/statistics.py), so the table and the charts' `ci` band agree: the
// two-sided tail P(|T| >= t) = I_x(df / 2, 1 / 2) with x = df / (df + t^2), the regularized incomplete beta function
// by its continued fraction (Numerical Recipes, 3rd ed., 6.4) with the modified Lentz method to a relative 1e-15; a
// quantile by ten bisection steps on x, then Newton's method on t. JavaScript has no log-gamma: Lanczos's
// approximation (g = 7, nine coefficients: a relative error near 1e-15). The unit tests check figures from SciPy.

/** The confidence of the interval. */
export const CONFIDENCE = 0.95;
const EPSILON = 1e-15;
const TINY = 1e-300;
const MAX_TERMS = 10_000;

const LANCZOS = [
  0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059,
  12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
];

/** The log of the gamma function, for x > 0. */
export function logGamma(x: number): number {
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - logGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1. */
export function incompleteBeta(x: number, a: number, b: number): number {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const front = Math.exp(logGamma(a + b) - logGamma(a) - logGamma(b) + a * Math.log(x) + b * Math.log1p(-x));
  // The continued fraction converges quickly for x below (a + 1) / (a + b + 2); above, by symmetry.
  if (x < (a + 1) / (a + b + 2)) return (front * fraction(x, a, b)) / a;
  return 1 - (front * fraction(1 - x, b, a)) / b;
}

function fraction(x: number, a: number, b: number): number {
  const bounded = (value: number) => (Math.abs(value) > TINY ? value : TINY);
  let c = 1;
  let d = 1 / bounded(1 - ((a + b) * x) / (a + 1));
  let result = d;
  for (let m = 1; m < MAX_TERMS; m++) {
    const numerators = [
      (m * (b - m) * x) / ((a + 2 * m - 1) * (a + 2 * m)),
      (-(a + m) * (a + b + m) * x) / ((a + 2 * m) * (a + 2 * m + 1)),
    ];
    for (const numerator of numerators) {
      d = 1 / bounded(1 + numerator * d);
      c = bounded(1 + numerator / c);
      result *= c * d;
    }
    if (Math.abs(c * d - 1) < EPSILON) return result;
  }
  throw new Error(`the incomplete beta fraction did not converge (x=${x}, a=${a}, b=${b})`);
}

/** P(|T| >= |t|) for Student's t with `df` degrees of freedom (> 0). */
export function tTwoSided(t: number, df: number): number {
  if (Number.isNaN(t)) return NaN;
  if (!Number.isFinite(t)) return 0;
  return incompleteBeta(df / (df + t * t), df / 2, 0.5);
}

const quantiles = new Map<string, number>();

/** The t such that P(T <= t) = probability (0.5 <= probability < 1), for `df` degrees of freedom (> 0). */
export function tQuantile(probability: number, df: number): number {
  const key = `${probability} ${df}`;
  let found = quantiles.get(key);
  if (found === undefined) {
    found = computedQuantile(probability, df);
    quantiles.set(key, found);
  }
  return found;
}

function computedQuantile(probability: number, df: number): number {
  if (probability === 0.5) return 0;
  const tail = 2 * (1 - probability); // P(|T| >= t)
  // Near the answer first: I_x(df / 2, 1 / 2) grows with x, and t = sqrt(df (1 - x) / x).
  let low = 0;
  let high = 1;
  for (let i = 0; i < 10; i++) {
    const middle = (low + high) / 2;
    if (incompleteBeta(middle, df / 2, 0.5) < tail) low = middle;
    else high = middle;
  }
  let t = Math.sqrt((df * (1 - high)) / high);
  // Then Newton's method on t from below the answer: the tail is convex and falling in t (its derivative is -2 times
  // the density), so each step stays below the answer and nears it.
  const scale = Math.exp(logGamma((df + 1) / 2) - logGamma(df / 2)) / Math.sqrt(df * Math.PI);
  for (let i = 0; i < 50; i++) {
    const density = scale * (1 + (t * t) / df) ** (-(df + 1) / 2);
    const step = (tTwoSided(t, df) - tail) / (2 * density);
    t += step;
    if (Math.abs(step) <= 1e-15 * t) break;
  }
  return t;
}

/** Half the 95 % confidence interval of the mean of `n` values whose sample standard deviation (n - 1) is `std`:
 * t(0.975, n - 1) * std / sqrt(n); null below n = 2. */
export function meanHalfWidth(n: number, std: number): number | null {
  if (n < 2) return null;
  return (tQuantile(0.5 + CONFIDENCE / 2, n - 1) * std) / Math.sqrt(n);
}
