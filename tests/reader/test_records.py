"""TFRecord framing and tailing under damage: files cut at any byte, flipped bits, garbage between records, garbage
files and payloads, files that grow, appear, vanish, are truncated or replaced. Never a crash or a hang (the bytes
read are bounded); every intact record is read; each corrupt one is logged once with its file and offset."""

from __future__ import annotations

import contextlib
import io
import itertools
import logging
import random
import struct
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tensorboardX import summary

from tests.stores import TestStore
from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.reader.frames import HEADER_SIZE, masked_crc
from trainboard.reader.logdir import LogDir
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import Summary
from trainboard.reader.records import READ_LIMIT, READ_PIECE, read_frames, read_records, write_record
from trainboard.reader.tail import FileCursor, read_new

payloads = st.lists(st.binary(min_size=0, max_size=64), min_size=1, max_size=12)
# Small read windows put record boundaries, corruption and skips at every place relative to a window's end.
limits = st.one_of(st.integers(min_value=2 * HEADER_SIZE, max_value=120), st.just(1 << 20))
# Hypothesis's bytes lean towards zeros (a zero length is a plausible header); random bytes are another kind of damage.
garbage_bytes = st.one_of(
    st.binary(min_size=1, max_size=300),
    st.builds(lambda seed, size: random.Random(seed).randbytes(size), st.integers(), st.integers(1, 300)),
)
_names = itertools.count()


def unique_path() -> str:
    """A file name not used before in this process, so that what the reader remembers per file never carries over."""
    return f"events.out.tfevents.{next(_names)}"


def framed(items: list[bytes]) -> tuple[bytes, list[tuple[int, int]]]:
    """The file, and each record's [start, end) byte range in it."""
    stream = io.BytesIO()
    spans = []
    for payload in items:
        start = stream.tell()
        write_record(stream, payload)
        spans.append((start, stream.tell()))
    return stream.getvalue(), spans


class CountingStream(io.BytesIO):
    """A file in memory that counts the bytes read from it."""

    bytes_read = 0

    def read(self, size: int | None = -1, /) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk


def read_all(data: bytes, offset: int = 0, *, path: str | None = None, limit: int = 1 << 20) -> tuple[list[bytes], int]:
    """Every complete record from `offset` on and where reading stopped. The bytes read stay linear in the file's
    size: a window's unread end is read again with the next window, so at most about twice."""
    stream = CountingStream(data)
    records = list(read_records(stream, offset, path=path or unique_path(), limit=limit))
    assert stream.bytes_read <= 2 * (len(data) + limit)
    return [record.payload for record in records], records[-1].end if records else offset


