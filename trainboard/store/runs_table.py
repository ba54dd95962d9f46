"""The runs table: one row per run the filter keeps, with chosen columns (terms of the run filter language,
`trainboard.store.run_filter`), sorted on any of them and cut to a page, built as one SQL query for every backend.

The query numbers the kept runs in the sort's order (a window over the sort keys alone, evaluated once per run) and
computes the columns for the page's runs only: a page of 100 of 10,000 runs looks up 100 rows' columns. Missing values
sort last in either direction; runs that tie are ordered by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainboard.store.run_filter import Filter, Term
from trainboard.store.run_filter_sql import Dialect, Matches, Source, compile_filter, compile_term

RUN_COLUMN = "run"
# The run's own columns first in a table whose columns are not chosen, before its hyperparameters and last values.
RUN_TERMS = (Term("status", "status"), Term("start_time", "start_time"), Term("last_step", "last_step"))
MAX_LIMIT = 10_000
MAX_COLUMNS = 1_000


@dataclass(frozen=True, slots=True)
class SortKey:
    term: Term
    descending: bool = False


@dataclass(frozen=True, slots=True)
class TableQuery:
    where: Filter | None = None
    # None: the run's own terms, then each hyperparameter and the last value of each scalar tag (`default_columns`).
    columns: tuple[Term, ...] | None = None
    sort: tuple[SortKey, ...] = ()
    offset: int = 0
    limit: int = MAX_LIMIT


@dataclass(frozen=True, slots=True)
class RunsTable:
    """`columns` names each value of a row: RUN_COLUMN, then the terms as the language writes them."""

    columns: tuple[str, ...]
    rows: list[tuple[object, ...]]
    # How many runs the filter keeps (the rows are a page of them).
    total: int


def default_columns(hparams: list[str], tags: list[str]) -> tuple[Term, ...]:
    return (*RUN_TERMS, *(Term("field", name) for name in hparams), *(Term("last", tag) for tag in tags))


def table_sql(
    query: TableQuery, columns: tuple[Term, ...], matches: Matches, dialect: Dialect, source: Source
) -> tuple[str, dict[str, object]]:
    """The query and its parameters, besides those of `source` and STALLED_SINCE: rows of (position, total, name,
    then each column's number and text expressions as `column_values` reads them)."""
    condition, params = compile_filter(query.where, matches, dialect, source)
    keys = []
    for key in query.sort:
        expressions = compile_term(key.term, dialect, source, params)
        order = " DESC" if key.descending else ""
        if expressions.number is not None:
            keys.append(f"{expressions.number}{order} NULLS LAST")
        if expressions.text is not None:
            keys.append(f"{expressions.text}{dialect.collation}{order} NULLS LAST")
    keys += [f"r.name{dialect.collation}", "r.run_id"]
    selected = []
    for term in columns:
        expressions = compile_term(term, dialect, source, params)
        selected += [expressions.number or "NULL", expressions.text or "NULL"]
    params |= {"offset": query.offset, "end": query.offset + query.limit}
    place = dialect.placeholder
    sql = (
        f"SELECT p.position, p.total, r.name{''.join(', ' + column for column in selected)} FROM"
        f" (SELECT r.run_id, ROW_NUMBER() OVER (ORDER BY {', '.join(keys)}) AS position, COUNT(*) OVER () AS total"
        f" FROM ({source.runs}) r WHERE {condition}) p JOIN ({source.runs}) r ON r.run_id = p.run_id"
        f" WHERE p.position > {place('offset')} AND p.position <= {place('end')} ORDER BY p.position"
    )
    return sql, params


def column_values(row: tuple[object, ...]) -> tuple[object, ...]:
    """A row of `table_sql` as the table's: the name, then each column's number, else its text."""
    _, _, name, *values = row
    return (
        name,
        *(number if number is not None else text for number, text in zip(values[::2], values[1::2], strict=True)),
    )


def labels(columns: tuple[Term, ...]) -> tuple[str, ...]:
    return (RUN_COLUMN, *(term.label for term in columns))
