"""Derived metrics: an experiment's named expressions (`trainboard.expressions`) over its scalar tags, computed per run
on every point and served by the provider as scalar series of the scalars plugin, like the tags logged there.

A name in an expression is a scalar tag of the scalars plugin logged in the run, else another derived metric. A run
has a derived metric when it has every tag its expression needs (directly or through other definitions) and the
result has points; a tag logged under a definition's name hides the definition in that run. Results are kept per
store generation: defining or undefining moves the generation, as new points do.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from functools import lru_cache, partial
from typing import Protocol

import numpy as np

from trainboard.errors import ExpressionError, InvalidArgumentError
from trainboard.expressions.evaluation import Series, canonical, evaluate
from trainboard.expressions.syntax import Name, Node, names, parse
from trainboard.normaliser.points import DataClass
from trainboard.provider.cache import GenerationCache
from trainboard.store.reader import StoreReader
from trainboard.store.values import Definition, ScalarColumns, SeriesRow

# The plugin whose scalar tags expressions name and whose tags derived metrics become.
PLUGIN_NAME = "scalars"
ALIGNMENTS = ("exact", "asof")
MAX_NAME_LENGTH = 256
MAX_DEFINITIONS = 200
# Derived series kept per provider (runs x definitions); a listing computes every one of them.
ENTRIES = 4096
_NAME = re.compile(r"[^\x00-\x1f\x7f]+")


class DefinitionWriter(Protocol):
    def save_definition(self, experiment_id: str, definition: Definition) -> None: ...

    def delete_definition(self, experiment_id: str, name: str) -> bool: ...


class DerivedMetrics:
    def __init__(self, store: StoreReader) -> None:
        self._store = store
        self._kept = GenerationCache(store.generation, entries=ENTRIES)

    def definitions(self, experiment_id: str) -> dict[str, Definition]:
        return self._kept.get(
            experiment_id,
            "definitions",
            lambda: {definition.name: definition for definition in self._store.definitions(experiment_id)},
        )

    def check(self, experiment_id: str, definition: Definition) -> None:
        """Refuse a definition that cannot be computed: its name, its expression's syntax (with the position), a name
        that is neither a scalar tag of the experiment nor another definition, or a cycle through definitions."""
        given = definition.name
        if not _NAME.fullmatch(given) or len(given) > MAX_NAME_LENGTH or given != given.strip():
            raise InvalidArgumentError(
                f"a derived metric's name is 1 to {MAX_NAME_LENGTH} printable characters, not starting or ending with"
                f" a space, not {given[:100]!r}"
            )
        if definition.align not in ALIGNMENTS:
            raise InvalidArgumentError(f"align must be one of {', '.join(ALIGNMENTS)}, not {definition.align[:100]!r}")
        tree = parse(definition.expression)
        if not names(tree):
            raise ExpressionError("the expression refers to no tag", 0)
        logged = {row.tag for row in self._tagged(experiment_id, None)}
        if definition.name in logged:
            raise InvalidArgumentError(f"{definition.name!r} is a logged scalar tag: a derived metric needs a new name")
        defined = self.definitions(experiment_id) | {definition.name: definition}
        if len(defined) > MAX_DEFINITIONS:
            raise InvalidArgumentError(f"an experiment has at most {MAX_DEFINITIONS} derived metrics")
        for name in names(tree):
            if name.tag not in logged and name.tag not in defined:
                hint = " (for division, put a space beside the '/')" if "/" in name.tag else ""
                raise ExpressionError(f"no scalar tag or derived metric is named {name.tag!r}{hint}", name.position)
            if name.tag in defined and name.tag not in logged and _reaches(defined, logged, name.tag, definition.name):
                raise ExpressionError(f"{name.tag!r} refers back to {definition.name!r}: a cycle", name.position)
        # What only computing finds (a function over series given a number): found now, not by every later read.
        evaluate(tree, lambda name: _PROBE)

    def series(
        self, experiment_id: str, runs: Collection[str] | None, tags: Collection[str] | None
    ) -> dict[str, dict[str, ScalarColumns]]:
        """Each run's derived series (of these runs and names, or all), as `{run: {name: columns}}`; runs without
        one are left out."""
        defined = self.definitions(experiment_id)
        wanted = [name for name in defined if tags is None or name in tags]
        if not wanted:
            return {}
        by_run: dict[str, dict[str, SeriesRow]] = {}
        for row in self._tagged(experiment_id, runs):
            by_run.setdefault(row.run, {})[row.tag] = row
        if runs is not None:
            by_run = {run: rows for run, rows in by_run.items() if run in runs}
        found: dict[str, dict[str, ScalarColumns]] = {}
        for run, rows in by_run.items():
            # One run's tags are read once for all its definitions.
            computing = _RunSeries(self._store, experiment_id, rows, defined)
            for name in wanted:
                if name in rows:  # a logged tag of that name hides the definition
                    continue
                columns = self._kept.get(experiment_id, ("derived", run, name), partial(computing.columns, name))
                if columns is not None:
                    found.setdefault(run, {})[name] = columns
        return found

    def _tagged(self, experiment_id: str, runs: Collection[str] | None) -> list[SeriesRow]:
        return self._store.series(experiment_id, plugin_name=PLUGIN_NAME, data_class=DataClass.SCALAR, runs=runs)


_PROBE = canonical(np.zeros(1, dtype=np.int64), np.zeros(1), np.zeros(1))


class _RunSeries:
    """The derived series of one run, each computed once from the run's logged series, each read once."""

    def __init__(
        self, store: StoreReader, experiment_id: str, rows: dict[str, SeriesRow], defined: dict[str, Definition]
    ) -> None:
        self._store = store
        self._experiment_id = experiment_id
        self._rows = rows
        self._defined = defined
        self._logged: dict[str, Series] = {}
        self._computed: dict[str, Series | None] = {}

    def columns(self, name: str) -> ScalarColumns | None:
        result = self._resolve(Name(name, 0), ())
        if result is None or not len(result.steps):
            return None
        return ScalarColumns(result.steps, result.wall_times, result.values)

    def _resolve(self, reference: Name, trail: tuple[str, ...]) -> Series | None:
        tag = reference.tag
        if tag in self._rows:
            if tag not in self._logged:
                points = self._store.scalars(self._experiment_id, self._rows[tag].id)
                self._logged[tag] = canonical(points.steps, points.wall_times, points.values)
            return self._logged[tag]
        definition = self._defined.get(tag)
        if definition is None:
            return None
        if tag in trail:  # checked when defined; a guard against a store written otherwise
            raise ExpressionError(f"{tag!r} refers back to itself: a cycle", reference.position)
        if tag not in self._computed:
            self._computed[tag] = evaluate(
                _tree(definition.expression),
                lambda inner: self._resolve(inner, (*trail, tag)),
                asof=definition.align == "asof",
            )
        return self._computed[tag]


@lru_cache(maxsize=1024)
def _tree(expression: str) -> Node:
    return parse(expression)


def _reaches(defined: dict[str, Definition], logged: set[str], start: str, target: str) -> bool:
    """Whether the definition `start` refers, through definitions, to `target`."""
    seen: set[str] = set()
    stack = [start]
    while stack:
        name = stack.pop()
        if name == target:
            return True
        if name in seen or name not in defined or name in logged:
            continue
        seen.add(name)
        stack.extend(reference.tag for reference in names(_tree(defined[name].expression)))
    return False
