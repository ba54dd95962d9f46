"""The ingest loop: discover runs, read each file's new records, normalise them and commit them to the store.

Runs load in parallel worker threads sharing one store, which serialises their commits. The heavy parts (framing,
decoding, numpy, the database) release the GIL, so threads use every core without the memory and start-up cost of
worker processes. Files gone from the logdir leave the store in the same pass.

What reads a file (`trainboard.ingest.files`, and the decoding it brings: protobuf, the normaliser) is imported by the
first run with news: a server restarted on a store that is up to date never needs it, and answers sooner.
"""

from __future__ import annotations

import contextlib
import logging
import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from trainboard.ingest.grouped import GroupedWrites
from trainboard.ingest.progress import IngestProgress
from trainboard.names import loggable
from trainboard.normaliser.points import RunState
from trainboard.reader.dialect import is_projector_config
from trainboard.reader.logdir import FileStat, RunSource
from trainboard.reader.tail import FileCursor
from trainboard.store.errors import StaleOffsetError, StoreDamaged
from trainboard.store.writer import StoreWriter

if TYPE_CHECKING:
    from trainboard.ingest.files import Report

logger = logging.getLogger("trainboard.ingest")

# Runs read together and committed in one transaction: at most this many, with at most this many new bytes.
GROUP_RUNS = 64
GROUP_BYTES = 4 * 2**20


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
        self._wake = threading.Event()
        # Each run's place in the walk at the last pass.
        self._positions: dict[str, int] | None = None

    def wake(self) -> None:
        """Start the next pass now (damage was found, or the loader is to stop)."""
        self._wake.set()

    def repair(self) -> None:
        """Rebuild what the store found damaged from the logdir: a database whose structure is broken is built again,
        and files whose points are damaged are forgotten, so that this pass reads them again."""
        damage = self.store.structure_damage()
        if damage is not None and self.store.can_rebuild():
            moved = self.store.rebuild()
            logger.warning(
                "the store was damaged (%s): moved it aside to %s; building it again from the logdir", damage, moved
            )
        paths = self.store.take_damaged_files(self.experiment_id)
        if paths:
            logger.warning(
                "reading %s again from the logdir: the store's copy of their points was damaged",
                ", ".join(map(loggable, paths)),
            )
            self.store.forget_files(self.experiment_id, paths)

    def poll(self) -> None:
        """One pass: read whatever is new in every file of every run and commit it; forget files that are gone."""
        self.repair()
        runs = self.logdir.runs()
        cursors = self.store.file_cursors(self.experiment_id)
        stats = {path: _stat(self.logdir, path) for paths in runs.values() for path in paths}
        late = [path for paths in runs.values() if _arrived_late(paths, cursors) for path in paths if path in cursors]
        positions = {run: position for position, run in enumerate(runs)}
        moved = [
            path for run in self._moved(positions, runs, cursors) for path in runs[run] if is_projector_config(path)
        ]
        self.store.forget_files(self.experiment_id, [path for path in cursors if path not in stats] + late)
        self._positions = positions
        for path in late:
            del cursors[path]
        for path in moved:
            if path in cursors:
                cursors[path] = _read_again_in_place(cursors[path])
        sizes = {path: stat.size for path, stat in stats.items()}
        bytes_done = sum(min(cursors[p].offset, size) for p, size in sizes.items() if p in cursors)
        jobs = [
            RunJob(run, tuple(paths), tuple(cursors.get(path) for path in paths), position)
            for position, (run, paths) in enumerate(runs.items())
            if _has_news(paths, cursors, stats)
        ]
        files_done = len(sizes) - sum(len(job.paths) for job in jobs)
        self.progress.begin_pass(len(sizes), files_done, sum(sizes.values()), bytes_done)
        groups = _groups(jobs, sizes, cursors)
        if self.workers > 1 and len(groups) > 1:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(self.workers, thread_name_prefix="trainboard-ingest")
            for future in [self._pool.submit(self._load_group, group) for group in groups]:
                future.result()
        else:
            for group in groups:
                self._load_group(group)
        if jobs:
            self.store.settle()
        self.progress.end_pass()

    def _moved(self, positions: dict[str, int], runs: dict[str, list[str]], cursors: dict[str, FileCursor]) -> set[str]:
        """Runs whose place in the walk changed since this loader's last pass: projector configs, ordered by the
        place their run had when they were read, are read again in place. On a first pass, every run when new runs
        appeared (while no loader was running, any place may have changed)."""
        if self._positions is None:
            appeared = any(all(path not in cursors for path in paths) for paths in runs.values())
            return set(runs) if appeared else set()
        return {run for run, position in positions.items() if self._positions.get(run, position) != position}

    def _load_group(self, jobs: list[RunJob]) -> None:
        if len(jobs) == 1:
            _load_run(self.logdir, self.store, self.experiment_id, jobs[0], self.progress)
        else:
            _load_together(self.logdir, self.store, self.experiment_id, jobs, self.progress)

    def run_forever(self, reload_interval: float, stop: threading.Event, *, repairs: bool = False) -> None:
        """Poll until `stop` is set (then `wake`), and at once when woken; a reload interval of 0 polls once, or
        with `repairs` only again when woken (damage found in the store, for `repair`)."""
        try:
            while not stop.is_set():
                self._wake.clear()
                try:
                    self.poll()
                except StoreDamaged as error:
                    logger.error("ingest pass failed: %s", error)
                except Exception:
                    logger.exception("ingest pass failed; retrying in %s s", reload_interval)
                if reload_interval <= 0 and not repairs:
                    return
                self._wake.wait(reload_interval if reload_interval > 0 else None)
        finally:
            self.close()

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)
            self._pool = None


