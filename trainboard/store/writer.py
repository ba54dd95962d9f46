"""The write contracts: what ingest writes, and what a server writes (pins, deletion, run metadata, views).

One writer per experiment (`claim_writer`), and a batch commits only if the file's stored offset is still the one it
read from, so that even two writers never double a point."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import KW_ONLY, dataclass
from typing import Protocol

from trainboard.normaliser.points import Batch, RunState
from trainboard.reader.tail import FileCursor
from trainboard.store.run_metadata import RunMetadataKeeper
from trainboard.store.values import ExperimentRow, Pin, PinRow


@dataclass(frozen=True, slots=True)
class FileWrite:
    """One file's new records, read from `previous` (None: from its start) up to `cursor`; `restarted`: the file was
    written again from its start, and the points read from it before are replaced."""

    run: str
    cursor: FileCursor
    state: RunState
    batch: Batch
    _: KW_ONLY
    restarted: bool
    previous: FileCursor | None


class StoreWriter(Protocol):
    def create_experiment(self, name: str, description: str = "", location: str = "") -> ExperimentRow:
        """The experiment of this name (or id) as the command line finds it, created without an owner when new
        (`trainboard.store.experiment_names`); `location` says where its data comes from."""

    def claim_writer(self, experiment_id: str) -> bool:
        """Become the experiment's one writer for as long as this store is open; False when another process is."""

    def file_cursors(self, experiment_id: str) -> dict[str, FileCursor]: ...

    def file_cursor(self, experiment_id: str, path: str) -> FileCursor | None:
        """One file's cursor (None: never read), at a cost that does not grow with the experiment's files."""

    def file_run(self, experiment_id: str, path: str) -> str | None:
        """The name of the run whose file `path` is; None for a file not stored."""

    def run_state(self, experiment_id: str, run: str) -> RunState | None:
        """What the normaliser remembers about `run`, or None for a run never written."""

    def write_batch(self, experiment_id: str, write: FileWrite) -> None:
        """Commit one file's new records atomically: the points, the run's state and the file's new offset. Raise
        `StaleOffsetError` if the stored cursor is no longer `write.previous` (another writer moved it)."""

    def write_batches(self, experiment_id: str, writes: Sequence[FileWrite]) -> None:
        """`write_batch` for each write, all in one transaction: for many small files, whose commits would cost more
        than their records. Nothing is written if any fails."""

    def forget_files(self, experiment_id: str, paths: Collection[str]) -> None:
        """Files gone from the logdir: their points, and runs and series left empty, disappear."""

    def settle(self) -> None:
        """After an ingest pass that wrote: make what was written as fast to read as the rest."""

    def take_damaged_files(self, experiment_id: str) -> list[str]:
        """The experiment's files found to hold damaged points since the last call (`rebuild_from_logdir`)."""

    def structure_damage(self) -> str | None:
        """What broke the database's own structure, once a read or write found it so."""

    def can_rebuild(self) -> bool:
        """Whether `rebuild` can move a damaged database aside and build a new one in its place."""

    def rebuild(self) -> str:
        """Move the damaged database aside and build a new, empty one in its place; where the old one went."""


class StoreKeeper(RunMetadataKeeper, Protocol):
    def check(self) -> None:
        """Raise `StoreUnavailable` unless the database (with this trainboard's migrations) and the blob store answer
        now."""

    def create_pin(self, experiment_id: str, creator: int | None = None) -> Pin | None:
        """Record the experiment's ingest position now (`trainboard.store.pinned`), made by the user `creator`; None
        when there is no such experiment."""

    def pins(self, experiment_id: str) -> list[PinRow]:
        """The experiment's pins, oldest first."""

    def pin_count(self, creator: int) -> int:
        """How many pins the user has made, of every experiment."""

    def delete_pin(self, experiment_id: str, pin_id: str) -> bool:
        """False when the experiment has no such pin."""

    def pin(self, experiment_id: str, pin_id: str) -> Pin | None:
        """One of the experiment's pins; None when it has none by that id."""

    def delete_experiment(self, experiment_id: str) -> bool:
        """Delete the experiment and everything of it: runs, files, series, points, pins, roles and blobs, and its
        writer claim; the tokens limited to it are revoked. False, deleting nothing, while another process writes it
        (holds its writer claim)."""
