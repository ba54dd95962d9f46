"""Run metadata and saved views in the Python API (`trainboard.store.run_metadata` says what they are): the methods
`Experiment` (a store's) and `RemoteExperiment` (a server's) share, each over its own way to read and write them.

    exp.set_notes("lr0.1", "diverged after **step 300**")
    exp.add_label("lr0.1", "sweep"); exp.remove_label("lr0.1", "sweep")
    exp.star("lr0.1", True); exp.set_color("lr0.1", "#ff8800"); exp.set_display_name("lr0.1", "baseline")
    exp.run_metadata()  # a frame: one row per run
    exp.save_view("by lr", {...}); exp.views(); exp.view("by lr"); exp.rename_view("by lr", "lr"); exp.delete_view("lr")

A value past its bound raises `InvalidArgumentError`, a run the experiment does not have `NotFoundError`, a count past
its most `ConflictError` (trainboard.errors), from a store and from a server alike."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from trainboard.api.frames import FrameLibrary, Table, check_backend, frame
from trainboard.store.run_metadata import RunMetadata


class RunMetadataMethods(ABC):
    backend: FrameLibrary

    @abstractmethod
    def _change_run_metadata(self, runs: list[str], change: dict[str, Any]) -> None:
        """Apply the change (the HTTP route's keys: notes, add_labels, ...) to the runs."""

    @abstractmethod
    def _run_metadata(self) -> tuple[list[str], list[RunMetadata]]:
        """The experiment's runs in walk order, and the metadata of those that have any."""

    @abstractmethod
    def views(self) -> list[dict[str, Any]]:
        """The saved views, by name: `{"id", "name", "created", "updated"}` each."""

    @abstractmethod
    def view(self, key: str) -> dict[str, Any]:
        """The view of this id or name, its state included (`"state"`); `NotFoundError` when there is none."""

    @abstractmethod
    def save_view(self, name: str, state: dict[str, Any] | str) -> dict[str, Any]:
        """Save `state` (a JSON object, or its text) as the view `name`, replacing the state of a view of that name;
        the view (without its state)."""

    @abstractmethod
    def rename_view(self, key: str, name: str) -> dict[str, Any]: ...

    @abstractmethod
    def delete_view(self, key: str) -> None: ...

    def set_notes(self, run: str, text: str) -> None:
        """The run's notes (markdown; "" for none)."""
        self._change_run_metadata([run], {"notes": text})

    def set_display_name(self, run: str, name: str) -> None:
        """The name the web UI shows for the run ("" for its own)."""
        self._change_run_metadata([run], {"display_name": name})

    def add_label(self, run: str, label: str) -> None:
        self._change_run_metadata([run], {"add_labels": [label]})

    def remove_label(self, run: str, label: str) -> None:
        self._change_run_metadata([run], {"remove_labels": [label]})

    def star(self, run: str, starred: bool = True) -> None:
        self._change_run_metadata([run], {"starred": starred})

    def set_color(self, run: str, color: str | None) -> None:
        """`"#rrggbb"`, or None for the colour the web UI gives the run."""
        self._change_run_metadata([run], {"color": color or ""})

    def run_metadata(self, *, backend: str | None = None) -> Any:
        """One row per run, in walk order: run, display_name, notes, labels (a list), starred, color (None: none)."""
        return frame(self.run_metadata_table(), self.backend if backend is None else check_backend(backend))

    def run_metadata_table(self, *, every_run: bool = True) -> Table:
        """`run_metadata`'s columns: of every run, or (`every_run=False`) of the runs that have metadata."""
        runs, found = self._run_metadata()
        by_run = {row.run: row for row in found}
        rows = [by_run.get(run, RunMetadata(run)) for run in runs if every_run or run in by_run]
        return {
            "run": [row.run for row in rows],
            "display_name": [row.display_name for row in rows],
            "notes": [row.notes for row in rows],
            "labels": [list(row.labels) for row in rows],
            "starred": np.array([row.starred for row in rows], dtype=np.bool_),
            "color": [row.color for row in rows],
        }
