"""Many small runs committed together: reading them is cheap, one transaction each is not (a logdir of 10,000 runs of
a few kilobytes spent most of its ingest in commits and their per-file statements)."""

from __future__ import annotations

from trainboard.store.writer import FileWrite


class GroupedWrites:
    """Takes files' records (a `BatchSink`) and keeps them for one `StoreWriter.write_batches`. A run's state object
    goes on changing as its later files are read: written in one transaction, the last state is the one kept."""

    def __init__(self) -> None:
        self.writes: list[FileWrite] = []
        # What each write told the progress: bytes read and points added, once committed.
        self.reports: list[tuple[int, int]] = []

    def write_batch(self, experiment_id: str, write: FileWrite) -> None:
        self.writes.append(write)

    def report(self, bytes_read: int, points: int) -> None:
        self.reports.append((bytes_read, points))
