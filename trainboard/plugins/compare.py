"""Two sets of runs compared on a summary of a scalar tag (`max(val/acc)`): both means with their 95 % intervals, the
difference with its interval, Welch's t-test and Cohen's d (`trainboard.analysis.statistics`), n per side, and
warnings where a side has fewer than 3 runs or a run lacks the metric.

A metric is SUMMARY(TAG) with SUMMARY one of max, min, mean, first, last, or a bare TAG (its last value); TAG is a
scalar tag of the scalars plugin or a derived metric, in backticks when it holds other characters than letters,
digits, `_`, `/`, `.` and `-`. A run's summary is over its finite values in step order (the last point of a step
logged twice); a run without one lacks the metric and is left out of its side.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from trainboard.analysis.statistics import Comparison, Mean, welch
from trainboard.errors import InvalidArgumentError
from trainboard.expressions.evaluation import canonical
from trainboard.plugins import scalars
from trainboard.plugins.run_filter import parsed
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter

SUMMARIES: dict[str, Callable[[np.ndarray], float]] = {
    "max": lambda values: float(np.max(values)),
    "min": lambda values: float(np.min(values)),
    "mean": lambda values: float(np.mean(values)),
    "first": lambda values: float(values[0]),
    "last": lambda values: float(values[-1]),
}
FEW_RUNS = 3
MAX_METRIC_LENGTH = 1024
_METRIC = re.compile(r"\s*(?:(\w+)\s*\(\s*(`[^`]+`|[\w/.\-]+)\s*\)|(`[^`]+`|[\w/.\-]+))\s*")


@dataclass(frozen=True, slots=True)
class Metric:
    summary: str
    tag: str

    def __str__(self) -> str:
        return f"{self.summary}({self.tag})"


def metric(text: str) -> Metric:
    found = _METRIC.fullmatch(text[:MAX_METRIC_LENGTH]) if len(text) <= MAX_METRIC_LENGTH else None
    if found is None:
        raise InvalidArgumentError(f"metric must be SUMMARY(TAG) or TAG, not {text[:100]!r}")
    summary, tag = (found.group(1), found.group(2)) if found.group(1) else ("last", found.group(3))
    if summary not in SUMMARIES:
        raise InvalidArgumentError(f"metric: the summaries are {', '.join(SUMMARIES)}, not {summary[:100]!r}")
    return Metric(summary, tag.strip("`"))


def run_summaries(provider: DataProvider, experiment_id: str, runs: list[str], wanted: Metric) -> dict[str, float]:
    """Each run's summary of the metric's tag, computed from its every point; runs without a finite value are left
    out. (One function, so that stored summaries can answer here once the store keeps them.)"""
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=scalars.PLUGIN_NAME,
        downsample=None,
        run_tag_filter=RunTagFilter.of(runs, [wanted.tag]),
    )
    summaries = {}
    for run in runs:
        columns = found.get(run, {}).get(wanted.tag)
        if columns is None:
            continue
        values = canonical(columns.steps, columns.wall_times, columns.values).values
        values = values[np.isfinite(values)]
        if len(values):
            summaries[run] = SUMMARIES[wanted.summary](values)
    return summaries


def compare(provider: DataProvider, experiment_id: str, *, a: str, b: str, metric_text: str) -> dict[str, object]:
    """Welch's comparison of the runs filter `a` keeps with those `b` keeps, on the metric."""
    wanted = metric(metric_text)
    sides = {}
    warnings = []
    for name, text in (("a", a), ("b", b)):
        runs = [values.run for values in provider.list_run_values(experiment_id=experiment_id, run_filter=parsed(text))]
        summaries = run_summaries(provider, experiment_id, runs, wanted)
        lacking = [run for run in runs if run not in summaries]
        if lacking:
            warnings.append(f"{name}: {len(lacking)} of {len(runs)} runs lack {wanted} and are left out")
        if len(summaries) < FEW_RUNS:
            warnings.append(f"{name}: {len(summaries)} runs have {wanted}; fewer than {FEW_RUNS} say little")
        sides[name] = (text, summaries, lacking)
    result = welch(np.array(list(sides["a"][1].values())), np.array(list(sides["b"][1].values())))
    return {
        "metric": str(wanted),
        "a": _side(*sides["a"], result.a),
        "b": _side(*sides["b"], result.b),
        **_difference(result),
        "warnings": warnings,
    }


def _side(text: str, summaries: dict[str, float], lacking: list[str], mean: Mean) -> dict[str, object]:
    return {
        "filter": text,
        "n": mean.n,
        "mean": mean.mean,
        "std": mean.std,
        "low": mean.low,
        "high": mean.high,
        "values": summaries,
        "lacking": lacking,
    }


def _difference(result: Comparison) -> dict[str, object]:
    return {
        "difference": {"estimate": result.difference, "low": result.low, "high": result.high},
        "t": result.t,
        "df": result.df,
        "p_value": result.p_value,
        "cohens_d": result.cohens_d,
        "confidence": 0.95,
    }
