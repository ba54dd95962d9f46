"""Student's t distribution, and what groups of runs are compared with: a mean's confidence interval and Welch's test.

No SciPy in the core install: the t distribution's tail is the regularized incomplete beta function,
    P(|T| > t) = I_x(df / 2, 1 / 2),  x = df / (df + t^2),
computed by its continued fraction (Numerical Recipes, 3rd ed., 6.4) evaluated with the modified Lentz method to a
relative 1e-15; a quantile is found by bisection on x to the last bit. tests/analysis/test_statistics.py checks every
figure against scipy.stats to 1e-9.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

CONFIDENCE = 0.95
_EPSILON = 1e-15
_TINY = 1e-300
_MAX_TERMS = 10_000


def incomplete_beta(x: float, a: float, b: float) -> float:
    """The regularized incomplete beta function I_x(a, b), for a, b > 0 and 0 <= x <= 1."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    # The continued fraction converges quickly for x below (a + 1) / (a + b + 2); above, by symmetry.
    if x < (a + 1) / (a + b + 2):
        return front * _fraction(x, a, b) / a
    return 1.0 - front * _fraction(1.0 - x, b, a) / b


def _fraction(x: float, a: float, b: float) -> float:
    """The continued fraction of I_x(a, b), by the modified Lentz method."""
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1)
    d = 1.0 / (d if abs(d) > _TINY else _TINY)
    result = d
    for m in range(1, _MAX_TERMS):
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > _TINY else _TINY)
            c = 1.0 + numerator / c
            c = c if abs(c) > _TINY else _TINY
            result *= c * d
        if abs(c * d - 1.0) < _EPSILON:
            return result
    raise ArithmeticError(f"the incomplete beta fraction did not converge (x={x}, a={a}, b={b})")


def t_two_sided(t: float, df: float) -> float:
    """P(|T| >= |t|) for Student's t with `df` degrees of freedom (> 0)."""
    if math.isnan(t):
        return math.nan
    if math.isinf(t):
        return 0.0
    return incomplete_beta(df / (df + t * t), df / 2, 0.5)


@cache
def t_quantile(probability: float, df: float) -> float:
    """The t such that P(T <= t) = probability (0.5 <= probability < 1), for `df` degrees of freedom (> 0)."""
    if probability == 0.5:
        return 0.0
    tail = 2 * (1 - probability)  # P(|T| >= t)
    # Near the answer first: I_x(df / 2, 1 / 2) grows with x, and t = sqrt(df (1 - x) / x).
    low, high = 0.0, 1.0
    for _ in range(10):
        middle = (low + high) / 2
        if incomplete_beta(middle, df / 2, 0.5) < tail:
            low = middle
        else:
            high = middle
    t = math.sqrt(df * (1 - high) / high)
    # Then Newton's method on t from below the answer: the tail is convex and falling in t (its derivative is -2
    # times the density), so each step stays below the answer and nears it.
    scale = math.exp(math.lgamma((df + 1) / 2) - math.lgamma(df / 2)) / math.sqrt(df * math.pi)
    for _ in range(50):
        density = scale * (1 + t * t / df) ** (-(df + 1) / 2)
        step = (t_two_sided(t, df) - tail) / (2 * density)
        t += step
        if abs(step) <= 1e-15 * t:
            break
    return t


@dataclass(frozen=True, slots=True)
class Mean:
    """A sample's mean with its 95 % confidence interval (Student's t, n - 1 degrees of freedom; none below n = 2)."""

    n: int
    mean: float
    std: float  # the sample's standard deviation (n - 1)
    low: float
    high: float


def mean_interval(values: np.ndarray) -> Mean:
    n = len(values)
    if n == 0:
        return Mean(0, math.nan, math.nan, math.nan, math.nan)
    mean = float(np.mean(values))
    if n < 2:
        return Mean(n, mean, math.nan, math.nan, math.nan)
    std = float(np.std(values, ddof=1))
    half = t_quantile(0.5 + CONFIDENCE / 2, n - 1) * std / math.sqrt(n)
    return Mean(n, mean, std, mean - half, mean + half)


def interval_half_widths(counts: np.ndarray, deviations: np.ndarray) -> np.ndarray:
    """Half the 95 % interval of a mean of `counts` values whose sample standard deviations are `deviations`
    (nan where a count is below 2)."""
    quantiles = np.array([t_quantile(0.5 + CONFIDENCE / 2, int(n) - 1) if n >= 2 else math.nan for n in counts])
    with np.errstate(invalid="ignore", divide="ignore"):
        half: np.ndarray = quantiles * deviations / np.sqrt(counts)
    return half


@dataclass(frozen=True, slots=True)
class Comparison:
    """Welch's comparison of two samples' means: a - b with its 95 % interval (Welch-Satterthwaite degrees of freedom),
    the two-sided p-value of Welch's t-test and Cohen's d (the pooled standard deviation's)."""

    a: Mean
    b: Mean
    difference: float
    low: float
    high: float
    t: float
    df: float
    p_value: float
    cohens_d: float


def welch(a: np.ndarray, b: np.ndarray) -> Comparison:
    first, second = mean_interval(a), mean_interval(b)
    difference = first.mean - second.mean
    if first.n < 2 or second.n < 2:
        nan = math.nan
        return Comparison(first, second, difference, nan, nan, nan, nan, nan, nan)
    va, vb = first.std**2 / first.n, second.std**2 / second.n
    error = math.sqrt(va + vb)
    df = (va + vb) ** 2 / (va**2 / (first.n - 1) + vb**2 / (second.n - 1)) if error > 0 else math.nan
    pooled = math.sqrt(((first.n - 1) * first.std**2 + (second.n - 1) * second.std**2) / (first.n + second.n - 2))
    d = difference / pooled if pooled > 0 else math.nan
    if not error > 0:
        return Comparison(first, second, difference, difference, difference, math.nan, math.nan, math.nan, d)
    t = difference / error
    half = t_quantile(0.5 + CONFIDENCE / 2, df) * error
    return Comparison(first, second, difference, difference - half, difference + half, t, df, t_two_sided(t, df), d)
