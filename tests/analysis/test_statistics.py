"""The t distribution, confidence intervals and Welch's test of `trainboard.analysis.statistics`, every figure
against scipy.stats to 1e-9 (relative), and the group bands' 95 % interval at every step."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats  # type: ignore[import-untyped]

from trainboard.analysis.statistics import incomplete_beta, mean_interval, t_quantile, t_two_sided, welch
from trainboard.plugins.groups import band_columns
from trainboard.provider.values import ScalarColumns

DEGREES = [1, 2, 3, 4.5, 7, 10, 29.7, 100, 999, 12_345.6]


def close(found: float, expected: float) -> bool:
    return math.isclose(found, expected, rel_tol=1e-9, abs_tol=1e-300)


@pytest.mark.parametrize("a", [0.5, 1.0, 2.5, 50.0, 5000.0])
@pytest.mark.parametrize("b", [0.5, 3.0, 200.0])
def test_incomplete_beta(a: float, b: float) -> None:
    for x in (0.0, 1e-12, 0.01, 0.3, 0.5, 0.77, 0.99, 1 - 1e-9, 1.0):
        assert close(incomplete_beta(x, a, b), float(special.betainc(a, b, x))), (x, a, b)


@pytest.mark.parametrize("df", DEGREES)
def test_two_sided_tail(df: float) -> None:
    for t in (0.0, 0.05, 0.7, 1.96, 2.5, 4.0, 12.0, 80.0, -3.0):
        assert close(t_two_sided(t, df), float(2 * stats.t.sf(abs(t), df))), (t, df)
    assert t_two_sided(math.inf, df) == 0.0


@pytest.mark.parametrize("df", DEGREES)
def test_quantiles(df: float) -> None:
    for probability in (0.5, 0.6, 0.9, 0.975, 0.995, 0.9999999):
        assert close(t_quantile(probability, df), float(stats.t.ppf(probability, df))), (probability, df)


@pytest.mark.parametrize("n", [2, 3, 5, 30, 1000])
def test_mean_interval(n: int) -> None:
    values = np.random.default_rng(n).normal(3, 2, size=n)
    found = mean_interval(values)
    low, high = stats.t.interval(0.95, n - 1, loc=np.mean(values), scale=stats.sem(values))
    assert close(found.low, low) and close(found.high, high)
    assert close(found.std, float(np.std(values, ddof=1)))
    single = mean_interval(values[:1])
    assert single.n == 1 and math.isnan(single.low) and single.mean == values[0]


@pytest.mark.parametrize(("na", "nb"), [(2, 2), (3, 7), (10, 4), (50, 60), (1000, 1000)])
def test_welch_against_scipy(na: int, nb: int) -> None:
    rng = np.random.default_rng(na * 1000 + nb)
    a, b = rng.normal(0.8, 0.1, size=na), rng.normal(0.75, 0.3, size=nb)
    found = welch(a, b)
    expected = stats.ttest_ind(a, b, equal_var=False)
    interval = expected.confidence_interval(0.95)
    assert close(found.t, float(expected.statistic))
    assert close(found.p_value, float(expected.pvalue))
    assert close(found.df, float(expected.df))
    assert close(found.low, float(interval.low)) and close(found.high, float(interval.high))
    pooled = math.sqrt(((na - 1) * np.var(a, ddof=1) + (nb - 1) * np.var(b, ddof=1)) / (na + nb - 2))
    assert close(found.cohens_d, float(np.mean(a) - np.mean(b)) / pooled)
    for side, values in ((found.a, a), (found.b, b)):
        low, high = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
        assert side.n == len(values) and close(side.low, low) and close(side.high, high)


def test_welch_with_too_few_runs_has_no_test() -> None:
    found = welch(np.array([1.0]), np.array([1.0, 2.0, 3.0]))
    assert found.a.n == 1 and math.isnan(found.p_value) and math.isnan(found.low)
    assert found.difference == -1.0


def test_band_ci_at_every_step_equals_scipy() -> None:
    rng = np.random.default_rng(7)
    runs = []
    for run in range(6):
        steps = np.arange(0, 40 - run * 3)  # runs of different lengths: the counts fall towards the end
        runs.append(ScalarColumns(steps, steps * 1.0, rng.normal(size=len(steps))))
    columns = band_columns(runs, "ci")
    for i, step in enumerate(columns["step"]):
        values = np.array([r.values[step] for r in runs if step < len(r.steps)])
        assert columns["count"][i] == len(values)
        if len(values) < 2:
            assert math.isnan(columns["low"][i])
            continue
        low, high = stats.t.interval(0.95, len(values) - 1, loc=np.mean(values), scale=stats.sem(values))
        assert close(float(columns["low"][i]), low) and close(float(columns["high"][i]), high)
        assert close(float(columns["mean"][i]), float(np.mean(values)))


def test_band_asof_carries_each_run_within_its_own_steps() -> None:
    every = ScalarColumns(np.arange(0, 21), np.zeros(21), np.arange(0, 21) * 1.0)
    tenth = ScalarColumns(np.array([0, 10, 20]), np.zeros(3), np.array([100.0, 110.0, 120.0]))
    short = ScalarColumns(np.array([5, 6]), np.zeros(2), np.array([-1.0, -2.0]))
    exact = band_columns([every, tenth, short], "minmax")
    assert exact["count"].tolist() == [2] + [1] * 4 + [2, 2] + [1] * 3 + [2] + [1] * 9 + [2]
    carried = band_columns([every, tenth, short], "minmax", "asof")
    assert carried["step"].tolist() == list(range(21))
    assert carried["count"].tolist() == [2] * 5 + [3, 3] + [2] * 14
    # At step 7 the tenth-step run counts with its value at step 0; the short run has ended.
    assert carried["high"][7] == 100.0 and carried["low"][7] == 7.0
    assert carried["mean"][6] == pytest.approx((6 + 100 - 2) / 3)