def default_workers() -> int:
    return max(1, min(8, os.cpu_count() or 1))


def _load_run(logdir: RunSource, store: StoreWriter, experiment_id: str, job: RunJob, progress: IngestProgress) -> None:
    from trainboard.ingest.files import FileTarget, config_place, load_file  # see the module's docstring

    state = store.run_state(experiment_id, job.run) or RunState()
    for path, cursor in zip(job.paths, job.cursors, strict=True):
        target = FileTarget(store, experiment_id, job.run, path)
        try:
            load_file(
                logdir,
                target,
                cursor,
                state,
                _reporter(progress),
                place=config_place(path, job.paths),
                position=job.position,
            )
        except StaleOffsetError as error:
            logger.warning("skipping %s for now: another process wrote it meanwhile (%s)", loggable(path), error)
            state = store.run_state(experiment_id, job.run) or RunState()
        except StoreDamaged as error:
            logger.error("skipping %s for now: %s", loggable(path), error)
            with contextlib.suppress(StoreDamaged):
                state = store.run_state(experiment_id, job.run) or RunState()
        except Exception:
            # The ingest boundary: one bad file must not stop the others.
            logger.exception("skipping %s for now: ingest failed", loggable(path))
            state = store.run_state(experiment_id, job.run) or RunState()
        progress.file_done()


def _load_together(
    logdir: RunSource, store: StoreWriter, experiment_id: str, jobs: list[RunJob], progress: IngestProgress
) -> None:
    """Small runs: every file of each read, then all committed in one transaction. If anything fails, nothing was
    committed: each run is loaded again on its own, where a bad file is skipped alone."""
    from trainboard.ingest.files import FileTarget, config_place, load_file  # see the module's docstring

    grouped = GroupedWrites()
    try:
        for job in jobs:
            state = store.run_state(experiment_id, job.run) or RunState()
            for path, cursor in zip(job.paths, job.cursors, strict=True):
                target = FileTarget(grouped, experiment_id, job.run, path)
                place = config_place(path, job.paths)
                load_file(logdir, target, cursor, state, grouped.report, place=place, position=job.position)
        store.write_batches(experiment_id, grouped.writes)
    except Exception as error:
        logger.info("loading %d runs on their own after their common commit failed: %s", len(jobs), error)
        for job in jobs:
            _load_run(logdir, store, experiment_id, job, progress)
        return
    for bytes_read, points in grouped.reports:
        progress.add(bytes_read=bytes_read, points=points)
    for job in jobs:
        for _ in job.paths:
            progress.file_done()


def _groups(jobs: list[RunJob], sizes: dict[str, int], cursors: dict[str, FileCursor]) -> list[list[RunJob]]:
    """Consecutive runs with little new to read, together up to `GROUP_BYTES` or `GROUP_RUNS`; any other alone."""
    groups: list[list[RunJob]] = []
    group_bytes = GROUP_BYTES + 1
    for job in jobs:
        new = sum(max(0, sizes[path] - (cursors[path].offset if path in cursors else 0)) for path in job.paths)
        if new > GROUP_BYTES or group_bytes + new > GROUP_BYTES or len(groups[-1]) >= GROUP_RUNS:
            groups.append([job])
            group_bytes = new
        else:
            groups[-1].append(job)
            group_bytes += new
    return groups


def _reporter(progress: IngestProgress) -> Report:
    return lambda bytes_read, points: progress.add(bytes_read=bytes_read, points=points)


def _read_again_in_place(cursor: FileCursor) -> FileCursor:
    """A cursor that makes a projector config look changed, so that it is read again and replaces its point in
    place (its series kept: a pin still sees it) while the stored offset is still the one the batch expects."""
    return replace(cursor, mtime=-1.0)


def _has_news(paths: list[str], cursors: dict[str, FileCursor], stats: dict[str, FileStat]) -> bool:
    """Whether any file of a run may hold unread records: one never read, one not read to its end (a run stopped
    between two reads of a long file), or one of another size or modification time."""
    return any(
        path not in cursors
        or cursors[path].offset != stats[path].size
        or (cursors[path].size, cursors[path].mtime) != (stats[path].size, stats[path].mtime)
        for path in paths
    )


def _arrived_late(paths: list[str], cursors: dict[str, FileCursor]) -> bool:
    """Whether a log file never read sorts before one read already: TensorBoard reads a run's files in name order
    (restarts purge by that order, tags come in that order), so the run is read again from its first file, as a cold
    load reads it. (Projector configs come after the log files and have a place of their own.)"""
    read = [path in cursors for path in paths if not is_projector_config(path)]
    return any(not done and any(read[index + 1 :]) for index, done in enumerate(read))


def _stat(logdir: RunSource, path: str) -> FileStat:
    try:
        return logdir.stat(path)
    except OSError:
        return FileStat(size=0, mtime=0.0)
