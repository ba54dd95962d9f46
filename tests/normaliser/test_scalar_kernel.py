"""The C scalar kernel fuzzed against the protobuf parser: seeded scalar events, some damaged (a byte changed, cut
short, bytes inserted). Whatever the kernel takes as a simple scalar event must be one, with the parser's wall time,
step, tags and values; every undamaged event must be taken; records outside the data are refused."""

from __future__ import annotations

import math
import random
from collections.abc import Iterator

import numpy as np
import pytest
from google.protobuf.message import DecodeError

from tests.kernels import running
from trainboard.normaliser import scalar_kernel
from trainboard.normaliser.frames import Decoded
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import Summary


@pytest.fixture(autouse=True, scope="module")
def _compiled() -> Iterator[None]:
    """These tests are of the C kernel (against the pure-Python path as reference), whatever TRAINBOARD_PURE_PYTHON
    says."""
    with running("compiled", "trainboard.normaliser._scalars"):
        yield


INPUTS = 20_000
# Not the empty tag: proto3 leaves it out, and a value without a tag goes to the general path.
TAGS = ("loss", "a/b", "é", "x" * 200)
VALUES = (0.0, -1.5, 3.25, float("inf"), float("nan"), 1e-40)


def _event(rng: random.Random) -> bytes:
    values = [Summary.Value(tag=rng.choice(TAGS), simple_value=rng.choice(VALUES)) for _ in range(rng.randrange(4))]
    step = rng.choice((0, 1, rng.randrange(1 << 40), -rng.randrange(1, 1 << 62)))
    return Event(wall_time=rng.random() * 2e9, step=step, summary=Summary(value=values)).SerializeToString()


def _damaged(rng: random.Random, payload: bytes) -> tuple[bytes, bool]:
    damaged, kind = bytearray(payload), rng.random()
    if kind < 0.3:
        damaged[rng.randrange(len(damaged))] = rng.randrange(256)
    elif kind < 0.45:
        del damaged[rng.randrange(len(damaged)) :]
    elif kind < 0.6:
        at = rng.randrange(len(damaged) + 1)
        damaged[at:at] = rng.randbytes(rng.randrange(1, 4))
    return bytes(damaged), kind >= 0.6


def _agrees(payload: bytes, found: Decoded, record: int, data: np.ndarray) -> str | None:
    """None when the kernel's reading of a record it took as simple is the parser's, else what differs."""
    mine = np.flatnonzero(found.records == record)
    tags = [data[found.tag_starts[i] : found.tag_starts[i] + found.tag_lengths[i]].tobytes() for i in mine]
    try:
        event = Event.FromString(payload)
    except DecodeError:
        # The kernel leaves tags as bytes (the normaliser decodes them); protobuf refuses a tag that is not UTF-8.
        return None if any(_not_utf8(tag) for tag in tags) else "the parser refuses it"
    if {field.name for field, _ in event.ListFields()} - {"wall_time", "step", "summary"}:
        return "it has other fields"
    if any({field.name for field, _ in value.ListFields()} != {"tag", "simple_value"} for value in event.summary.value):
        return "a value is not a tag and a simple_value"
    if (float(found.wall_times[record]), int(found.steps[record])) != (event.wall_time, event.step):
        return "wall time or step differ"
    theirs = [(value.tag.encode(), value.simple_value) for value in event.summary.value]
    ours = [(tag, float(found.values[i])) for tag, i in zip(tags, mine, strict=True)]
    if len(ours) != len(theirs) or any(
        a_tag != b_tag or not (a == b or (math.isnan(a) and math.isnan(b)))
        for (a_tag, a), (b_tag, b) in zip(ours, theirs, strict=True)
    ):
        return "tags or values differ"
    return None


def _not_utf8(tag: bytes) -> bool:
    try:
        tag.decode("utf-8")
    except UnicodeDecodeError:
        return True
    return False


def test_what_the_kernel_takes_is_what_the_parser_reads() -> None:
    rng = random.Random(16)
    wrong = []
    for seed in range(INPUTS):
        payloads = [_damaged(rng, _event(rng)) for _ in range(rng.randrange(1, 5))]
        data = np.frombuffer(b"".join(payload for payload, _ in payloads), dtype=np.uint8)
        lengths = np.array([len(payload) for payload, _ in payloads], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        found = Decoded(*scalar_kernel.decode(data, starts, lengths))
        for record, (payload, intact) in enumerate(payloads):
            if intact and not found.simple[record]:
                wrong.append((seed, record, "an intact event is not taken"))
            elif found.simple[record] and (what := _agrees(payload, found, record, data)) is not None:
                wrong.append((seed, record, what))
    assert not wrong, wrong[:10]


@pytest.mark.parametrize(("start", "length"), [(-1, 2), (0, 11), (10, 1), (5, -1)])
def test_records_outside_the_data_are_refused(start: int, length: int) -> None:
    data = np.zeros(10, dtype=np.uint8)
    with pytest.raises(ValueError, match="outside"):
        scalar_kernel.decode(data, np.array([start], dtype=np.int64), np.array([length], dtype=np.int64))


def test_tags_are_numbered_by_first_appearance_byte_for_byte() -> None:
    """Thousands of tags (the kernel's table grows many times), some prefixes of others or differing in one byte."""
    rng = random.Random(7)
    names = [f"layer{index}/loss" for index in range(3000)] + ["a", "aa", "a\x00", "é", "e\u0301"]
    chosen = [rng.choice(names) for _ in range(20_000)]
    found = Decoded(*scalar_kernel.decode(*_one_value_each(chosen)))

    numbers: dict[str, int] = {}
    expected = [numbers.setdefault(tag, len(numbers)) for tag in chosen]
    assert found.tag_ids.tolist() == expected
    assert found.firsts.tolist() == [chosen.index(tag) for tag in numbers]


def _one_value_each(tags: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Data, starts and lengths of one simple scalar event per tag."""
    payloads = [
        Event(step=step, summary=Summary(value=[Summary.Value(tag=tag, simple_value=1.0)])).SerializeToString()
        for step, tag in enumerate(tags)
    ]
    lengths = np.array([len(payload) for payload in payloads], dtype=np.int64)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    return np.frombuffer(b"".join(payloads), dtype=np.uint8), starts, lengths


def _fnv1a(data: bytes) -> int:
    digest = 0xCBF29CE484222325
    for byte in data:
        digest = ((digest ^ byte) * 0x100000001B3) % 2**64
    return digest


def test_tags_made_to_collide_leave_their_events_to_the_general_path() -> None:
    """66 tags with one first slot (the top 8 bits of their hash times the kernel's Fibonacci constant): the 65th is
    looked for in more than 64 slots, so no event is taken and the numbering stays linear."""
    by_slot: dict[int, list[str]] = {}
    index = 0
    while not any(len(tags) == 66 for tags in by_slot.values()):
        tag = f"t{index}"
        by_slot.setdefault((_fnv1a(tag.encode()) * 0x9E3779B97F4A7C15 % 2**64) >> 56, []).append(tag)
        index += 1
    colliding = next(tags for tags in by_slot.values() if len(tags) == 66)
    found = Decoded(*scalar_kernel.decode(*_one_value_each(colliding)))
    assert not found.simple.any() and len(found.tag_ids) == len(found.firsts) == 0
    found = Decoded(*scalar_kernel.decode(*_one_value_each(colliding[:64])))
    assert found.simple.all() and found.tag_ids.tolist() == list(range(64))