@contextmanager
def captured(logger_name: str, level: int) -> Iterator[list[str]]:
    """The messages a logger gives at `level` or above while the block runs."""
    messages: list[str] = []

    class Collect(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            messages.append(record.getMessage())

    handler = Collect(level)
    logger = logging.getLogger(logger_name)
    logger.addHandler(handler)
    was = logger.level
    logger.setLevel(min(level, logger.getEffectiveLevel()))
    try:
        yield messages
    finally:
        logger.removeHandler(handler)
        logger.setLevel(was)


def reader_warnings() -> contextlib.AbstractContextManager[list[str]]:
    return captured("trainboard.reader", logging.WARNING)


def ingest_failures() -> contextlib.AbstractContextManager[list[str]]:
    """What the ingest loop gave up on (a file skipped because reading or normalising it raised)."""
    return captured("trainboard.ingest", logging.ERROR)


@given(payloads, limits)
@settings(max_examples=40, deadline=None)
def test_a_file_cut_at_any_byte_yields_its_complete_records_then_the_rest(items: list[bytes], limit: int) -> None:
    data, spans = framed(items)
    for cut in range(len(data) + 1):
        first, end = read_all(data[:cut], limit=limit)
        complete = [payload for payload, (_, stop) in zip(items, spans, strict=True) if stop <= cut]
        assert first == complete
        assert end == (spans[len(complete) - 1][1] if complete else 0)
        rest, final = read_all(data, end, limit=limit)  # the file grew: reading resumes where it stopped
        assert first + rest == items and final == len(data)


@given(payloads, limits, st.data())
@settings(max_examples=300, deadline=None)
def test_a_flipped_bit_loses_only_the_record_it_hits_and_is_logged_once(
    items: list[bytes], limit: int, data: st.DataObject
) -> None:
    clean, spans = framed(items)
    position = data.draw(st.integers(min_value=0, max_value=len(clean) - 1), label="byte")
    damaged = bytearray(clean)
    damaged[position] ^= 1 << data.draw(st.integers(min_value=0, max_value=7), label="bit")
    hit = next(index for index, (start, stop) in enumerate(spans) if start <= position < stop)
    path = unique_path()
    with reader_warnings() as warnings:
        found, end = read_all(bytes(damaged), path=path, limit=limit)
    # A damaged header is skipped by finding the next valid one, a damaged payload or footer by its length.
    assert found == items[:hit] + items[hit + 1 :]
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{path}: corrupt record ") and f" at offset {spans[hit][0]}" in warnings[0]
    assert end <= len(damaged)


@given(payloads, garbage_bytes, limits, st.data())
@settings(max_examples=150, deadline=None)
def test_garbage_between_records_is_skipped_and_logged_once(
    items: list[bytes], garbage: bytes, limit: int, data: st.DataObject
) -> None:
    clean, spans = framed(items)
    at = data.draw(st.sampled_from([start for start, _ in spans]), label="where")
    path = unique_path()
    with reader_warnings() as warnings:
        found, _ = read_all(clean[:at] + garbage + clean[at:], path=path, limit=limit)
    assert found == items
    assert len(warnings) == 1, warnings
    assert warnings[0].startswith(f"{path}: corrupt record header at offset {at}; skipped ")
    if limit > len(clean) + len(garbage):
        assert warnings[0].endswith(f" skipped {len(garbage)} bytes")


@given(st.one_of(st.binary(max_size=4096), garbage_bytes), limits)
@settings(max_examples=200, deadline=None)
def test_garbage_files_never_crash(garbage: bytes, limit: int) -> None:
    found, end = read_all(garbage, limit=limit)
    assert 0 <= end <= len(garbage)
    assert all(isinstance(payload, bytes) for payload in found)


def test_a_long_run_of_garbage_costs_one_pass_and_loses_nothing_after_it() -> None:
    items = [b"first", b"second", b"third"]
    head, _ = framed(items[:1])
    tail, _ = framed(items[1:])
    garbage = random.Random(0).randbytes(4 << 20)
    with reader_warnings() as warnings:
        found, end = read_all(head + garbage + tail, limit=1 << 20)  # the garbage spans several windows
    assert found == items and end == len(head) + len(garbage) + len(tail)
    assert len(warnings) == 1, warnings


def test_a_corrupt_header_claiming_a_huge_record_is_not_read_whole() -> None:
    bogus = (1 << 30).to_bytes(8, "little") + b"\0\0\0\0"  # its checksum is wrong
    after, _ = framed([b"after"])
    stream = CountingStream(bogus + bytes(1 << 20) + after)
    frames = read_frames(stream, 0, path=unique_path(), limit=1024)
    assert stream.bytes_read == 1024 and not len(frames)
    assert [record.payload for record in read_records(stream, frames.end, path=unique_path())] == [b"after"]


def scalar_event(step: int, wall_time: float = 1.0) -> bytes:
    event = Event(wall_time=wall_time, step=step)
    event.summary.value.add(tag="x", simple_value=step / 2)
    return event.SerializeToString()


def version_event(wall_time: float) -> bytes:
    """The first event of today's writers: a version-2 file, where a step that goes back purges nothing."""
    return Event(wall_time=wall_time, file_version="brain.Event:2").SerializeToString()


def writer_events() -> list[bytes]:
    """One event of each kind tensorboardX writes, with a step far from the intact events' steps."""
    summaries = [
        summary.scalar("x", 0.5),
        summary.histogram("weights", np.arange(10.0), "auto"),
        summary.image("digit", np.zeros((3, 4, 4), dtype=np.uint8)),
        summary.text("note", "**hello**"),
        summary.pr_curve("pr", np.array([1, 0, 1]), np.array([0.1, 0.5, 0.9]), num_thresholds=5),
    ]
    return [
        Event(wall_time=2.0, step=10_000, summary=Summary.FromString(item.SerializeToString())).SerializeToString()
        for item in summaries
    ]


WRITER_EVENTS = writer_events()


def mutated(payload: bytes, draw: st.DataObject) -> bytes:
    """An event with some of its bytes changed, cut or extended: often still a valid protobuf, often not."""
    edits = draw.draw(st.lists(st.tuples(st.integers(0, max(len(payload) - 1, 0)), st.integers(0, 255)), max_size=4))
    edited = bytearray(payload)
    for position, value in edits:
        if position < len(edited):
            edited[position] = value
    cut = draw.draw(st.integers(0, len(edited)))
    return bytes(edited[:cut]) + draw.draw(st.binary(max_size=8))


@given(st.data())
@settings(max_examples=100, deadline=None)
def test_garbage_payloads_never_stop_ingest(data: st.DataObject) -> None:
    kinds = data.draw(st.lists(st.sampled_from(["good", "garbage", "mutated"]), min_size=1, max_size=10), label="kinds")
    records = [version_event(1.0)]
    good_steps = []
    for step, kind in enumerate(kinds):
        if kind == "good":
            records.append(scalar_event(step))
            good_steps.append(step)
        elif kind == "garbage":
            records.append(data.draw(st.binary(max_size=40), label="garbage"))
        else:
            records.append(mutated(data.draw(st.sampled_from(WRITER_EVENTS), label="event"), data))
    with tempfile.TemporaryDirectory() as scratch, reader_warnings():
        run = Path(scratch, "logs", "run")
        run.mkdir(parents=True)
        stream = io.BytesIO()
        for payload in records:
            write_record(stream, payload)
        (run / unique_path()).write_bytes(stream.getvalue())
        store = TestStore(Path(scratch, "store.sqlite"))
        try:
            with ingest_failures() as failed:
                store.loader(LogDir(str(run.parent))).poll()
            assert failed == []
            steps = store_steps(store)
        finally:
            store.close()
    # Every intact event is loaded; a mutated one may still parse as some event, but never costs an intact one.
    assert set(good_steps) <= set(steps)


def test_garbage_payloads_are_logged_once_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    stream = io.BytesIO()
    for payload in (scalar_event(1), b"\xff\xff\xff\xffnot a proto", scalar_event(2)):
        write_record(stream, payload)
    data = stream.getvalue()
    with caplog.at_level(logging.WARNING):
        frames = read_frames(io.BytesIO(data), 0, path="garbage.tfevents", limit=len(data))
        batch = normalise_frames(frames, RunState(), path="garbage.tfevents")
    assert batch.point_count() == 2
    warnings = [record.getMessage() for record in caplog.records if "garbage.tfevents" in record.getMessage()]
    assert len(warnings) == 1, warnings


def store_steps(store: TestStore, run: str = "run") -> list[int]:
    rows = list(store.series(runs=[run], tags=["x"]))
    return sorted(store.scalars(rows[0].id).steps.tolist()) if rows else []


@given(payloads, st.lists(st.integers(min_value=1, max_value=40), max_size=30), limits, st.data())
@settings(max_examples=150, deadline=None)
def test_tailing_a_growing_file_reads_each_intact_record_once(
    items: list[bytes], growths: list[int], limit: int, data: st.DataObject
) -> None:
    content, spans = framed(items)
    expected = items
    damage = data.draw(st.sampled_from(["none", "flipped bit", "garbage"]), label="damage")
    if damage == "flipped bit":
        position = data.draw(st.integers(min_value=0, max_value=len(content) - 1), label="byte")
        flipped = bytearray(content)
        flipped[position] ^= 1 << data.draw(st.integers(min_value=0, max_value=7), label="bit")
        content = bytes(flipped)
        hit = next(index for index, (start, stop) in enumerate(spans) if start <= position < stop)
        expected = items[:hit] + items[hit + 1 :]
    elif damage == "garbage":
        at = data.draw(st.sampled_from([start for start, _ in spans]), label="where")
        content = content[:at] + data.draw(garbage_bytes, label="garbage") + content[at:]
    with tempfile.TemporaryDirectory() as scratch, reader_warnings() as warnings:
        logdir = LogDir(scratch)
        path = str(Path(scratch, unique_path()))
        read: list[bytes] = []
        cursor: FileCursor | None = None
        with open(path, "wb") as writer:
            for growth in [*growths, len(content)]:
                size = min(writer.tell() + growth, len(content))
                writer.write(content[writer.tell() : size])
                writer.flush()
                while True:  # as the loader does: read on while the window was full
                    tail = read_new(logdir, cursor, path, limit=limit)
                    assert not tail.restarted
                    read += [record.payload for record in tail.frames.records()] if tail.frames else []
                    cursor = tail.cursor
                    if not tail.more:
                        break
                assert cursor is not None and cursor.offset <= size
    assert read == expected
    # However the damage was cut by the reads that saw it grow, it is reported once.
    assert len(warnings) == (damage != "none"), warnings


class Files:
    """Event files in one run directory and the steps a loader must hold for them: the complete records of each file
    as it is now; nothing of a vanished file."""

    def __init__(self, run: Path) -> None:
        self.run = run
        self.written: dict[str, bytes] = {}  # what each file should come to hold, record by record
        self.steps: dict[str, list[tuple[int, int]]] = {}  # each record's end offset and step
        self.sizes: dict[str, int] = {}  # the bytes on disk now
        self.last_sizes: dict[str, int] = {}  # the size each file had when last seen, vanished ones included
        self._wall_times = itertools.count(1)
        self._steps = itertools.count()

    def start(self, name: str, records: int) -> None:
        """A new file (or a replacement) planned with `records` scalar events after its version event."""
        stream = io.BytesIO()
        write_record(stream, version_event(float(next(self._wall_times))))
        ends = []
        for _ in range(records):
            step = next(self._steps)
            write_record(stream, scalar_event(step))
            ends.append((stream.tell(), step))
        self.written[name], self.steps[name] = stream.getvalue(), ends

    def write(self, name: str, size: int) -> None:
        path = self.run / name
        with path.open("r+b" if path.exists() else "wb") as stream:
            stream.truncate(size)
            stream.seek(min(self.sizes.get(name, 0), size))
            stream.write(self.written[name][stream.tell() : size])
        self.sizes[name] = self.last_sizes[name] = size

    def vanish(self, name: str) -> None:
        (self.run / name).unlink()
        del self.sizes[name]

    def expected_of(self, name: str) -> list[int]:
        return [step for end, step in self.steps[name] if end <= self.sizes[name]]

    def expected(self) -> list[int]:
        return sorted(itertools.chain(*map(self.expected_of, self.sizes)))


operations = st.lists(
    st.tuples(
        st.sampled_from(["grow", "truncate", "replace", "vanish", "appear"]),
        st.integers(min_value=0, max_value=2),  # which file
        st.floats(min_value=0, max_value=1),  # how much
    ),
    min_size=1,
    max_size=16,
)


@given(operations)
@settings(max_examples=100, deadline=None)
def test_files_that_grow_appear_vanish_are_truncated_or_replaced(steps: list[tuple[str, int, float]]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        run = Path(scratch, "logs", "run")
        run.mkdir(parents=True)
        files = Files(run)
        store = TestStore(Path(scratch, "store.sqlite"))
        loader = store.loader(LogDir(str(run.parent)))
        try:
            with ingest_failures() as failed:
                for operation, which, amount in steps:
                    apply(files, operation, unique_name(which), amount)
                    loader.poll()
                    assert store_steps(store) == files.expected(), (operation, which, amount)
            assert failed == []
        finally:
            store.close()


def unique_name(which: int) -> str:
    return f"events.out.tfevents.{which}.host"


def apply(files: Files, operation: str, name: str, amount: float) -> None:
    """One change to the run directory, as writers, sync tools and people make them."""
    if name not in files.sizes:
        operation = "replace" if name in files.last_sizes else "appear"
    elif operation == "appear":
        operation = "replace"
    if operation == "appear":
        files.start(name, records=1 + int(amount * 8))
        files.write(name, int(amount * len(files.written[name])))
    elif operation == "replace":
        # A different file under the same name. Its size differs from the old one's: a file is read again when its
        # size or modification time changed, and writes within one tick of the file system's clock keep the time.
        old = files.last_sizes[name]
        if name in files.sizes:
            (files.run / name).unlink()
            del files.sizes[name]
        files.start(name, records=1 + int(amount * 8))
        new = max(1, int(amount * len(files.written[name])))
        files.write(name, new if new != old else new - 1)
    elif operation == "vanish":
        files.vanish(name)
    elif operation == "grow":
        full, size = len(files.written[name]), files.sizes[name]
        files.write(name, min(full, size + max(1, int(amount * (full - size)))))
    else:
        files.write(name, int(amount * files.sizes[name]))


def claiming_header(length: int) -> bytes:
    """A record header claiming `length` bytes whose checksum holds."""
    header = length.to_bytes(8, "little")
    return header + masked_crc(header).to_bytes(4, "little")


def test_a_header_claiming_more_than_the_file_holds_is_logged_once_and_waited_on(tmp_path: Path) -> None:
    """A valid header claiming 1.9 GB stops reading as a partial record does (TensorBoard's "try again later"), but
    says so once, with the file and the offset; reading goes on from there each time."""
    path = tmp_path / "events.out.tfevents.1"
    before, _ = framed([scalar_event(1), scalar_event(2)])
    after, _ = framed([scalar_event(3)])
    claim = 1_900_000_000
    path.write_bytes(before + claiming_header(claim) + after)
    logdir = LogDir(str(tmp_path))
    cursor: FileCursor | None = None
    with reader_warnings() as warnings:
        for window in (READ_LIMIT, HEADER_SIZE * 2):
            for _ in range(3):
                tail = read_new(logdir, cursor, str(path), limit=window)
                cursor = tail.cursor
                assert cursor.offset == len(before)
    assert len(warnings) == 1, warnings
    assert (
        str(path) in warnings[0] and f"offset {len(before)}" in warnings[0] and f"claims {claim} bytes" in warnings[0]
    )


def test_a_record_being_written_is_noted_once_and_read_when_the_file_grows(tmp_path: Path) -> None:
    path = tmp_path / "events.out.tfevents.1"
    first, _ = framed([scalar_event(1)])
    second, _ = framed([scalar_event(2)])
    path.write_bytes(first + second[:-3])
    logdir = LogDir(str(tmp_path))
    cursor: FileCursor | None = None
    with captured("trainboard.reader", logging.INFO) as notes, reader_warnings() as warnings:
        for _ in range(3):
            tail = read_new(logdir, cursor, str(path))
            cursor = tail.cursor
            assert cursor.offset == len(first)
        with path.open("ab") as appended:
            appended.write(second[-3:])
        tail = read_new(logdir, cursor, str(path))
    assert tail.frames is not None and [record.payload for record in tail.frames.records()] == [scalar_event(2)]
    assert tail.cursor.offset == len(first + second)
    assert warnings == [] and len(notes) == 1, notes
    assert f"offset {len(first)}" in notes[0]


def test_a_record_larger_than_the_read_window_is_said_once_and_read_when_the_file_grows_to_hold_it(
    tmp_path: Path,
) -> None:
    """A writer still writing a record larger than the read window: its claim passes the window, so it is a warning,
    given once however often the file is read as it grows; once the file holds it, it is read whole, then the rest."""
    path = tmp_path / "events.out.tfevents.1"
    first, _ = framed([scalar_event(1)])
    large = random.Random(1).randbytes(READ_LIMIT + 5000)
    middle, _ = framed([large])
    last, _ = framed([scalar_event(2)])
    content = first + middle + last
    logdir = LogDir(str(tmp_path))
    cursor: FileCursor | None = None
    read: list[bytes] = []
    with path.open("wb") as writer, reader_warnings() as warnings:
        for size in (len(first) + 12, len(first) + READ_LIMIT, len(first) + len(middle) - 1, len(content)):
            writer.write(content[writer.tell() : size])
            writer.flush()
            for _ in range(2):
                tail = read_new(logdir, cursor, str(path))
                read += [record.payload for record in tail.frames.records()] if tail.frames else []
                cursor = tail.cursor
            assert cursor.offset == (len(first) if size < len(first + middle) else len(content))
    assert read == [scalar_event(1), large, scalar_event(2)]
    assert len(warnings) == 1, warnings
    assert f"offset {len(first)}" in warnings[0] and f"claims {len(large)} bytes" in warnings[0]


def test_a_length_that_is_a_lie_is_checked_before_its_buffer_is_taken(caplog: pytest.LogCaptureFixture) -> None:
    """A valid header claiming more than the read window, over bytes the file holds but that are no record (a sparse
    file's hole): its checksum fails as it is read a piece at a time, it is skipped by its length, logged once, and the
    records after it are read (tests/cli/test_ingest_memory.py measures the memory it costs a real ingest)."""
    claim = READ_PIECE + 5000
    length = struct.pack("<Q", claim)
    hole = length + struct.pack("<I", masked_crc(length)) + bytes(claim + 4)
    before, _ = framed([scalar_event(1)])
    after, _ = framed([scalar_event(2)])
    path = unique_path()
    with caplog.at_level(logging.WARNING):
        found, end = read_all(before + hole + after, path=path, limit=1 << 20)
    assert found == [scalar_event(1), scalar_event(2)]
    assert end == len(before + hole + after)
    warnings = [record.getMessage() for record in caplog.records if path in record.getMessage()]
    assert warnings == [f"{path}: corrupt record payload at offset {len(before)} (checksum mismatch); skipped"]
