"""A seeded generator of damaged event files, and the check that the reader takes each one as it must: every intact
record read exactly once and in order, damage logged once, nothing raised, no endless loop, the bytes read bounded.

Each input is a file of small records given one kind of damage, read in windows of a random size, and for some
inputs read as it grows (records split across reads). Used by tests/reader/test_fuzz.py (in CI) and bench/fuzz.py.
"""

from __future__ import annotations

import io
import logging
import random
from collections.abc import Iterator
from dataclasses import dataclass

from trainboard.reader.frames import HEADER_SIZE, MAX_RECORD_SIZE, masked_crc
from trainboard.reader.records import READ_LIMIT, read_frames, write_record

DAMAGE = ("none", "truncated", "bit flip", "garbage", "claim past the end", "claim past the limit")


@dataclass(frozen=True, slots=True)
class Case:
    seed: int
    damage: str
    data: bytes
    # The payloads the reader must give, in order, once the whole file is there.
    expected: list[bytes]
    # Where reading must stop once the whole file is there.
    end: int
    # Warnings the reader must give.
    warnings: int
    limit: int
    # File sizes at which it is read as it grows (the last is the whole file).
    growth: list[int]


def case(seed: int) -> Case:
    rng = random.Random(seed)
    items = [rng.randbytes(rng.choice((0, 1, 2, 8, rng.randrange(64)))) for _ in range(rng.randrange(1, 12))]
    stream = io.BytesIO()
    spans = []
    for payload in items:
        start = stream.tell()
        write_record(stream, payload)
        spans.append((start, stream.tell()))
    data = stream.getvalue()
    damage = rng.choice(DAMAGE)
    expected, end, warnings = list(items), len(data), 0
    if damage == "truncated":
        end = rng.randrange(len(data) + 1)
        data = data[:end]
        expected = [payload for payload, (_, stop) in zip(items, spans, strict=True) if stop <= end]
        end = max([stop for _, stop in spans if stop <= end], default=0)
    elif damage == "bit flip":
        position = rng.randrange(len(data))
        flipped = bytearray(data)
        flipped[position] ^= 1 << rng.randrange(8)
        data = bytes(flipped)
        hit = next(index for index, (start, stop) in enumerate(spans) if start <= position < stop)
        expected, warnings = items[:hit] + items[hit + 1 :], 1
        if hit == len(items) - 1 and position < spans[hit][0] + HEADER_SIZE:  # no header after it to resume at
            end = len(data) - HEADER_SIZE + 1
    elif damage in ("garbage", "claim past the limit"):
        at = rng.choice([start for start, _ in spans] + [len(data)])
        inserted = (
            rng.randbytes(rng.randrange(1, 300))
            if damage == "garbage"
            else _header(rng.randrange(MAX_RECORD_SIZE + 1, 1 << 64)) + rng.randbytes(rng.randrange(0, 40))
        )
        data = data[:at] + inserted + data[at:]
        end, warnings = len(data), 1
        if at == len(data) - len(inserted) and len(inserted) < HEADER_SIZE:  # too short to be a header yet
            end, warnings = at, 0
        elif at == len(data) - len(inserted):  # skipped up to where a header could still begin
            end = len(data) - HEADER_SIZE + 1
    elif damage == "claim past the end":
        at = rng.choice([start for start, _ in spans] + [len(data)])
        claim = rng.choice((rng.randrange(len(data) - at + 1, 1 << 16), rng.randrange(1 << 16, MAX_RECORD_SIZE + 1)))
        data = data[:at] + _header(claim) + data[at:]
        expected = [payload for payload, (start, _) in zip(items, spans, strict=True) if start < at]
        # Waited on, as a record being written: a warning when it claims more than a read window holds.
        end, warnings = at, int(claim > READ_LIMIT)
    limit = rng.choice((rng.randrange(2 * HEADER_SIZE, 200), 1 << 20))
    growth = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randrange(4)))) if len(data) > 1 else []
    return Case(seed, damage, data, expected, end, warnings, limit, [*growth, len(data)])


def _header(length: int) -> bytes:
    """A header claiming `length` bytes whose checksum holds."""
    header = length.to_bytes(8, "little")
    return header + masked_crc(header).to_bytes(4, "little")


class Warnings(logging.Handler):
    """Counts the reader's warnings."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


class Counting(io.BytesIO):
    bytes_read = 0

    def read(self, size: int | None = -1, /) -> bytes:
        chunk = super().read(size)
        self.bytes_read += len(chunk)
        return chunk


def check(found: Case, path: str, warnings: Warnings) -> str | None:
    """What the reader did wrong with the case, or None."""
    warnings.messages.clear()
    read: list[bytes] = []
    offset = 0
    bytes_read = 0
    try:
        for size in found.growth:
            stream = Counting(found.data[:size])
            for _ in range(size + 2):  # each window moves on by at least one byte, or reading stops
                frames = read_frames(stream, offset, path=path, limit=found.limit)
                read += [bytes(record.payload) for record in frames.records()]
                if frames.end == offset:
                    break
                offset = frames.end
            else:
                return "reading did not stop"
            bytes_read += stream.bytes_read
    except Exception as error:  # the fuzz reports whatever the reader raised
        return f"raised {error!r}"
    if read != found.expected:
        return f"read {len(read)} records, expected {len(found.expected)} (or other ones)"
    if offset != found.end:
        return f"stopped at {offset}, expected {found.end}"
    bound = 2 * len(found.growth) * (len(found.data) + found.limit)
    if bytes_read > bound:
        return f"read {bytes_read} bytes, more than {bound}"
    said = [message for message in warnings.messages if message.startswith(path + ":")]
    if len(said) != found.warnings:
        return f"{len(said)} warnings, expected {found.warnings}: {said}"
    return None


def verdicts(seeds: range, logger: logging.Logger) -> Iterator[tuple[Case, str | None]]:
    """Each case of `seeds` with what the reader got wrong (None: nothing)."""
    handler = Warnings()
    logger.addHandler(handler)
    was, logger.propagate = logger.propagate, False
    try:
        for seed in seeds:
            found = case(seed)
            yield found, check(found, f"fuzz/{seed}/events.out.tfevents", handler)
    finally:
        logger.removeHandler(handler)
        logger.propagate = was
