"""Terms and filters of the run filter language (`trainboard.store.run_filter`) as SQL over a run `r`, for the runs
table and the run filter on every backend.

Each backend describes where its runs, series summaries and hyperparameters are (`Source`, live or as of a pin) and
how it writes a few things (`Dialect`); a term becomes a number expression and a text expression (either may be
absent: a function has no text, a name no number) over a run `r` and the rows LEFT JOINed to it: one series of each
tag the terms name (through the index of series by run and tag) and one hyperparameter of each name, each joined once
however many terms read it. Joins rather than subqueries: PostgreSQL then reads a tag's series of every run at once
(a hash join) instead of one lookup per run; no run is loaded into Python to be filtered.

The run's metadata (`trainboard.store.run_metadata`) is read live, pinned or not, as the web UI edits it: its row of
`run_metadata` LEFT JOINed once by run name, its labels by subqueries of `run_labels`.

Derived metrics (`trainboard.provider.derived`) have no stored summaries: the provider computes them and the query
receives each such tag's as a parameter (`Derived`, tag -> run -> summary): a relation of one row per run, joined by
run name in place of the tag's series (and only by run name: SQLite then indexes it by run as it reads it, where a
condition on its tag too made it index by tag, and read all 10,000 rows of a tag for each of 10,000 runs).

Regular expressions are not SQL's (neither backend has RE2): the store matches them first against the texts they
could meet (`Matches`: run names, statuses, the texts of one hyperparameter, the experiment's labels), and the
condition asks for those texts. For the metadata's texts (notes may be long) the matches are the names of the runs
whose text matches instead (`MATCHED_BY_RUN`).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

from trainboard.store.run_filter import LABELS, STARRED, And, Compare, Not, Or, RunFilter, Term
from trainboard.store.summaries import COLUMNS, RUNNING, STALLED, ChunkSummary

# For each `~` comparison, the texts (run names, statuses, or values of its field) its pattern matches.
Matches = dict[Compare, list[str]]
# The summaries of derived metrics' series, by name then run.
Derived = Mapping[str, Mapping[str, ChunkSummary]]
# The prefix of the parameters that hold them, and their columns as the relation of `Dialect.derived` names them.
DERIVED = "derived"
DERIVED_COLUMNS = ("run", "point_count", *COLUMNS)
_INTEGERS = frozenset({"point_count", "nonfinite_count", "min_value_step", "max_value_step", "first_step", "last_step"})
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
LABEL_SEPARATOR = "\x01"
# The parameter the caller binds to the wall time before which a run without an end status is stalled.
STALLED_SINCE = "stalled_since"
# The metadata's texts as terms (a run without metadata has notes and a display name of "" and no colour), and the
# terms whose `~` matches are run names.
_METADATA_TEXTS = {
    "notes": "COALESCE({m}.notes, '')",
    "display_name": "COALESCE({m}.display_name, '')",
    "color": "{m}.color",
}
MATCHED_BY_RUN = frozenset(_METADATA_TEXTS)


def _json_number(value: object) -> str:
    """A number as SQLite's JSON reads it: 9e999 is its infinity; NaN is no value (as SQLite stores NaN)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "null"
    if isinstance(value, float) and math.isinf(value):
        return "9e999" if value > 0 else "-9e999"
    return repr(value)


def _json_rows(rows: list[tuple[object, ...]]) -> str:
    return (
        "["
        + ",".join(f"[{json.dumps(run)},{','.join(_json_number(value) for value in values)}]" for run, *values in rows)
        + "]"
    )


def derived_rows(by_run: Mapping[str, ChunkSummary]) -> list[tuple[object, ...]]:
    """The rows of DERIVED_COLUMNS of one tag's summaries."""
    return [(run, summary.count, *summary.row()) for run, summary in by_run.items()]


@dataclass(frozen=True, slots=True)
class Dialect:
    # The placeholder of a named parameter.
    placeholder: Callable[[str], str]
    # Appended to text comparisons so that text orders by code point in both backends (as Python's str).
    collation: str
    # Whether a column's text is one of a list given as one parameter, and that parameter's value.
    member: Callable[[str, str], str]
    texts: Callable[[list[str]], object]
    # The labels of the rows `l` of `run_labels` that follow FROM (the text of `{rows}`) sorted by code point, as one
    # text with LABEL_SEPARATOR between them (a label has no control character, so the texts sort as the lists do);
    # NULL for none.
    labels: str
    # The relation of DERIVED_COLUMNS from the parameters named from a prefix, and those parameters for its rows.
    derived: Callable[[str], str]
    derived_rows: Callable[[str, list[tuple[object, ...]]], dict[str, object]]


