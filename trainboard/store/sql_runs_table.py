"""The queries of the run filter, the runs table and their fields, written once for SQLite and PostgreSQL (as
`trainboard.store.sql_run_metadata` is for run metadata): each backend gives only what its schema does differently,
its `Dialect` and where its runs, series, hyperparameters and final values are, live and as of a pin (`Source`).
"""

from __future__ import annotations

from dataclasses import dataclass

from trainboard.normaliser.points import DataClass
from trainboard.store.run_filter import RunFilter
from trainboard.store.run_filter_sql import STALLED_SINCE, Compiler, Derived, Dialect, Matches, Source
from trainboard.store.runs_table import TableQuery, table_sql

# An experiment's hyperparameter names and scalar tags, one index seek each (a DISTINCT would read every row).
_DISTINCT_HPARAMS = (
    "WITH RECURSIVE found (name) AS (SELECT min(name) FROM run_hparams WHERE experiment_id = {experiment}"
    " UNION ALL SELECT (SELECT min(h.name) FROM run_hparams h WHERE h.experiment_id = {experiment}"
    " AND h.name > found.name) FROM found WHERE found.name IS NOT NULL) SELECT name FROM found WHERE name IS NOT NULL"
)
_DISTINCT_TAGS = (
    "WITH RECURSIVE found (tag) AS (SELECT min(tag) FROM series WHERE experiment_id = {experiment}"
    " AND data_class = {scalar} UNION ALL SELECT (SELECT min(s.tag) FROM series s"
    " WHERE s.experiment_id = {experiment} AND s.data_class = {scalar} AND s.tag > found.tag) FROM found"
    " WHERE found.tag IS NOT NULL) SELECT tag FROM found WHERE tag IS NOT NULL"
)
_HPARAM_TEXTS = (
    "SELECT DISTINCT text FROM run_hparams WHERE experiment_id = {experiment} AND name = {name} AND text IS NOT NULL"
)
# Each kept run with its hyperparameters (h) and final metric values (m, `Source.metrics`), in run order.
_VALUES = (
    "WITH kept AS (SELECT r.run_id, r.name FROM ({runs}) r{joins} WHERE {condition}),"
    " h AS (SELECT run_id, name AS key, number, text FROM run_hparams WHERE experiment_id = {experiment}),"
    " m AS ({metrics}),"
    " vals AS (SELECT run_id, 'h' AS kind, key, number, text FROM h UNION ALL SELECT run_id, 'm', key, number,"
    " NULL FROM m WHERE NOT EXISTS (SELECT 1 FROM h WHERE h.run_id = m.run_id AND h.key = m.key))"
    " SELECT r.name, v.kind, v.key, v.number, v.text FROM kept r LEFT JOIN vals v ON v.run_id = r.run_id"
    " ORDER BY r.run_id, v.kind, v.key"
)

Query = tuple[str, dict[str, object]]


@dataclass(frozen=True, slots=True)
class RunQueries:
    """A backend's queries, as SQL and named parameters."""

    dialect: Dialect
    live: Source
    pinned: Source

    def _sql(self, template: str, **formatted: str) -> str:
        place = self.dialect.placeholder
        return template.format(experiment=place("experiment"), scalar=place("scalar"), name=place("name"), **formatted)

    def _params(self, experiment_id: str, pin_id: str | None = None) -> dict[str, object]:
        return {"experiment": experiment_id, "pin": pin_id, "scalar": int(DataClass.SCALAR)}

    def values(
        self,
        experiment_id: str,
        *,
        pin_id: str | None,
        where: RunFilter | None,
        matches: Matches,
        stalled_since: float,
        derived: Derived,
    ) -> Query:
        """The rows of `trainboard.store.run_values.run_values` of the runs the filter keeps."""
        source = self.live if pin_id is None else self.pinned
        compiler = Compiler(self.dialect, source, {}, matches, derived)
        condition = compiler.where(where)
        sql = self._sql(_VALUES, runs=source.runs, joins=compiler.joins, condition=condition, metrics=source.metrics)
        return sql, compiler.params | self._params(experiment_id, pin_id) | {STALLED_SINCE: stalled_since}

    def table(
        self,
        experiment_id: str,
        *,
        pin_id: str | None,
        query: TableQuery,
        matches: Matches,
        stalled_since: float,
        derived: Derived,
    ) -> Query:
        """`trainboard.store.runs_table.table_sql` over the live or pinned source."""
        sql, params = table_sql(query, matches, self.dialect, self.live if pin_id is None else self.pinned, derived)
        return sql, params | self._params(experiment_id, pin_id) | {STALLED_SINCE: stalled_since}

    def fields(self, experiment_id: str) -> tuple[Query, Query]:
        """The experiment's hyperparameter names and its scalar tags (each one column)."""
        params = self._params(experiment_id)
        return (self._sql(_DISTINCT_HPARAMS), params), (self._sql(_DISTINCT_TAGS), params)

    def hparam_texts(self, experiment_id: str, name: str) -> Query:
        """The texts of one hyperparameter."""
        return self._sql(_HPARAM_TEXTS), {"experiment": experiment_id, "name": name}
