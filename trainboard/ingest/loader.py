"""The ingest loop: discover runs, read each file's new records, normalise them and commit them to the store.

Runs load in parallel worker processes, each writing its own run through its own store connection; the store
serialises their commits. Progress flows back to the serving process through a queue.
"""

from __future__ import annotations

import logging
import multiprocessing
import os
import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from trainboard.ingest.progress import IngestProgress
from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.reader.logdir import LogDir
from trainboard.reader.tail import FileCursor, read_new
from trainboard.store.protocol import Store

logger = logging.getLogger("trainboard.ingest")
# The last message of each job a worker runs.
JOB_DONE = "done"

StoreOpener = Callable[[], Store]


@dataclass(frozen=True, slots=True)
class RunJob:
    run: str
    paths: tuple[str, ...]


class Loader:
    """Loads a logdir into a store, in `workers` processes (0: in this process)."""

    def __init__(
        self,
        logdir: LogDir,
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
        self._pool: ProcessPoolExecutor | None = None
        self._messages: Any = None

    def poll(self) -> None:
        """One pass: read whatever is new in every file of every run and commit it."""
        runs = self.logdir.runs()
        cursors = self._store.file_cursors()
        sizes = {path: _size(self.logdir, path) for paths in runs.values() for path in paths}
        bytes_done = sum(min(cursors[p].offset, size) for p, size in sizes.items() if p in cursors)
        jobs = [RunJob(run, tuple(paths)) for run, paths in runs.items() if _has_news(paths, cursors, sizes)]
        files_done = len(sizes) - sum(len(job.paths) for job in jobs)
        self.progress.begin_pass(len(sizes), files_done, sum(sizes.values()), bytes_done)
        if self.workers > 0 and len(jobs) > 1:
            self._poll_in_workers(jobs)
        else:
            for job in jobs:
                _load_run(self.logdir, self._store, job, self._report)
        self.progress.end_pass()

    def _poll_in_workers(self, jobs: list[RunJob]) -> None:
        pool = self._worker_pool()
        futures: list[Future[None]] = [pool.submit(_load_run_in_worker, job) for job in jobs]
        # A job's messages may still be in flight when its future completes: wait for each job's last message,
        # unless a worker process died (its futures fail and its last message never comes).
        finished = 0
        while finished < len(futures):
            try:
                kind, bytes_read, points = self._messages.get(timeout=0.05)
            except queue.Empty:
                if all(future.done() for future in futures) and any(future.exception() for future in futures):
                    break
                continue
            if kind == JOB_DONE:
                finished += 1
            else:
                self._report(kind, bytes_read, points)
        for future in futures:
            future.result()

    def _worker_pool(self) -> ProcessPoolExecutor:
        if self._pool is None:
            # "spawn": the serving process has threads, which fork would copy in an unknown state.
            context = multiprocessing.get_context("spawn")
            self._messages = context.Queue()
            self._pool = ProcessPoolExecutor(
                self.workers,
                mp_context=context,
                initializer=_start_worker,
                initargs=(self.logdir.url, self.logdir.storage_options, self.open_store, self._messages),
            )
        return self._pool

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


def default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


# The worker side. Each worker process keeps its logdir and store connection for its whole life.
_worker: dict[str, Any] = {}


def _start_worker(url: str, storage_options: dict[str, Any], open_store: StoreOpener, messages: Any) -> None:
    _worker.update(logdir=LogDir(url, storage_options), store=open_store(), messages=messages)


def _load_run_in_worker(job: RunJob) -> None:
    messages = _worker["messages"]
    try:
        _load_run(_worker["logdir"], _worker["store"], job, lambda *message: messages.put(message))
    finally:
        messages.put((JOB_DONE, 0, 0))


def _load_run(logdir: LogDir, store: Store, job: RunJob, report: Callable[[str, int, int], None]) -> None:
    cursors = store.file_cursors()
    state = store.run_states().get(job.run) or RunState()
    for path in job.paths:
        try:
            _load_file(logdir, store, job.run, path, cursors.get(path), state, report)
        except Exception:
            # The ingest boundary: one bad file must not stop the others.
            logger.exception("skipping %s for now: ingest failed", path)
            state = store.run_states().get(job.run) or RunState()
        report("file", 0, 0)


def _load_file(
    logdir: LogDir,
    store: Store,
    run: str,
    path: str,
    cursor: FileCursor | None,
    state: RunState,
    report: Callable[[str, int, int], None],
) -> None:
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


def _has_news(paths: list[str], cursors: dict[str, FileCursor], sizes: dict[str, int]) -> bool:
    """Whether any file of a run may hold unread records (a changed size, or one never read)."""
    return any(path not in cursors or cursors[path].size != sizes[path] for path in paths)


def _size(logdir: LogDir, path: str) -> int:
    try:
        return logdir.size(path)
    except OSError:
        return 0