SQLITE = Dialect(
    placeholder=lambda name: f":{name}",
    collation="",
    member=lambda column, texts: f"{column} IN (SELECT value FROM json_each({texts}))",
    texts=lambda texts: json.dumps(texts),
    labels="(SELECT group_concat(label, char(1)) FROM (SELECT l.label AS label FROM {rows} ORDER BY l.label))",
    # The run as TEXT: of the affinity of `runs.name`, so that SQLite may index the relation by run as it joins it.
    derived=lambda prefix: (
        "(SELECT CAST(json_extract(value, '$[0]') AS TEXT) AS run, "
        + ", ".join(
            f"json_extract(value, '$[{index}]') AS {name}" for index, name in enumerate(DERIVED_COLUMNS) if index
        )
        + f" FROM json_each(:{prefix}))"
    ),
    derived_rows=lambda prefix, rows: {prefix: _json_rows(rows)},
)
POSTGRES = Dialect(
    placeholder=lambda name: f"%({name})s",
    collation=' COLLATE "C"',
    member=lambda column, texts: f"{column} = ANY({texts}::text[])",
    texts=list,
    labels='(SELECT string_agg(l.label, chr(1) ORDER BY l.label COLLATE "C") FROM {rows})',
    # One array parameter per column (PostgreSQL's JSON numbers have no infinity), cut into rows by unnest.
    derived=lambda prefix: (
        "(SELECT * FROM unnest("
        + ", ".join(
            f"%({prefix}_{index})s::{'text' if index == 0 else 'bigint' if name in _INTEGERS else 'float8'}[]"
            for index, name in enumerate(DERIVED_COLUMNS)
        )
        + f") AS d ({', '.join(DERIVED_COLUMNS)}))"
    ),
    derived_rows=lambda prefix, rows: {
        f"{prefix}_{index}": [row[index] for row in rows] for index in range(len(DERIVED_COLUMNS))
    },
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
    # A relation of the last value of each scalar series of the experiment's runs: run_id, key (its tag), number.
    metrics: str
    # The earliest first wall time of the scalar series of run `r` (NULL without one), as a scalar subquery.
    first_point_time: str


@dataclass(frozen=True, slots=True)
class Expressions:
    """A term as SQL: its number and its text (None where it has none)."""

    number: str | None
    text: str | None


class Compiler:
    """Conditions and terms over `r` and the joins they need (`joins`), their parameters in `params` (named f0, f1,
    ..., shared by the compilers of one query)."""

    def __init__(
        self,
        dialect: Dialect,
        source: Source,
        params: dict[str, object],
        matches: Matches | None = None,
        derived: Derived | None = None,
    ) -> None:
        self._matches = matches or {}
        self._derived = derived or {}
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
            if kind == "s" and name in self._derived:
                self._joins.append(f" LEFT JOIN {self._derived_relation(name)} {alias} ON {alias}.run = r.name")
                return alias
            on = self._source.series if kind == "s" else self._source.hparams
            column = "tag" if kind == "s" else "name"
            self._joins.append(f" LEFT JOIN {on.format(a=alias)} AND {alias}.{column} = {self._param(name)}")
        return alias

    def _derived_relation(self, name: str) -> str:
        """The relation of the derived metric's summaries, its parameters bound once for the compilers of a query."""
        prefix = f"{DERIVED}{sorted(self._derived).index(name)}"
        if not any(key.startswith(prefix) for key in self.params):
            self.params.update(self._dialect.derived_rows(prefix, derived_rows(self._derived[name])))
        return self._dialect.derived(prefix)

    def _metadata(self) -> str:
        """The alias of the run's row of `run_metadata` (NULLs for a run without one)."""
        alias = self._joined.get(("m", ""))
        if alias is None:
            alias = self._joined["m", ""] = f"j{len(self._joined)}"
            experiment = self._dialect.placeholder("experiment")
            self._joins.append(
                f" LEFT JOIN run_metadata {alias} ON {alias}.experiment_id = {experiment} AND {alias}.run = r.name"
            )
        return alias

    def _start_time(self) -> str:
        """The earliest of the run's start (its first event's wall time, which TensorBoard reports) and its points'
        wall times: a writer given wall times of its own (a replay, a converted log) stamps its points before or
        after its file-version event, and a run must not end before it starts."""
        first_point = self._source.first_point_time
        return f"COALESCE(CASE WHEN {first_point} < r.start_time THEN {first_point} END, r.start_time)"

    def _labels(self, condition: str = "") -> str:
        """The rows `l` of the run's labels, with a condition on `l.label`."""
        experiment = self._dialect.placeholder("experiment")
        return f"run_labels l WHERE l.experiment_id = {experiment} AND l.run = r.name{condition}"

    def condition(self, tree: RunFilter) -> str:
        if isinstance(tree, Not):
            return f"NOT ({self.condition(tree.operand)})"
        if isinstance(tree, And | Or):
            joiner = " AND " if isinstance(tree, And) else " OR "
            return "(" + joiner.join(self.condition(operand) for operand in tree.operands) + ")"
        return self._compare(tree)

    def term(self, term: Term) -> Expressions:
        if term.kind == "name":
            return Expressions(None, "r.name")
        if term.kind == "status":
            since = self._dialect.placeholder(STALLED_SINCE)
            return Expressions(
                None,
                f"(CASE WHEN r.end_status IS NOT NULL THEN r.end_status WHEN COALESCE(r.last_wall_time, r.start_time)"
                f" >= {since} THEN '{RUNNING}' ELSE '{STALLED}' END)",
            )
        if term.kind == "start_time":
            return Expressions(self._start_time(), None)
        if term.kind == "last_step":
            return Expressions("r.last_step", None)
        if term.kind == "duration":
            return Expressions(f"(r.last_wall_time - {self._start_time()})", None)
        if term.kind == STARRED:
            # A boolean in PostgreSQL, 0 or 1 in SQLite: 1 or 0 in both.
            return Expressions(f"(CASE WHEN {self._metadata()}.starred THEN 1 ELSE 0 END)", None)
        if term.kind in _METADATA_TEXTS:
            return Expressions(None, _METADATA_TEXTS[term.kind].format(m=self._metadata()))
        if term.kind == LABELS:
            return Expressions(None, self._dialect.labels.format(rows=self._labels()))
        if term.kind != "field":
            return Expressions(f"({_SUMMARIES[term.kind].format(s=self._join('s', term.field))})", None)
        # The run's hyperparameter of that name, else the last value of its series of that tag.
        hparam, series = self._join("h", term.field), self._join("s", term.field)
        return Expressions(
            f"(CASE WHEN {hparam}.name IS NULL THEN {series}.last_value ELSE {hparam}.number END)", f"{hparam}.text"
        )

    def _compare(self, compare: Compare) -> str:
        if compare.term.kind == LABELS:
            return self._compare_labels(compare)
        collation = self._dialect.collation
        expressions = self.term(compare.term)
        if compare.operator == "~" or isinstance(compare.value, str):
            column = expressions.text
            if column is None:
                return "1 = 0"  # a number is not text
            if compare.operator == "~" and compare.term.kind in MATCHED_BY_RUN:
                column = "r.name"
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

    def _compare_labels(self, compare: Compare) -> str:
        """Whether one of the run's labels compares so; for `!=`, whether none is the value."""
        if not isinstance(compare.value, str):
            return "1 = 0"  # a label is text
        if compare.operator == "~":
            texts = self._matches.get(compare, [])
            if not texts:
                return "1 = 0"
            test = self._dialect.member("l.label", self._param(self._dialect.texts(texts)))
        else:
            collation = self._dialect.collation
            operator = "=" if compare.operator == "!=" else _SQL_OPERATORS[compare.operator]
            test = f"l.label{collation} {operator} {self._param(compare.value)}{collation}"
        found = f"EXISTS (SELECT 1 FROM {self._labels(f' AND {test}')})"
        return f"NOT {found}" if compare.operator == "!=" else found
