"""Ingest progress on the terminal until the first pass is done, then one summary line: a bar of bytes read (with
files, points and their rate) redrawn in place on a terminal, or a plain line every few seconds in a log."""

from __future__ import annotations

import os
import threading
import time
from typing import TextIO

from trainboard.ingest.progress import IngestProgress

REFRESH_SECONDS = 0.2
LOG_LINE_SECONDS = 5.0


def follow(progress: IngestProgress, stream: TextIO, stop: threading.Event, label: str = "ingest") -> None:
    """Show `progress` on `stream` until its first pass is done or `stop` is set."""
    if stream.isatty():
        _bar(progress, stream, stop, label)
    else:
        last_line = time.monotonic()
        while not (stop.wait(REFRESH_SECONDS) or progress.done):
            if time.monotonic() - last_line >= LOG_LINE_SECONDS:
                stream.write(f"{label}: {_counts(progress)}, {_rate(progress)}\n")
                stream.flush()
                last_line = time.monotonic()
    if progress.done:
        state = progress.as_json()
        stream.write(f"{label} done: {_counts(progress)} in {state['elapsed']} s ({_rate(progress)})\n")
        stream.flush()


def _bar(progress: IngestProgress, stream: TextIO, stop: threading.Event, label: str) -> None:
    from tqdm import tqdm  # only a terminal needs it: not imported on the way to a server's first answer

    # A terminal that reports no size (a pty nobody sized) would get no bar at all: give it one of 100 columns.
    sized = _columns(stream) > 0
    with tqdm(
        total=0,
        unit="B",
        unit_scale=True,
        desc=label,
        file=stream,
        dynamic_ncols=sized,
        ncols=None if sized else 100,
        nrows=None if sized else 20,
    ) as bar:
        while not stop.wait(REFRESH_SECONDS):
            bar.total = progress.bytes_total
            bar.update(progress.bytes_read - bar.n)
            bar.set_postfix_str(
                f"{progress.files_done}/{progress.files_total} files, {progress.points:,} points, {_rate(progress)}"
            )
            if progress.done:
                return


def _columns(stream: TextIO) -> int:
    try:
        return os.get_terminal_size(stream.fileno()).columns
    except OSError:
        return 0


def _counts(progress: IngestProgress) -> str:
    return (
        f"{progress.files_done}/{progress.files_total} files, {progress.bytes_read / 1e6:.1f}/"
        f"{progress.bytes_total / 1e6:.1f} MB, {progress.points:,} new points"
    )


def _rate(progress: IngestProgress) -> str:
    return f"{progress.as_json()['points_per_second']:,.0f} points/s"
