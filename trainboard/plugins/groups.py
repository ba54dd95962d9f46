"""Runs grouped (by a hyperparameter, a regular expression's capture on the run name, or a level of the run's path),
each group of a scalar tag summed up as its mean with a band: mean ± standard deviation (`std`, the population's),
min to max (`minmax`), or the 95 % confidence interval of the mean (`ci`: mean ± t * s / sqrt(n), Student's t with
n - 1 degrees of freedom, s the sample standard deviation; nan where only one run has a point).

The statistics are computed on every point of the group's runs, aligned by step, and only then sampled for the chart:
a band is never narrowed by sampling. A run with several points at one step counts its last; non-finite values are
left out. Runs logged at different steps (`align`):
- `exact` (the default): at each step any run has, the runs with a point at that step;
- `asof`: at each step any run has, every run whose points span it (from its first step to its last), with its last
  value at or before that step: a run logged every 10 steps counts at the steps between, a run that ended does not.
`count` says how many runs each step's statistics are of. The Python API (`Experiment.groups`) applies the same rule.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from typing import Any

import numpy as np

from trainboard.analysis.statistics import interval_half_widths
from trainboard.errors import InvalidArgumentError
from trainboard.plugins import scalars
from trainboard.plugins.regex import compile_regex, error, error_text
from trainboard.plugins.run_filter import parsed
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunTagFilter, RunValues, ScalarColumns, TableQuery, Term
from trainboard.reader.logdir import walk_order

BANDS = ("std", "minmax", "ci")
ALIGNMENTS = ("exact", "asof")
# The group of runs without the value they are grouped by.
MISSING = "(none)"
_DIRECTORY = re.compile(r"dir:(\d{1,3})")


@dataclass(frozen=True, slots=True)
class Grouping:
    """`hparam:NAME`, `regex:PATTERN` (the first group it captures, or its whole match) or `dir:K` (the run path's
    component K, from 0)."""

    spec: str
    key: Callable[[RunValues], str]
    # The hyperparameter it reads, if any.
    hparam: str | None = None


def grouping(spec: str) -> Grouping:
    kind, _, argument = spec.partition(":")
    if kind == "hparam" and argument:
        return Grouping(spec, lambda values: _shown(values.hparams.get(argument)), argument)
    if kind == "regex" and argument:
        try:
            pattern = compile_regex(argument, name="by's regular expression", capture=True)
        except error as failure:
            raise InvalidArgumentError(f"by: invalid regular expression: {error_text(failure)}") from None
        return Grouping(spec, lambda values: _captured(pattern, values.run))
    found = _DIRECTORY.fullmatch(spec)
    if found is not None:
        level = int(found.group(1))
        return Grouping(spec, lambda values: _component(values.run, level))
    raise InvalidArgumentError(f"by must be hparam:NAME, regex:PATTERN or dir:LEVEL, not {spec[:100]!r}")


def groups(
    provider: DataProvider,
    experiment_id: str,
    *,
    tag: str,
    by: Grouping,
    band: str,
    run_filter: str | None,
    runs: list[str] | None,
    samples: int | None,
    align: str = "exact",
) -> dict[str, object]:
    """Each group of the runs (those the filter keeps, of `runs` if given) that have the tag: its runs, and columns
    step, mean, low, high (and count: how many runs have a point at that step), sampled to `samples` points."""
    if band not in BANDS:
        raise InvalidArgumentError(f"band must be one of {', '.join(BANDS)}, not {band[:100]!r}")
    if align not in ALIGNMENTS:
        raise InvalidArgumentError(f"align must be one of {', '.join(ALIGNMENTS)}, not {align[:100]!r}")
    kept = provider.list_run_values(experiment_id=experiment_id, run_filter=parsed(run_filter))
    if runs is not None:
        wanted = set(runs)
        kept = [values for values in kept if values.run in wanted]
    found = provider.read_scalar_columns(
        experiment_id=experiment_id,
        plugin_name=scalars.PLUGIN_NAME,
        downsample=None,
        run_tag_filter=RunTagFilter.of([values.run for values in kept], [tag]),
    )
    members: dict[str, list[str]] = {}
    for values in kept:
        if tag in found.get(values.run, {}):
            members.setdefault(by.key(values), []).append(values.run)
    answer = []
    for name, group_runs in sorted(members.items()):
        columns = band_columns([found[run][tag] for run in group_runs], band, align)
        picked = _sampled(len(columns["step"]), samples)
        answer.append(
            {"name": name, "runs": group_runs, **{key: column[picked].tolist() for key, column in columns.items()}}
        )
    return {"tag": tag, "by": by.spec, "band": band, "align": align, "groups": answer}


def members(provider: DataProvider, experiment_id: str, *, by: Grouping, run_filter: str | None) -> dict[str, object]:
    """The runs the filter keeps in their groups (every run, whatever tags it has), each group's name as the chart
    names it: the runs table's group rows. The store is asked for the runs' names and the one hyperparameter the
    grouping reads (a column of the runs table), not every series' last value: 10,000 runs are not 100,000 values."""
    hparams, tags = provider.table_fields(experiment_id=experiment_id)
    if by.hparam in tags:
        # The table's column of a name that is a tag's too is the tag's last value where a run lacks the hparam.
        kept = provider.list_run_values(experiment_id=experiment_id, run_filter=parsed(run_filter))
    else:
        hparam = by.hparam if by.hparam in hparams else None
        # A column the table must have: the hyperparameter, else the cheapest of the run's own.
        column = Term("field", hparam) if hparam is not None else Term("last_step", "last_step")
        query = TableQuery(where=parsed(run_filter), columns=(column,))
        kept = [
            RunValues(str(run), {hparam: value} if hparam and isinstance(value, (int, float, str)) else {})
            for run, value in provider.runs_table(experiment_id=experiment_id, query=query).rows
        ]
    found: dict[str, list[str]] = {}
    for values in sorted(kept, key=lambda values: walk_order(values.run)):
        found.setdefault(by.key(values), []).append(values.run)
    return {"by": by.spec, "groups": [{"name": name, "runs": runs} for name, runs in sorted(found.items())]}


