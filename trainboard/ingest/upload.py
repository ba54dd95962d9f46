"""The server's side of `trainboard upload`: commit the bytes of one file that a client sent, exactly once.

A client asks how far each file is committed (`cursors`) and sends a file's bytes from there (`receive`), in the
messages of `ingest.upload_protocol`. The bytes are read by the same code as a logdir's (`ingest.files` over
`reader.received`), and a file's points commit with its new offset in one transaction, only if the stored offset is
still the one the bytes start at: a chunk sent twice (a retry after a lost answer, a client killed and run again)
commits once, and a stale one is refused with where the file stands (`OffsetMismatch`). A file belongs to its
run: its path lies in the run's directory (`upload_protocol.in_run`), and a chunk naming another run's file is refused
(`OtherRunsFile`). A truncated or replaced
file is told by the same rule as on a local disk (`expected_offset`, by `is_restarted`): the client sends it from 0
and what was read from it before is replaced.
"""

from __future__ import annotations

import threading
from collections.abc import Collection

from trainboard.ingest.files import FileTarget, load_file
from trainboard.ingest.upload_protocol import Chunk, OffsetMismatch, OtherRunsFile, Receipt, expected_offset
from trainboard.normaliser.points import RunState
from trainboard.reader.received import ReceivedFile, ReceivedFiles
from trainboard.reader.tail import FileCursor
from trainboard.store.errors import StaleOffsetError
from trainboard.store.values import ExperimentRow
from trainboard.store.writer import StoreWriter

# An uploaded chunk is read and committed this much at a time: a few uploads at once hold a few windows (a record
# larger than this whole), not a local ingest's 64 MiB each.
WINDOW = 8 * 1024 * 1024


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
            # A path names one file of the experiment: the chunk of another run must not replace its points.
            owner = self.store.file_run(experiment_id, chunk.path)
            if owner is not None and owner != chunk.run:
                raise OtherRunsFile(chunk.path, chunk.run, owner)
            cursor = self.store.file_cursor(experiment_id, chunk.path)
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
                    ReceivedFiles(files),
                    target,
                    cursor,
                    state,
                    count,
                    place=chunk.place,
                    position=chunk.position,
                    window=WINDOW,
                )
            except StaleOffsetError:
                # Another process (a replica given the same chunk) committed first: the client asks again.
                now = self.store.file_cursor(experiment_id, chunk.path)
                expected = expected_offset(now, chunk.stat, chunk.head, whole=chunk.whole)
                raise OffsetMismatch(chunk.path, expected, now) from None
            return Receipt(after, points)

    def forget(self, experiment_id: str, paths: Collection[str]) -> None:
        """Files gone from the client's logdir: their points go, as a local logdir's do."""
        self.store.forget_files(experiment_id, paths)

    def _lock(self, experiment_id: str, run: str) -> threading.Lock:
        with self._locks_lock:
            return self._locks.setdefault((experiment_id, run), threading.Lock())
