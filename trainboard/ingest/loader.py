"""The ingest loop: discover runs, read each file's new records, normalise them and commit them to the store.

Runs load in parallel worker threads sharing one store, which serialises their commits. The heavy parts (framing,
decoding, numpy, the database) release the GIL, so threads use every core without the memory and start-up cost of
worker processes. Files gone from the logdir leave the store in the same pass.
"""

from __future__ import annotations

import logging
import os
import posixpath
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

from trainboard.ingest.progress import IngestProgress
from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.normaliser.projector import AT_ROOT, IN_ASSETS, IN_RUN, projector_batch
from trainboard.normaliser.structure_graph import structure_graph_batch
from trainboard.reader.dialect import is_projector_config, is_structure_graph_file
from trainboard.reader.logdir import FileStat, RunSource
from trainboard.reader.projector import read_projector_files
from trainboard.reader.structure_graph import read_structure_graph
from trainboard.reader.tail import FileCursor, read_new
from trainboard.store.backend import StaleOffsetError
from trainboard.store.writer import StoreWriter

logger = logging.getLogger("trainboard.ingest")


@dataclass(frozen=True, slots=True)
class RunJob:
    run: str
    paths: tuple[str, ...]
    # How far each path was read before this pass (None: never).
    cursors: tuple[FileCursor | None, ...]
    # Where the run comes in the logdir's walk.
    position: int = 0


class Loader:
    """Loads a logdir into one experiment of a store, `workers` runs at a time (0 or 1: in the calling thread)."""

    def __init__(
        self,
        logdir: RunSource,
        store: StoreWriter,
        experiment_id: str,
        progress: IngestProgress | None = None,
        *,
        workers: int = 0,
    ) -> None:
        self.logdir = logdir
        self.store = store
        self.experiment_id = experiment_id
        self.progress = progress or IngestProgress()
        self.workers = workers
        self._pool: ThreadPoolExecutor | None = None

    def poll(self) -> None:
        """One pass: read whatever is new in every file of every run and commit it; forget files that are gone."""
        runs = self.logdir.runs()
        cursors = self.store.file_cursors(self.experiment_id)
        stats = {path: _stat(self.logdir, path) for paths in runs.values() for path in paths}
        self.store.forget_files(self.experiment_id, [path for path in cursors if path not in stats])
        sizes = {path: stat.size for path, stat in stats.items()}
        bytes_done = sum(min(cursors[p].offset, size) for p, size in sizes.items() if p in cursors)
        jobs = [
            RunJob(run, tuple(paths), tuple(cursors.get(path) for path in paths), position)
            for position, (run, paths) in enumerate(runs.items())
            if _has_news(paths, cursors, stats)
        ]
        files_done = len(sizes) - sum(len(job.paths) for job in jobs)
        self.progress.begin_pass(len(sizes), files_done, sum(sizes.values()), bytes_done)
        if self.workers > 1 and len(jobs) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="trainboard-ingest")
            for future in [self._pool.submit(self._load_run, job) for job in jobs]:
                future.result()
        else:
            for job in jobs:
                self._load_run(job)
        if jobs:
            self.store.settle()
        self.progress.end_pass()

    def _load_run(self, job: RunJob) -> None:
        _load_run(self.logdir, self.store, self.experiment_id, job, self._report)

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


def _load_run(
    logdir: RunSource, store: StoreWriter, experiment_id: str, job: RunJob, report: Callable[[str, int, int], None]
) -> None:
    state = store.run_state(experiment_id, job.run) or RunState()
    for path, cursor in zip(job.paths, job.cursors, strict=True):
        target = FileTarget(store, experiment_id, job.run, path)
        try:
            if is_structure_graph_file(path):
                _load_structure_graph(logdir, target, cursor, state, report)
            elif is_projector_config(path):
                _load_projector_files(logdir, target, cursor, state, report, _config_place(path, job), job.position)
            else:
                _load_file(logdir, target, cursor, state, report)
        except StaleOffsetError as error:
            logger.warning("skipping %s for now: another process wrote it meanwhile (%s)", path, error)
            state = store.run_state(experiment_id, job.run) or RunState()
        except Exception:
            # The ingest boundary: one bad file must not stop the others.
            logger.exception("skipping %s for now: ingest failed", path)
            state = store.run_state(experiment_id, job.run) or RunState()
        report("file", 0, 0)


@dataclass(frozen=True, slots=True)
class FileTarget:
    """Where one file's records go."""

    store: StoreWriter
    experiment_id: str
    run: str
    path: str


def _load_file(
    logdir: RunSource,
    target: FileTarget,
    cursor: FileCursor | None,
    state: RunState,
    report: Callable[[str, int, int], None],
) -> None:
    while True:
        tail = read_new(logdir, cursor, target.path)
        if tail.frames is None or (not len(tail.frames) and not tail.restarted and tail.cursor == cursor):
            return
        batch = normalise_frames(tail.frames, state, path=target.path)
        target.store.write_batch(
            target.experiment_id, target.run, tail.cursor, state, batch, restarted=tail.restarted, previous=cursor
        )
        previous_offset = 0 if cursor is None or tail.restarted else cursor.offset
        report("batch", tail.cursor.offset - previous_offset, batch.point_count())
        cursor = tail.cursor
        if not tail.more:
            return


def _load_structure_graph(
    logdir: RunSource,
    target: FileTarget,
    cursor: FileCursor | None,
    state: RunState,
    report: Callable[[str, int, int], None],
) -> None:
    """A changed structure graph file replaces what was read from it before; other JSON is not kept (nor its run)."""
    models, new_cursor = read_structure_graph(logdir, cursor, target.path)
    if models is None:
        return
    batch = structure_graph_batch(models)
    target.store.write_batch(
        target.experiment_id, target.run, new_cursor, state, batch, restarted=True, previous=cursor
    )
    report("batch", new_cursor.size, batch.point_count())


def _load_projector_files(
    logdir: RunSource,
    target: FileTarget,
    cursor: FileCursor | None,
    state: RunState,
    report: Callable[[str, int, int], None],
    place: int,
    position: int,
) -> None:
    """A changed projector config replaces what was read with it before: itself and the files it names."""
    files, new_cursor = read_projector_files(logdir, cursor, target.path)
    if files is None:
        return
    batch = projector_batch(files, place, position)
    target.store.write_batch(
        target.experiment_id, target.run, new_cursor, state, batch, restarted=True, previous=cursor
    )
    report("batch", new_cursor.size, batch.point_count())


def _config_place(path: str, job: RunJob) -> int:
    """Whether a run's projector config lies beside its event files, in its plugin assets or at a root without any."""
    others = [other for other in job.paths if not is_projector_config(other)]
    if not others:
        return AT_ROOT
    directory = posixpath.dirname(path)
    return IN_RUN if any(posixpath.dirname(other) == directory for other in others) else IN_ASSETS


def _has_news(paths: list[str], cursors: dict[str, FileCursor], stats: dict[str, FileStat]) -> bool:
    """Whether any file of a run may hold unread records: one never read, one not read to its end (a run stopped
    between two reads of a long file), or one of another size or modification time."""
    return any(
        path not in cursors
        or cursors[path].offset != stats[path].size
        or (cursors[path].size, cursors[path].mtime) != (stats[path].size, stats[path].mtime)
        for path in paths
    )


def _stat(logdir: RunSource, path: str) -> FileStat:
    try:
        return logdir.stat(path)
    except OSError:
        return FileStat(size=0, mtime=0.0)
