"""Loading the compiled read kernels while the server starts, when a cold start has everything to read."""

from __future__ import annotations

import io

from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import Summary
from trainboard.reader.records import read_frames, write_record

SOURCE = "<kernel warm-up>"


def load_kernels() -> None:
    """Read and normalise a file of two records (a version and one scalar event) as any log is: numba loads every
    kernel from its cache on first use, about half a second that holds the GIL, and this pays it now rather than in
    the first run's read."""
    stream = io.BytesIO()
    write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
    scalar = Summary(value=[Summary.Value(tag="warm-up", simple_value=1.0)])
    write_record(stream, Event(wall_time=1.0, step=1, summary=scalar).SerializeToString())
    frames = read_frames(stream, 0, path=SOURCE, limit=len(stream.getvalue()))
    normalise_frames(frames, RunState(), path=SOURCE)
