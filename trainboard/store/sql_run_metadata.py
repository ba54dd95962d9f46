"""Run metadata and saved views in SQL (see `trainboard.store.run_metadata`), written once for SQLite and PostgreSQL:
the tables `run_metadata`, `run_labels` and `saved_views` have the same columns in both.

The statements are templates with `{p}` for the driver's parameter marker. Each backend's subclass reads on its
connections (`_read`) and writes in one transaction (`_transaction`)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol

from trainboard.store.run_metadata import (
    MAX_LABELS_PER_RUN,
    MAX_VIEWS_PER_EXPERIMENT,
    MetadataChange,
    RunMetadata,
    View,
    ViewRow,
    name_taken,
    too_many_labels,
    too_many_views,
)

VIEW_COLUMNS = "view_id, name, created, updated, creator"


class Writing(Protocol):
    """The statements of one transaction."""

    def rows(self, sql: str, params: Sequence[object]) -> list[tuple[Any, ...]]:
        """The rows the statement returns (a query's, or RETURNING's)."""

    def many(self, sql: str, params: Sequence[Sequence[object]]) -> None:
        """The statement once for each of `params`."""


class SqlRunMetadata(ABC):
    """Implements `RunMetadataBackend`."""

    def __init__(self, *, placeholder: str) -> None:
        self._placeholder = placeholder

    @abstractmethod
    def _read(self, sql: str, params: Sequence[object] = ()) -> list[tuple[Any, ...]]: ...

    @abstractmethod
    def _transaction(self) -> AbstractContextManager[Writing]:
        """A write transaction: committed when the block ends, rolled back when it raises."""

    def _sql(self, template: str) -> str:
        return template.format(p=self._placeholder)

    # Run metadata.

    def run_metadata(self, experiment_id: str) -> list[RunMetadata]:
        fields = self._read(
            self._sql("SELECT run, display_name, notes, starred, color FROM run_metadata WHERE experiment_id = {p}"),
            (experiment_id,),
        )
        labels: dict[str, list[str]] = {}
        for run, label in self._read(
            self._sql("SELECT run, label FROM run_labels WHERE experiment_id = {p} ORDER BY run, label"),
            (experiment_id,),
        ):
            labels.setdefault(run, []).append(label)
        found = {
            run: RunMetadata(run, display_name, notes, tuple(labels.pop(run, ())), bool(starred), color)
            for run, display_name, notes, starred, color in fields
        }
        found.update({run: RunMetadata(run, labels=tuple(names)) for run, names in labels.items()})
        return list(found.values())

    def change_run_metadata(self, experiment_id: str, runs: Sequence[str], change: MetadataChange, now: float) -> None:
        columns = change.columns
        with self._transaction() as writing:
            if columns:
                names = ", ".join(columns)
                updates = ", ".join(f"{name} = excluded.{name}" for name in columns)
                writing.many(
                    self._sql(
                        f"INSERT INTO run_metadata (experiment_id, run, updated, {names})"
                        f" VALUES ({{p}}, {{p}}, {{p}}{', {p}' * len(columns)})"
                        f" ON CONFLICT (experiment_id, run) DO UPDATE SET updated = excluded.updated, {updates}"
                    ),
                    [(experiment_id, run, now, *columns.values()) for run in runs],
                )
                # A run whose metadata is all defaults again has no row.
                writing.rows(
                    self._sql(
                        "DELETE FROM run_metadata WHERE experiment_id = {p} AND display_name = '' AND notes = ''"
                        " AND NOT starred AND color IS NULL"
                    ),
                    (experiment_id,),
                )
            if change.remove_labels:
                writing.many(
                    self._sql("DELETE FROM run_labels WHERE experiment_id = {p} AND run = {p} AND label = {p}"),
                    [(experiment_id, run, label) for run in runs for label in change.remove_labels],
                )
            if change.add_labels:
                writing.many(
                    self._sql(
                        "INSERT INTO run_labels (experiment_id, run, label) VALUES ({p}, {p}, {p})"
                        " ON CONFLICT DO NOTHING"
                    ),
                    [(experiment_id, run, label) for run in runs for label in change.add_labels],
                )
                crowded = writing.rows(
                    self._sql(
                        "SELECT run FROM run_labels WHERE experiment_id = {p} GROUP BY run HAVING count(*) > {p}"
                    ),
                    (experiment_id, MAX_LABELS_PER_RUN),
                )
                changed = set(runs)
                if over := [run for (run,) in crowded if run in changed]:
                    raise too_many_labels(over)

    # Saved views.

    def views(self, experiment_id: str) -> list[ViewRow]:
        rows = self._read(
            self._sql(f"SELECT {VIEW_COLUMNS} FROM saved_views WHERE experiment_id = {{p}} ORDER BY name"),
            (experiment_id,),
        )
        return [ViewRow(*row) for row in rows]

    def view(self, experiment_id: str, key: str) -> View | None:
        rows = self._read(
            self._sql(
                f"SELECT {VIEW_COLUMNS}, state FROM saved_views WHERE experiment_id = {{p}}"
                " AND (view_id = {p} OR name = {p})"
            ),
            (experiment_id, key, key),
        )
        # An id before a name: a view named as another's id is found by its own id.
        rows.sort(key=lambda row: row[0] != key)
        return View(ViewRow(*rows[0][:-1]), rows[0][-1]) if rows else None

    def save_view(
        self, experiment_id: str, view_id: str, name: str, state: str, creator: int | None, now: float
    ) -> ViewRow:
        with self._transaction() as writing:
            (count,), *_ = writing.rows(
                self._sql("SELECT count(*) FROM saved_views WHERE experiment_id = {p} AND name <> {p}"),
                (experiment_id, name),
            )
            if count >= MAX_VIEWS_PER_EXPERIMENT:
                raise too_many_views()
            (row,) = writing.rows(
                self._sql(
                    "INSERT INTO saved_views (experiment_id, view_id, name, state, creator, created, updated)"
                    " VALUES ({p}, {p}, {p}, {p}, {p}, {p}, {p}) ON CONFLICT (experiment_id, name)"
                    f" DO UPDATE SET state = excluded.state, updated = excluded.updated RETURNING {VIEW_COLUMNS}"
                ),
                (experiment_id, view_id, name, state, creator, now, now),
            )
        return ViewRow(*row)

    def rename_view(self, experiment_id: str, view_id: str, name: str, now: float) -> ViewRow | None:
        with self._transaction() as writing:
            if writing.rows(
                self._sql("SELECT 1 FROM saved_views WHERE experiment_id = {p} AND name = {p} AND view_id <> {p}"),
                (experiment_id, name, view_id),
            ):
                raise name_taken(name)
            rows = writing.rows(
                self._sql(
                    "UPDATE saved_views SET name = {p}, updated = {p} WHERE experiment_id = {p} AND view_id = {p}"
                    f" RETURNING {VIEW_COLUMNS}"
                ),
                (name, now, experiment_id, view_id),
            )
        return ViewRow(*rows[0]) if rows else None

    def delete_view(self, experiment_id: str, view_id: str) -> bool:
        with self._transaction() as writing:
            deleted = writing.rows(
                self._sql("DELETE FROM saved_views WHERE experiment_id = {p} AND view_id = {p} RETURNING view_id"),
                (experiment_id, view_id),
            )
        return bool(deleted)
