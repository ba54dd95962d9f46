"""Committing what is new in one file of a run, by its kind: event files record by record from the last committed
offset, structure graphs and projector configs (with the files they name) whole whenever they change. Both the
loader (a logdir) and uploads (bytes a client sent) commit through here, so a file means the same wherever it comes
from."""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.normaliser.projector import AT_ROOT, IN_ASSETS, IN_RUN, projector_batch
from trainboard.normaliser.structure_graph import structure_graph_batch
from trainboard.reader.dialect import is_projector_config, is_structure_graph_file
from trainboard.reader.logdir import RunSource
from trainboard.reader.projector import read_projector_files
from trainboard.reader.records import READ_LIMIT
from trainboard.reader.structure_graph import read_structure_graph
from trainboard.reader.tail import FileCursor, read_new
from trainboard.store.writer import FileWrite

# Told after each commit: the bytes of the file it covered and the points it added.
Report = Callable[[int, int], None]


class BatchSink(Protocol):
    """What takes a file's records: a store (`StoreWriter.write_batch`), or `GroupedWrites` on their way to one."""

    def write_batch(self, experiment_id: str, write: FileWrite) -> None: ...


@dataclass(frozen=True, slots=True)
class FileTarget:
    """Where one file's records go."""

    store: BatchSink
    experiment_id: str
    run: str
    path: str


def load_file(
    source: RunSource,
    target: FileTarget,
    cursor: FileCursor | None,
    state: RunState,
    report: Report,
    *,
    place: int,
    position: int,
    window: int = READ_LIMIT,
) -> FileCursor | None:
    """Commit what is new in the file by its kind; its cursor after (None: nothing was ever read from it).
    `place` and `position` matter to projector configs only (`config_place`, the run's place in the walk); an event
    file is read and committed `window` bytes at a time (a larger record whole)."""
    if is_structure_graph_file(target.path):
        return load_structure_graph(source, target, cursor, state, report)
    if is_projector_config(target.path):
        return load_projector_files(source, target, cursor, state, report, place, position)
    return load_events(source, target, cursor, state, report, window)


def load_events(
    source: RunSource,
    target: FileTarget,
    cursor: FileCursor | None,
    state: RunState,
    report: Report,
    window: int = READ_LIMIT,
) -> FileCursor | None:
    while True:
        tail = read_new(source, cursor, target.path, limit=window)
        if tail.frames is None or (not len(tail.frames) and not tail.restarted and tail.cursor == cursor):
            return cursor
        batch = normalise_frames(tail.frames, state, path=target.path)
        write = FileWrite(target.run, tail.cursor, state, batch, restarted=tail.restarted, previous=cursor)
        target.store.write_batch(target.experiment_id, write)
        previous_offset = 0 if cursor is None or tail.restarted else cursor.offset
        report(tail.cursor.offset - previous_offset, batch.point_count())
        cursor = tail.cursor
        if not tail.more:
            return cursor
        # The window's bytes (and the views of them the batch holds) go before the next window is read.
        del tail, batch, write


def load_structure_graph(
    source: RunSource, target: FileTarget, cursor: FileCursor | None, state: RunState, report: Report
) -> FileCursor | None:
    """A changed structure graph file replaces what was read from it before; other JSON is not kept (nor its run)."""
    models, new_cursor = read_structure_graph(source, cursor, target.path)
    if models is None:
        return new_cursor
    batch = structure_graph_batch(models)
    write = FileWrite(target.run, new_cursor, state, batch, restarted=True, previous=cursor)
    target.store.write_batch(target.experiment_id, write)
    report(new_cursor.size, batch.point_count())
    return new_cursor


def load_projector_files(
    source: RunSource,
    target: FileTarget,
    cursor: FileCursor | None,
    state: RunState,
    report: Report,
    place: int,
    position: int,
) -> FileCursor | None:
    """A changed projector config replaces what was read with it before: itself and the files it names."""
    files, new_cursor = read_projector_files(source, cursor, target.path)
    if files is None:
        return new_cursor
    batch = projector_batch(files, place, position)
    write = FileWrite(target.run, new_cursor, state, batch, restarted=True, previous=cursor)
    target.store.write_batch(target.experiment_id, write)
    report(new_cursor.size, batch.point_count())
    return new_cursor


def config_place(path: str, run_paths: Sequence[str]) -> int:
    """Whether a run's projector config lies beside its event files, in its plugin assets or at a root without any."""
    others = [other for other in run_paths if not is_projector_config(other)]
    if not others:
        return AT_ROOT
    directory = posixpath.dirname(path)
    return IN_RUN if any(posixpath.dirname(other) == directory for other in others) else IN_ASSETS