def band_columns(series: list[ScalarColumns], band: str, align: str = "exact") -> dict[str, np.ndarray]:
    """Every step any of the series has, in order, with the mean of their values there and the band's low and high
    (the alignment rule above)."""
    steps_list, values_list = [], []
    for columns in series:
        # The last point of each step: reversed, np.unique keeps the first occurrence.
        steps, first = np.unique(columns.steps[::-1], return_index=True)
        values = columns.values[::-1][first]
        finite = np.isfinite(values)
        steps_list.append(steps[finite])
        values_list.append(values[finite])
    if align == "asof" and len(steps_list) > 1:
        steps_list, values_list = _carried(steps_list, values_list)
    steps = np.concatenate(steps_list) if steps_list else np.empty(0, np.int64)
    values = np.concatenate(values_list) if values_list else np.empty(0, np.float64)
    order = np.argsort(steps, kind="stable")
    steps, values = steps[order], values[order]
    unique, starts, counts = np.unique(steps, return_index=True, return_counts=True)
    if not len(unique):
        empty = np.empty(0, np.float64)
        return {"step": unique, "mean": empty, "low": empty, "high": empty, "count": unique}
    mean = np.add.reduceat(values, starts) / counts
    if band in ("std", "ci"):
        squares = np.maximum(np.add.reduceat((values - np.repeat(mean, counts)) ** 2, starts), 0)
        if band == "std":
            deviation = np.sqrt(squares / counts)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                deviation = interval_half_widths(counts, np.sqrt(squares / (counts - 1)))
        low, high = mean - deviation, mean + deviation
    else:
        low, high = np.minimum.reduceat(values, starts), np.maximum.reduceat(values, starts)
    return {"step": unique, "mean": mean, "low": low, "high": high, "count": counts}


def _carried(steps_list: list[np.ndarray], values_list: list[np.ndarray]) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Each run's last value at or before every step of any run, within its own first and last steps."""
    every = reduce(np.union1d, steps_list)
    carried_steps, carried_values = [], []
    for steps, values in zip(steps_list, values_list, strict=True):
        if not len(steps):
            continue
        spanned = every[(every >= steps[0]) & (every <= steps[-1])]
        carried_steps.append(spanned)
        carried_values.append(values[np.searchsorted(steps, spanned, side="right") - 1])
    return carried_steps, carried_values


def _sampled(length: int, samples: int | None) -> np.ndarray:
    """At most `samples` positions, evenly spaced, first and last kept."""
    if samples is None or samples >= length:
        return np.arange(length)
    if samples <= 1:
        return np.arange(max(length - 1, 0), length)
    return np.arange(samples, dtype=np.int64) * (length - 1) // (samples - 1)


def _shown(value: float | str | None) -> str:
    if value is None:
        return MISSING
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _captured(pattern: Any, run: str) -> str:
    found = pattern.search(run)
    if found is None:
        return MISSING
    return str(found.group(1) if pattern.groups and found.group(1) is not None else found.group(0))


def _component(run: str, level: int) -> str:
    parts = run.split("/")
    return parts[level] if level < len(parts) else MISSING
