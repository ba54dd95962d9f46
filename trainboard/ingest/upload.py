"""The server's side of `trainboard upload`: commit the bytes of one file that a client sent, exactly once.

A client asks how far each file is committed (`cursors`) and sends a file's bytes from there (`receive`). The bytes
are read by the same code as a logdir's (`ingest.files` over `reader.received`), and a file's points commit with its
new offset in one transaction, only if the stored offset is still the one the bytes start at: a chunk sent twice (a
retry after a lost answer, a client killed and run again) commits once, and a stale one is refused with where the
file stands (`OffsetMismatch`). A truncated or replaced file is told by the same rule as on a local disk
(`is_restarted`): the client sends it from 0 and what was read from it before is replaced.
"""

from __future__ import annotations

import threading
from collections.abc import Collection, Mapping
from dataclasses import dataclass, field

from trainboard.ingest.files import FileTarget, load_file
from trainboard.normaliser.points import RunState
from trainboard.reader.dialect import is_projector_config, is_structure_graph_file
from trainboard.reader.logdir import FileStat
from trainboard.reader.received import ReceivedFile, ReceivedFiles
from trainboard.reader.tail import FileCursor, is_restarted
from trainboard.store.errors import StaleOffsetError
from trainboard.store.values import ExperimentRow
from trainboard.store.writer import StoreWriter


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes of one file of a run, from `offset`, with the file's size, modification time and first bytes as the
    client saw them. A structure graph or projector config comes whole, a config with the files it names (`named`,
    by path). `position` is the run's place in the client's logdir walk, `place` where a config lies in its run
    (`ingest.files.config_place`)."""

    run: str
    path: str
    offset: int
    stat: FileStat
    head: bytes
    data: bytes
    position: int = 0
    place: int = 0
    named: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def whole(self) -> bool:
        return is_structure_graph_file(self.path) or is_projector_config(self.path)


@dataclass(frozen=True, slots=True)
class Receipt:
    """Where the file stands after a chunk: its committed cursor, and the points the chunk added."""

    cursor: FileCursor | None
    points: int


class OffsetMismatch(Exception):
    """The chunk does not start where the store would read the file from: send from `expected` (whole files: 0)."""

    def __init__(self, path: str, expected: int, cursor: FileCursor | None) -> None:
        super().__init__(f"{path}: the store reads this file from offset {expected}")
        self.expected = expected
        self.cursor = cursor


class Uploads:
    """Commits uploaded chunks into a store's experiments. Chunks of one run are committed one at a time in this
    process: they share the run's normaliser state."""

    def __init__(self, store: StoreWriter) -> None:
        self.store = store
        self._locks: dict[tuple[str, str], threading.Lock] = {}
        self._locks_lock = threading.Lock()

    def create_experiment(self, name: str, description: str) -> ExperimentRow:
        """The experiment of this name, created when new (a server without accounts, where anyone may upload)."""
        return self.store.create_experiment(name, description)

    def cursors(self, experiment_id: str) -> dict[str, FileCursor]:
        return self.store.file_cursors(experiment_id)

    def receive(self, experiment_id: str, chunk: Chunk) -> Receipt:
        with self._lock(experiment_id, chunk.run):
            cursor = self.store.file_cursors(experiment_id).get(chunk.path)
            expected = expected_offset(cursor, chunk.stat, chunk.head, whole=chunk.whole)
            if chunk.offset != expected:
                raise OffsetMismatch(chunk.path, expected, cursor)
            files = {chunk.path: ReceivedFile(chunk.stat, chunk.head, chunk.offset, chunk.data)}
            files.update({path: ReceivedFile.whole(data, chunk.stat.mtime) for path, data in chunk.named.items()})
            state = self.store.run_state(experiment_id, chunk.run) or RunState()
            points = 0

            def count(bytes_read: int, added: int) -> None:
                nonlocal points
                points += added

            target = FileTarget(self.store, experiment_id, chunk.run, chunk.path)
            try:
                after = load_file(
                    ReceivedFiles(files), target, cursor, state, count, place=chunk.place, position=chunk.position
                )
            except StaleOffsetError:
                # Another process (a replica given the same chunk) committed first: the client asks again.
                now = self.store.file_cursors(experiment_id).get(chunk.path)
                expected = expected_offset(now, chunk.stat, chunk.head, whole=chunk.whole)
                raise OffsetMismatch(chunk.path, expected, now) from None
            return Receipt(after, points)

    def forget(self, experiment_id: str, paths: Collection[str]) -> None:
        """Files gone from the client's logdir: their points go, as a local logdir's do."""
        self.store.forget_files(experiment_id, paths)

    def _lock(self, experiment_id: str, run: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault((experiment_id, run), threading.Lock())


def expected_offset(cursor: FileCursor | None, stat: FileStat, head: bytes, *, whole: bool) -> int:
    """Where the next bytes of a file must start: where it was read to, or 0 when it is new, truncated or replaced
    (and always 0 for a file read whole). The client decides by this too."""
    if whole or cursor is None or is_restarted(cursor, stat, head):
        return 0
    return cursor.offset
