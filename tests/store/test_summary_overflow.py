"""A series whose float64 values sum past the largest double is stored, its mean infinite as numpy makes it, on every
backend: PostgreSQL's own addition raises an overflow error there, which stopped the ingest of the file."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from tensorboard.compat.proto import event_pb2, summary_pb2, types_pb2

from tests.store.conftest import StoreOpener
from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.reader.records import write_record
from trainboard.store.run_filter import Term
from trainboard.store.runs_table import TableQuery

HUGE = 1e308
TERMS = tuple(Term(function, "big") for function in ("count", "mean", "max"))


def write_file(run: Path, name: str, points: list[tuple[int, float]], *, restart: bool = False) -> None:
    """Float64 scalars (as TensorFlow 2 writes a double) in a new event file; with `restart`, a SessionLog START at
    the first step first (TensorBoard's purge of the points from there on)."""
    run.mkdir(parents=True, exist_ok=True)
    with (run / f"events.out.tfevents.{name}.host").open("wb") as stream:
        write_record(stream, event_pb2.Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
        if restart:
            start = event_pb2.SessionLog(status=event_pb2.SessionLog.START)
            write_record(
                stream, event_pb2.Event(wall_time=2.0, step=points[0][0], session_log=start).SerializeToString()
            )
        for step, value in points:
            summary = summary_pb2.Summary()
            entry = summary.value.add(tag="big")
            entry.metadata.plugin_data.plugin_name = "scalars"
            entry.tensor.dtype = types_pb2.DT_DOUBLE
            entry.tensor.double_val.append(value)
            write_record(stream, event_pb2.Event(wall_time=3.0 + step, step=step, summary=summary).SerializeToString())


@pytest.mark.filterwarnings("ignore:overflow encountered")
def test_sums_past_the_largest_double_are_infinite_not_an_error(open_test_store: StoreOpener, tmp_path: Path) -> None:
    run = tmp_path / "logs" / "run"
    store = open_test_store()
    experiment_id = store.create_experiment("overflow").id
    loader = Loader(LogDir(str(tmp_path / "logs")), store, experiment_id, workers=0)
    # Each file is a write of its own: the second adds its sum to the series' stored one.
    for name, points in (("1", [(0, HUGE)]), ("2", [(1, HUGE)]), ("3", [(2, 5.0)])):
        write_file(run, name, points, restart=name == "1")
        loader.poll()
    # A restart at step 2 (a START after the first) purges it: the series is summed again from its chunks.
    write_file(run, "4", [(2, 7.0)], restart=True)
    loader.poll()
    (series,) = store.series(experiment_id)
    values = store.scalars(experiment_id, series.id).values
    assert values.tolist() == [HUGE, HUGE, 7.0]
    table = store.runs_table(experiment_id, TableQuery(columns=TERMS))
    (row,) = [dict(zip(table.columns, found, strict=True)) for found in table.rows]
    assert (row["count(big)"], row["max(big)"]) == (3, HUGE)
    assert row["mean(big)"] == np.mean(values) == math.inf
