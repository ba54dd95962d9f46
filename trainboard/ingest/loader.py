"""The ingest loop: discover runs, read each file's new records, normalise them and commit them to the store.

Runs load in parallel worker threads, each with its own store connection; the store serialises their commits. The
heavy parts (framing, decoding, numpy, SQLite) release the GIL, so threads use every core without the memory and
start-up cost of worker processes.
"""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from trainboard.ingest.progress import IngestProgress
from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.normaliser.structure_graph import structure_graph_batch
from trainboard.reader.dialect import is_structure_graph_file
from trainboard.reader.logdir import RunSource
from trainboard.reader.structure_graph import read_structure_graph
from trainboard.reader.tail import FileCursor, read_new
from trainboard.store.protocol import Store

logger = logging.getLogger("trainboard.ingest")

StoreOpener = Callable[[], Store]


@dataclass(frozen=True, slots=True)
class RunJob:
    run: str
    paths: tuple[str, ...]
    # How far each path was read before this pass (None: never).
    cursors: tuple[FileCursor | None, ...]


class Loader:
    """Loads a logdir into a store, `workers` runs at a time (0 or 1: in the calling thread)."""

    def __init__(
        self,
        logdir: RunSource,
        open_store: StoreOpener,
        progress: IngestProgress | None = None,
        *,
        workers: int = 0,
    ) -> None:
        self.logdir = logdir
        self.open_store = open_store
        self.progress = progress or IngestProgress()
        self.workers = workers
        self._store = open_store()
        self._pool: ThreadPoolExecutor | None = None
        self._worker_stores = threading.local()
        self._opened: list[Store] = []
        self._opened_lock = threading.Lock()

    def poll(self) -> None:
        """One pass: read whatever is new in every file of every run and commit it."""
        runs = self.logdir.runs()
        cursors = self._store.file_cursors()
        sizes = {path: _size(self.logdir, path) for paths in runs.values() for path in paths}
        bytes_done = sum(min(cursors[p].offset, size) for p, size in sizes.items() if p in cursors)
        jobs = [
            RunJob(run, tuple(paths), tuple(cursors.get(path) for path in paths))
            for run, paths in runs.items()
            if _has_news(paths, cursors, sizes)
        ]
        files_done = len(sizes) - sum(len(job.paths) for job in jobs)
        self.progress.begin_pass(len(sizes), files_done, sum(sizes.values()), bytes_done)
        if self.workers > 1 and len(jobs) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="trainboard-ingest")
            for future in [self._pool.submit(self._load_in_worker, job) for job in jobs]:
                future.result()
        else:
            for job in jobs:
                _load_run(self.logdir, self._store, job, self._report)
        if jobs:
            self._store.settle()
        self.progress.end_pass()

    def _load_in_worker(self, job: RunJob) -> None:
        store: Store | None = getattr(self._worker_stores, "store", None)
        if store is None:
            store = self._worker_stores.store = self.open_store()
            with self._opened_lock:
                self._opened.append(store)
        _load_run(self.logdir, store, job, self._report)

    def _report(self, kind: str, bytes_read: int, points: int) -> None:
        if kind == "file":
            self.progress.file_done()
        else:
            self.progress.add(bytes_read=bytes_read, points=points)

    def run_forever(self, reload_interval: float, stop: threading.Event) -> None:
        """Poll until `stop` is set; a reload interval of 0 polls once."""
        try:
            while not stop.is_set():
                try:
                    self.poll()
                except Exception:
                    logger.exception("ingest pass failed; retrying in %s s", reload_interval)
                if reload_interval <= 0:
                    return
                stop.wait(reload_interval)
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None
        with self._opened_lock:
            for store in self._opened:
                store.close()
            self._opened.clear()


def default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def _load_run(logdir: RunSource, store: Store, job: RunJob, report: Callable[[str, int, int], None]) -> None:
    state = store.run_state(job.run) or RunState()
    for path, cursor in zip(job.paths, job.cursors, strict=True):
        try:
            _load_file(logdir, store, job.run, path, cursor, state, report)
        except Exception:
            # The ingest boundary: one bad file must not stop the others.
            logger.exception("skipping %s for now: ingest failed", path)
            state = store.run_state(job.run) or RunState()
        report("file", 0, 0)


def _load_file(
    logdir: RunSource,
    store: Store,
    run: str,
    path: str,
    cursor: FileCursor | None,
    state: RunState,
    report: Callable[[str, int, int], None],
) -> None:
    if is_structure_graph_file(path):
        _load_structure_graph(logdir, store, run, path, cursor, state, report)
        return
    while True:
        tail = read_new(logdir, cursor, path)
        if tail.frames is None or (not len(tail.frames) and not tail.restarted and tail.cursor == cursor):
            return
        batch = normalise_frames(tail.frames, state, path=path)
        store.write_batch(run, tail.cursor, state, batch, restarted=tail.restarted)
        previous_offset = 0 if cursor is None or tail.restarted else cursor.offset
        report("batch", tail.cursor.offset - previous_offset, batch.point_count())
        cursor = tail.cursor
        if not tail.more:
            return


def _load_structure_graph(
    logdir: RunSource,
    store: Store,
    run: str,
    path: str,
    cursor: FileCursor | None,
    state: RunState,
    report: Callable[[str, int, int], None],
) -> None:
    """A changed structure graph file replaces what was read from it before; other JSON is not kept (nor its run)."""
    models, new_cursor = read_structure_graph(logdir, cursor, path)
    if models is None:
        return
    batch = structure_graph_batch(models)
    store.write_batch(run, new_cursor, state, batch, restarted=True)
    report("batch", new_cursor.size, batch.point_count())


def _has_news(paths: list[str], cursors: dict[str, FileCursor], sizes: dict[str, int]) -> bool:
    """Whether any file of a run may hold unread records (a changed size, or one never read)."""
    return any(path not in cursors or cursors[path].size != sizes[path] for path in paths)


def _size(logdir: RunSource, path: str) -> int:
    try:
        return logdir.size(path)
    except OSError:
        return 0
