"""The ingest loop: discover runs, read each file's new records, normalise them and commit them to the store."""

from __future__ import annotations

import logging
import threading

from trainboard.ingest.progress import IngestProgress
from trainboard.normaliser.normalise import normalise
from trainboard.normaliser.points import RunState
from trainboard.reader.events import parse_event
from trainboard.reader.logdir import LogDir
from trainboard.reader.tail import FileCursor, read_new
from trainboard.store.protocol import Store

logger = logging.getLogger("trainboard.ingest")


class Loader:
    def __init__(self, logdir: LogDir, store: Store, progress: IngestProgress | None = None) -> None:
        self.logdir = logdir
        self.store = store
        self.progress = progress or IngestProgress()

    def poll(self) -> None:
        """One pass: read whatever is new in every file of every run and commit it."""
        runs = self.logdir.runs()
        cursors = self.store.file_cursors()
        states = self.store.run_states()
        sizes = {path: self._size(path) for paths in runs.values() for path in paths}
        bytes_done = sum(min(cursors[p].offset, size) for p, size in sizes.items() if p in cursors)
        self.progress.begin_pass(len(sizes), sum(sizes.values()), bytes_done)
        for run, paths in runs.items():
            state = states.get(run) or RunState()
            for path in paths:
                try:
                    self._load_file(run, path, cursors.get(path), state)
                except Exception:
                    # The ingest boundary: one bad file must not stop the others.
                    logger.exception("skipping %s for now: ingest failed", path)
                    state = self.store.run_states().get(run) or RunState()
                self.progress.file_done()
        self.progress.end_pass()

    def _load_file(self, run: str, path: str, cursor: FileCursor | None, state: RunState) -> None:
        while True:
            tail = read_new(self.logdir, cursor, path)
            if not tail.records and not tail.restarted and tail.cursor == cursor:
                return
            events = [
                event
                for record in tail.records
                if (event := parse_event(record.payload, path=path, offset=record.offset)) is not None
            ]
            batch = normalise(events, state)
            self.store.write_batch(run, tail.cursor, state, batch, restarted=tail.restarted)
            previous_offset = 0 if cursor is None or tail.restarted else cursor.offset
            self.progress.add(bytes_read=tail.cursor.offset - previous_offset, points=len(batch.operations))
            cursor = tail.cursor
            if not tail.more:
                return

    def _size(self, path: str) -> int:
        try:
            return self.logdir.size(path)
        except OSError:
            return 0

    def run_forever(self, reload_interval: float, stop: threading.Event) -> None:
        """Poll until `stop` is set; a reload interval of 0 polls once."""
        while not stop.is_set():
            try:
                self.poll()
            except Exception:
                logger.exception("ingest pass failed; retrying in %s s", reload_interval)
            if reload_interval <= 0:
                return
            stop.wait(reload_interval)
