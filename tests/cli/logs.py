"""Small event files for the CLI tests, written with trainboard's own record writer."""

from __future__ import annotations

from pathlib import Path

from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record


def write_run(directory: Path, steps: int = 1) -> None:
    """One event file in `directory` with a `loss` scalar at steps 0..steps-1."""
    directory.mkdir(parents=True, exist_ok=True)
    with (directory / "events.out.tfevents.1.host").open("wb") as stream:
        for step in range(steps):
            event = Event(wall_time=1.0 + step, step=step)
            event.summary.value.add(tag="loss", simple_value=0.5)
            write_record(stream, event.SerializeToString())
