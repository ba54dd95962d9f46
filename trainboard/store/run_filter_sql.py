"""A run filter (`trainboard.store.run_filter`) as a SQL condition on a run `r` (run_id, name), over a relation `vals`
(run_id, kind 'h' or 'm', key, number, text) of each run's hyperparameters and, where no hyperparameter has the
name, its final metric values: each backend builds both for its own tables and runs the condition.

Regular expressions are not SQL's (neither backend has RE2): the store matches them first against the texts they
could meet (`Matches`), and the condition asks for those texts.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from trainboard.store.run_filter import And, Compare, Not, Or, RunFilter

# For each `~` comparison, the texts (run names, or values of its field) its pattern matches.
Matches = dict[Compare, list[str]]
_SQL_OPERATORS = {"=": "=", "!=": "<>", "<": "<", "<=": "<=", ">": ">", ">=": ">="}


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


def compile_filter(tree: RunFilter | None, matches: Matches, dialect: Dialect) -> tuple[str, dict[str, object]]:
    """The condition and its parameters (named f0, f1, ...); TRUE without a filter."""
    params: dict[str, object] = {}
    if tree is None:
        return "1 = 1", params
    return _Compiler(matches, dialect, params).condition(tree), params


class _Compiler:
    def __init__(self, matches: Matches, dialect: Dialect, params: dict[str, object]) -> None:
        self._matches = matches
        self._dialect = dialect
        self._params = params

    def _param(self, value: object) -> str:
        name = f"f{len(self._params)}"
        self._params[name] = value
        return self._dialect.placeholder(name)

    def condition(self, tree: RunFilter) -> str:
        if isinstance(tree, Not):
            return f"NOT ({self.condition(tree.operand)})"
        if isinstance(tree, And | Or):
            joiner = " AND " if isinstance(tree, And) else " OR "
            return "(" + joiner.join(self.condition(operand) for operand in tree.operands) + ")"
        return self._compare(tree)

    def _compare(self, compare: Compare) -> str:
        collation = self._dialect.collation
        if compare.operator == "~":
            texts = self._matches.get(compare, [])
            column = "r.name" if compare.is_name else "v.text"
            # One parameter however many texts match: a list of thousands of run names stays one bound value.
            test = self._dialect.member(column, self._param(self._dialect.texts(texts))) if texts else "1 = 0"
        elif isinstance(compare.value, str):
            column = "r.name" if compare.is_name else "v.text"
            test = f"{column}{collation} {_SQL_OPERATORS[compare.operator]} {self._param(compare.value)}{collation}"
        elif compare.is_name:
            return "1 = 0"  # a name is text
        else:
            test = f"v.number {_SQL_OPERATORS[compare.operator]} {self._param(compare.value)}"
        if compare.is_name:
            return test
        # The field is the run's hyperparameter of that name, else its metric of that tag.
        return (
            f"EXISTS (SELECT 1 FROM vals v WHERE v.run_id = r.run_id AND v.key = {self._param(compare.field)}"
            f" AND {test})"
        )
