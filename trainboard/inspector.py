"""`trainboard --inspect`: TensorBoard's digest of event files, per run directory, read with trainboard's reader.

The output follows TensorBoard 2.21's event_file_inspector line for line: the tags of each kind, then per kind of
record the steps seen (count, first, last, min, max, and the pairs where the step went down). One difference: a
directory's event files are read in name order (as TensorBoard's loader reads them), not in the order the filesystem
lists them, so the first and last steps do not depend on the filesystem.
"""

from __future__ import annotations

import os
import posixpath
from collections.abc import Iterator
from typing import BinaryIO, TextIO

from trainboard.reader.dialect import Dialect, file_dialect
from trainboard.reader.events import parse_event
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event, SessionLog
from trainboard.reader.records import read_records

# Summary value fields by the name TensorBoard prints for them, in its order.
VALUE_FIELDS = {
    "simple_value": "scalars",
    "histo": "histograms",
    "image": "images",
    "audio": "audio",
    "tensor": "tensor",
}
TAG_FIELDS = tuple(VALUE_FIELDS.values())
SESSION_FIELDS = {SessionLog.START: "sessionlog:start", SessionLog.STOP: "sessionlog:stop"}
# Fields summarised by their step statistics; the others (session starts and stops) list every step.
SHORT_FIELDS = ("graph", "sessionlog:checkpoint", *TAG_FIELDS)
LONG_FIELDS = ("sessionlog:start", "sessionlog:stop")
SEPARATOR = "=" * 70 + "\n"

Observations = dict[str, list[tuple[int, str]]]


class InspectError(Exception):
    """Why the event files could not be inspected, worded for the user."""


def inspect(out: TextIO, *, logdir: str = "", event_file: str = "", tag: str = "") -> None:
    """Print the digest of every run directory under `logdir`, or of one `event_file`, to `out`."""
    out.write(f"{SEPARATOR}Processing event files... (this can take a few minutes)\n{SEPARATOR}\n")
    units = _logdir_units(out, logdir, tag) if logdir else [(event_file, _file_observations(event_file, tag))]
    for name, observations in units:
        if tag:
            out.write(f"Event statistics for tag {tag} in {name}:\n")
        else:
            out.write(f"These tags are in {name}:\n")
            _print_dict(out, {field: sorted({t for _, t in observations[field]}) for field in TAG_FIELDS})
            out.write(f"{SEPARATOR}\n")
            out.write(f"Event statistics for {name}:\n")
        _print_dict(out, _statistics(observations), show_missing=not tag)
        out.write(f"{SEPARATOR}\n")


def _logdir_units(out: TextIO, logdir: str, tag: str) -> list[tuple[str, Observations]]:
    source = LogDir(logdir)
    units = []
    for run, paths in source.runs().items():
        files = [path for path in paths if file_dialect(path) is Dialect.TENSORBOARD]
        if files:
            events = (event for path in files for event in _events(source.open(path), path))
            units.append((_unit_name(logdir, run), _observations(events, tag)))
    if units:
        names = "\n".join(name for name, _ in units)
        out.write(f"Found event files in:\n{names}\n\n")
    elif file_dialect(logdir) is Dialect.TENSORBOARD:
        out.write(
            f"It seems that {logdir} may be an event file instead of a logdir. If this is the case, use --event_file "
            "instead of --logdir to pass it in.\n"
        )
    else:
        out.write(f"No event files found within logdir {logdir}\n")
    return units


def _unit_name(logdir: str, run: str) -> str:
    """The directory as TensorBoard names it: the logdir as given, joined with the run's path below it."""
    if run == ".":
        return logdir
    if "://" in logdir:
        return posixpath.join(logdir, run)
    return os.path.join(logdir, *run.split("/"))


def _file_observations(event_file: str, tag: str) -> Observations:
    try:
        if "://" in event_file:
            import fsspec

            stream: BinaryIO = fsspec.open(event_file, "rb").open()
        else:
            stream = open(event_file, "rb")  # closed by _events
    except OSError as error:
        raise InspectError(f"cannot read event file {event_file}: {error.strerror or error}") from None
    return _observations(_events(stream, event_file), tag)


def _events(stream: BinaryIO, path: str) -> Iterator[Event]:
    with stream:
        for record in read_records(stream, 0, path=path):
            event = parse_event(record.payload, path=path, offset=record.offset)
            if event is not None:
                yield event


def _observations(events: Iterator[Event], tag: str) -> Observations:
    """The steps of each field, with the tag for summary values, in file order; with `tag`, only that tag's values."""
    seen: Observations = {field: [] for field in (*SHORT_FIELDS, *LONG_FIELDS)}
    for event in events:
        kind = event.WhichOneof("what")
        if kind == "graph_def" and not tag:
            seen["graph"].append((event.step, ""))
        # As TensorBoard's inspector: with a tag, a session log is looked at as a summary (and has none).
        if kind == "session_log" and not tag:
            status = event.session_log.status
            if status == SessionLog.CHECKPOINT:
                seen["sessionlog:checkpoint"].append((event.step, ""))
            elif status in SESSION_FIELDS:
                seen[SESSION_FIELDS[status]].append((event.step, ""))
        elif kind == "summary":
            for value in event.summary.value:
                if tag and value.tag != tag:
                    continue
                field = value.WhichOneof("value")
                if field in VALUE_FIELDS:
                    seen[VALUE_FIELDS[field]].append((event.step, value.tag))
    return seen


def _statistics(observations: Observations) -> dict[str, object]:
    printed: dict[str, object] = {}
    for field, seen in observations.items():
        steps = [step for step, _ in seen]
        if not steps:
            printed[field] = None
        elif field in SHORT_FIELDS:
            printed[field] = {
                "num_steps": len(set(steps)),
                "min_step": min(steps),
                "max_step": max(steps),
                "last_step": steps[-1],
                "first_step": steps[0],
                "outoforder_steps": _out_of_order(steps),
            }
        else:
            printed[field] = {"steps": steps, "outoforder_steps": _out_of_order(steps)}
    return printed


def _out_of_order(steps: list[int]) -> list[tuple[int, int]]:
    """Adjacent steps where the second is lower than the first."""
    return [(before, after) for before, after in zip(steps, steps[1:], strict=False) if after < before]


def _print_dict(out: TextIO, items: dict[str, object], *, show_missing: bool = True) -> None:
    for key, value in sorted(items.items()):
        if not value and show_missing:
            out.write(f"{key} -\n")
        elif isinstance(value, list):
            out.write(f"{key}\n")
            out.writelines(f"   {item}\n" for item in value)
        elif isinstance(value, dict):
            out.write(f"{key}\n")
            out.writelines(f"   {name:<20} {entry}\n" for name, entry in sorted(value.items()))
