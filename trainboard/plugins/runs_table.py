"""The runs table (`trainboard.store.runs_table`) asked for in text: a filter, a sort and columns written in the run
filter language (`trainboard.store.run_filter`), as the HTTP route's parameters and `runs()`'s arguments give them.

    columns: "last(val/acc), max(val/acc), lr, status"   (or a list of terms)
    sort:    "-max(val/acc), name"                         (`-`: descending; or a list)
"""

from __future__ import annotations

from collections.abc import Sequence

from trainboard.errors import InvalidArgumentError
from trainboard.plugins.run_filter import parsed
from trainboard.provider.values import RunsTable, SortKey, TableQuery, Term, parse_terms

MAX_COLUMNS = 1_000
MAX_SORT_KEYS = 16
# The longest text of the columns or the sort.
MAX_TERMS_LENGTH = 65_536

Terms = str | Sequence[str] | None


def table_query(
    filter: str | None = None,
    sort: Terms = None,
    columns: Terms = None,
    *,
    offset: int = 0,
    limit: int | None = None,
) -> TableQuery:
    """InvalidArgumentError for text that is not of the language, saying which parameter, where and what was
    expected."""
    keys = _terms(sort, "sort", descending=True)
    if len(keys) > MAX_SORT_KEYS:
        raise InvalidArgumentError(f"sort: at most {MAX_SORT_KEYS} keys")
    chosen = _terms(columns, "columns", descending=False)
    if len(chosen) > MAX_COLUMNS:
        raise InvalidArgumentError(f"columns: at most {MAX_COLUMNS}")
    return TableQuery(
        where=parsed(filter),
        columns=tuple(term for term, _ in chosen),
        sort=tuple(SortKey(term, descending) for term, descending in keys),
        offset=offset,
        limit=limit,
    )


def _terms(given: Terms, name: str, *, descending: bool) -> list[tuple[Term, bool]]:
    if given is None:
        return []
    texts = [given] if isinstance(given, str) else list(given)
    if sum(len(text) for text in texts) > MAX_TERMS_LENGTH:
        raise InvalidArgumentError(f"{name}: longer than {MAX_TERMS_LENGTH} characters")
    found = []
    for text in texts:
        if not text.strip():
            continue
        try:
            found += parse_terms(text, descending=descending)
        except InvalidArgumentError as error:
            raise InvalidArgumentError(f"{name}: {error.message.removeprefix('filter: ')}") from None
    return found


def as_json(table: RunsTable, query: TableQuery) -> dict[str, object]:
    """A value the run lacks is null (infinities are written as TensorBoard writes them, by the JSON response)."""
    return {
        "columns": list(table.columns),
        "rows": [list(row) for row in table.rows],
        "total": table.total,
        "offset": query.offset,
        "limit": query.limit,
    }
