"""TFRecord framing under damage: files cut at any byte, flipped bits, garbage between records, garbage files and
garbage payloads. Never a crash or a hang; every intact record is still read; nothing damaged is passed on."""

from __future__ import annotations

import io
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from trainboard.normaliser.frames import normalise_frames
from trainboard.normaliser.points import RunState
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import FOOTER_SIZE, HEADER_SIZE, read_frames, write_record

payloads = st.lists(st.binary(min_size=0, max_size=64), min_size=1, max_size=12)


def framed(items: list[bytes]) -> tuple[bytes, list[tuple[int, int]]]:
    """The file, and each record's [start, end) byte range in it."""
    stream = io.BytesIO()
    spans = []
    for payload in items:
        start = stream.tell()
        write_record(stream, payload)
        spans.append((start, stream.tell()))
    return stream.getvalue(), spans


def read_all(data: bytes, offset: int = 0) -> tuple[list[bytes], int]:
    found = read_frames(io.BytesIO(data), offset, path="test", limit=len(data) + 1)
    return [found.payload(index) for index in range(len(found))], found.end


@given(payloads)
@settings(max_examples=60, deadline=None)
def test_a_file_cut_at_any_byte_yields_its_complete_records_then_the_rest(items: list[bytes]) -> None:
    data, spans = framed(items)
    for cut in range(len(data) + 1):
        first, end = read_all(data[:cut])
        complete = [payload for payload, (_, stop) in zip(items, spans, strict=True) if stop <= cut]
        assert first == complete
        assert end == (spans[len(complete) - 1][1] if complete else 0)
        rest, final = read_all(data, end)  # the file grew: reading resumes where it stopped
        assert first + rest == items and final == len(data)


@given(payloads, st.data())
@settings(max_examples=300, deadline=None)
def test_a_flipped_bit_loses_at_most_the_record_it_hits(items: list[bytes], data: st.DataObject) -> None:
    clean, spans = framed(items)
    position = data.draw(st.integers(min_value=0, max_value=len(clean) - 1), label="byte")
    bit = data.draw(st.integers(min_value=0, max_value=7), label="bit")
    damaged = bytearray(clean)
    damaged[position] ^= 1 << bit
    found, end = read_all(bytes(damaged))
    hit = next(index for index, (start, stop) in enumerate(spans) if start <= position < stop)
    intact = [payload for index, payload in enumerate(items) if index != hit]
    # A damaged header is skipped by resynchronising on the next valid one, a damaged payload by its length.
    assert found == intact
    assert end <= len(damaged)


@given(payloads, st.binary(min_size=1, max_size=200), st.data())
@settings(deadline=None)
def test_garbage_between_records_is_skipped(items: list[bytes], garbage: bytes, data: st.DataObject) -> None:
    clean, spans = framed(items)
    at = data.draw(st.sampled_from([start for start, _ in spans] + [len(clean)]), label="where")
    found, _ = read_all(clean[:at] + garbage + clean[at:])
    before = [payload for payload, (_, stop) in zip(items, spans, strict=True) if stop <= at]
    after = [payload for payload, (start, _) in zip(items, spans, strict=True) if start >= at]
    # Garbage can swallow a following record only if it happens to contain a valid header that claims it.
    assert found[: len(before)] == before
    assert all(payload in found for payload in after[1:]) or len(garbage) >= HEADER_SIZE + FOOTER_SIZE


@given(st.binary(max_size=4096))
@settings(max_examples=300, deadline=None)
def test_garbage_files_never_crash(garbage: bytes) -> None:
    found, end = read_all(garbage)
    assert 0 <= end <= len(garbage)
    assert all(isinstance(payload, bytes) for payload in found)


def test_garbage_payloads_are_logged_once_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    good = Event(wall_time=1.0, step=1)
    good.summary.value.add(tag="loss", simple_value=0.5)
    stream = io.BytesIO()
    for payload in (good.SerializeToString(), b"\xff\xff\xff\xffnot a proto", good.SerializeToString()):
        write_record(stream, payload)
    data = stream.getvalue()
    with caplog.at_level(logging.WARNING):
        frames = read_frames(io.BytesIO(data), 0, path="garbage.tfevents", limit=len(data))
        batch = normalise_frames(frames, RunState(), path="garbage.tfevents")
    assert batch.point_count() == 2
    warnings = [record.getMessage() for record in caplog.records if "garbage.tfevents" in record.getMessage()]
    assert len(warnings) == 1, warnings
