"""The runs table: one row per run the filter keeps, with chosen columns (terms of the run filter language,
`trainboard.store.run_filter`), sorted on any of them and cut to a page, built as one SQL query for every backend.

The query sorts the kept runs on the sort keys alone (each evaluated once per run), keeps the page's and computes the
columns for those only: a page of 100 of 10,000 runs looks up 100 rows' columns. Missing values sort last in either
direction; runs that tie are ordered by name.
"""

from __future__ import annotations

from dataclasses import dataclass

from trainboard.store.run_filter import LABELS, METADATA_TERMS, STARRED, RunFilter, Term
from trainboard.store.run_filter_sql import LABEL_SEPARATOR, Compiler, Derived, Dialect, Matches, Source

RUN_COLUMN = "run"
# More rows than any table has.
EVERY = 2**62
# The run's own columns first in a table whose columns are not chosen, then its metadata, before its hyperparameters
# and last values.
RUN_TERMS = (
    Term("status", "status"),
    Term("start_time", "start_time"),
    Term("last_step", "last_step"),
    *(Term(name, name) for name in METADATA_TERMS),
)


@dataclass(frozen=True, slots=True)
class SortKey:
    term: Term
    descending: bool = False


@dataclass(frozen=True, slots=True)
class TableQuery:
    where: RunFilter | None = None
    columns: tuple[Term, ...] = ()
    sort: tuple[SortKey, ...] = ()
    offset: int = 0
    # None: every run from `offset` on.
    limit: int | None = None


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
    query: TableQuery, matches: Matches, dialect: Dialect, source: Source, derived: Derived
) -> tuple[str, dict[str, object]]:
    """The query and its parameters, besides those of `source` and STALLED_SINCE: rows of (total, name, then each
    column's number and text expressions as `column_values` reads them)."""
    params: dict[str, object] = {}
    kept = Compiler(dialect, source, params, matches, derived)
    condition = kept.where(query.where)
    # The sort keys' values are kept with the page's runs, which are sorted again by them once joined.
    keys: list[str] = []
    inner_keys: list[str] = []
    outer_keys: list[str] = []
    for key in query.sort:
        expressions = kept.term(key.term)
        order = " DESC" if key.descending else ""
        for expression, collation in ((expressions.number, ""), (expressions.text, dialect.collation)):
            if expression is not None:
                name = f"k{len(keys)}"
                keys.append(f"{expression} AS {name}")
                inner_keys.append(f"{expression}{collation}{order} NULLS LAST")
                outer_keys.append(f"p.{name}{collation}{order} NULLS LAST")
    inner_keys += [f"r.name{dialect.collation}", "r.run_id"]
    outer_keys += [f"r.name{dialect.collation}", "r.run_id"]
    page = Compiler(dialect, source, params, derived=derived)
    selected = []
    for term in query.columns:
        expressions = page.term(term)
        selected += [expressions.number or "NULL", expressions.text or "NULL"]
    params |= {"offset": query.offset, "limit": EVERY if query.limit is None else query.limit}
    place = dialect.placeholder
    # The total: the kept runs counted as they are sorted when a filter keeps some, else the experiment's runs.
    total = "COUNT(*) OVER ()" if query.where is not None else f"(SELECT COUNT(*) FROM ({source.runs}) r)"
    sql = (
        f"SELECT p.total, r.name{''.join(', ' + column for column in selected)} FROM"
        f" (SELECT r.run_id, r.name, {total} AS total{''.join(', ' + key for key in keys)}"
        f" FROM ({source.runs}) r{kept.joins} WHERE {condition} ORDER BY {', '.join(inner_keys)}"
        f" LIMIT {place('limit')} OFFSET {place('offset')}) p JOIN ({source.runs}) r ON r.run_id = p.run_id"
        f"{page.joins} ORDER BY {', '.join(outer_keys)}"
    )
    return sql, params


def column_values(row: tuple[object, ...], columns: tuple[Term, ...]) -> tuple[object, ...]:
    """A row of `table_sql` as the table's: the name, then each column's number, else its text; `labels` a list of
    text and `starred` a boolean."""
    _, name, *values = row
    found: list[object] = [name]
    for term, number, text in zip(columns, values[::2], values[1::2], strict=True):
        if term.kind == LABELS:
            found.append(text.split(LABEL_SEPARATOR) if isinstance(text, str) else [])
        elif term.kind == STARRED:
            found.append(bool(number))
        else:
            found.append(number if number is not None else text)
    return tuple(found)


def labels(columns: tuple[Term, ...]) -> tuple[str, ...]:
    return (RUN_COLUMN, *(term.label for term in columns))
