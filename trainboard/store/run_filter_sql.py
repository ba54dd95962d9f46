"""Terms and filters of the run filter language (`trainboard.store.run_filter`) as SQL over a run `r`, for the runs
table and the run filter on every backend.

Each backend describes where its runs, series summaries and hyperparameters are (`Source`, live or as of a pin) and
how it writes a few things (`Dialect`); a term becomes a number expression and a text expression (either may be
absent: a function has no text, a name no number) over a run `r` and the rows LEFT JOINed to it: one series of each
tag the terms name (through the index of series by run and tag) and one hyperparameter of each name, each joined once
however many terms read it. Joins rather than subqueries: PostgreSQL then reads a tag's series of every run at once
(a hash join) instead of one lookup per run; no run is loaded into Python to be filtered.

Regular expressions are not SQL's (neither backend has RE2): the store matches them first against the texts they
could meet (`Matches`: run names, statuses, the texts of one hyperparameter), and the condition asks for those texts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from trainboard.store.run_filter import And, Compare, Not, Or, RunFilter, Term
from trainboard.store.summaries import RUNNING, STALLED

# For each `~` comparison, the texts (run names, statuses, or values of its field) its pattern matches.
Matches = dict[Compare, list[str]]
_SQL_OPERATORS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}
# Each function as an expression over a series' summary columns `s` (trainboard.store.summaries).
_SUMMARIES = {
    "last": "{s}.last_value",
    "first": "{s}.first_value",
    "min": "{s}.min_value",
    "max": "{s}.max_value",
    # NULLIF: a series without a finite value has no mean.
    "mean": "{s}.value_sum / NULLIF({s}.point_count - {s}.nonfinite_count, 0)",
    "count": "{s}.point_count",
    "step_of_min": "{s}.min_value_step",
    "step_of_max": "{s}.max_value_step",
}
# The parameter the caller binds to the wall time before which a run without an end status is stalled.
STALLED_SINCE = "stalled_since"


@dataclass(frozen=True, slots=True)
class Dialect:
    # The placeholder of a named parameter.
    placeholder: Callable[[str], str]
    # Appended to text comparisons so that text orders by code point in both backends (as Python's str).
    collation: str
    # Whether a column's text is one of a list given as one parameter, and that parameter's value.
    member: Callable[[str, str], str]
    texts: Callable[[list[str]], object]


SQLITE = Dialect(
    placeholder=lambda name: f":{name}",
    collation="",
    member=lambda column, texts: f"{column} IN (SELECT value FROM json_each({texts}))",
    texts=lambda texts: json.dumps(texts),
)
POSTGRES = Dialect(
    placeholder=lambda name: f"%({name})s",
    collation=' COLLATE "C"',
    member=lambda column, texts: f"{column} = ANY({texts}::text[])",
    texts=list,
)


@dataclass(frozen=True, slots=True)
class Source:
    """Where a backend keeps what terms read, as SQL in its own placeholders."""

    # A relation of the experiment's runs: run_id, name, start_time, last_step, last_wall_time, end_status.
    runs: str
    # What to LEFT JOIN, and on what, for the summaries (trainboard.store.summaries) of the scalar series of run `r`
    # as `{a}` (a condition on `{a}.tag` is appended).
    series: str
    # The same for the hyperparameters (name, number, text) of run `r` as `{a}` (a condition on `{a}.name` follows).
    hparams: str


@dataclass(frozen=True, slots=True)
class Expressions:
    """A term as SQL: its number and its text (None where it has none)."""

    number: str | None
    text: str | None


class Compiler:
    """Conditions and terms over `r` and the joins they need (`joins`), their parameters in `params` (named f0, f1,
    ..., shared by the compilers of one query)."""

    def __init__(
        self, dialect: Dialect, source: Source, params: dict[str, object], matches: Matches | None = None
    ) -> None:
        self._matches = matches or {}
        self._dialect = dialect
        self._source = source
        self.params = params
        self._joined: dict[tuple[str, str], str] = {}
        self._joins: list[str] = []

    @property
    def joins(self) -> str:
        return "".join(self._joins)

    def where(self, tree: RunFilter | None) -> str:
        """The filter's condition; TRUE without one."""
        return "1 = 1" if tree is None else self.condition(tree)

    def _param(self, value: object) -> str:
        name = f"f{len(self.params)}"
        self.params[name] = value
        return self._dialect.placeholder(name)

    def _join(self, kind: str, name: str) -> str:
        """The alias of the row of the series (kind "s") of tag `name` or of the hyperparameter ("h") `name`."""
        alias = self._joined.get((kind, name))
        if alias is None:
            alias = self._joined[kind, name] = f"j{len(self._joined)}"
            on = self._source.series if kind == "s" else self._source.hparams
            column = "tag" if kind == "s" else "name"
            self._joins.append(f" LEFT JOIN {on.format(a=alias)} AND {alias}.{column} = {self._param(name)}")
        return alias

    def condition(self, tree: RunFilter) -> str:
        if isinstance(tree, Not):
            return f"NOT ({self.condition(tree.operand)})"
        if isinstance(tree, And | Or):
            joiner = " AND " if isinstance(tree, And) else " OR "
            return "(" + joiner.join(self.condition(operand) for operand in tree.operands) + ")"
        return self._compare(tree)

    def term(self, term: Term) -> Expressions:
        # The run metadata's terms (label, starred, notes) go here beside the run's own, as joins of their tables.
        if term.kind == "name":
            return Expressions(None, "r.name")
        if term.kind == "status":
            since = self._dialect.placeholder(STALLED_SINCE)
            return Expressions(
                None,
                f"(CASE WHEN r.end_status IS NOT NULL THEN r.end_status WHEN COALESCE(r.last_wall_time, r.start_time)"
                f" >= {since} THEN '{RUNNING}' ELSE '{STALLED}' END)",
            )
        if term.kind in ("start_time", "last_step"):
            return Expressions(f"r.{term.kind}", None)
        if term.kind == "duration":
            return Expressions("(r.last_wall_time - r.start_time)", None)
        if term.kind != "field":
            return Expressions(f"({_SUMMARIES[term.kind].format(s=self._join('s', term.field))})", None)
        # The run's hyperparameter of that name, else the last value of its series of that tag.
        hparam, series = self._join("h", term.field), self._join("s", term.field)
        return Expressions(
            f"(CASE WHEN {hparam}.name IS NULL THEN {series}.last_value ELSE {hparam}.number END)", f"{hparam}.text"
        )

    def _compare(self, compare: Compare) -> str:
        collation = self._dialect.collation
        expressions = self.term(compare.term)
        if compare.operator == "~" or isinstance(compare.value, str):
            column = expressions.text
            if column is None:
                return "1 = 0"  # a number is not text
            if compare.operator == "~":
                texts = self._matches.get(compare, [])
                # One parameter however many texts match: a list of thousands of run names stays one bound value.
                test = self._dialect.member(column, self._param(self._dialect.texts(texts))) if texts else "1 = 0"
            else:
                test = f"{column}{collation} {_SQL_OPERATORS[compare.operator]} {self._param(compare.value)}{collation}"
        elif expressions.number is None:
            return "1 = 0"  # text is not a number
        else:
            test = f"{expressions.number} {_SQL_OPERATORS[compare.operator]} {self._param(compare.value)}"
        # A value the run lacks (NULL) makes the comparison false, so that `not` of it is true.
        return f"({test}) IS TRUE"
