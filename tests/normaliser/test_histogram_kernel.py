"""The C histogram kernel fuzzed against the protobuf parser and the general normaliser: seeded histogram events,
some damaged. What the kernel takes must normalise to the very points and metadata that parsing and normalising the
event gives (TensorProto bytes equal); every undamaged event of histograms only must be taken."""

from __future__ import annotations

import random
from collections.abc import Iterator

import numpy as np
import pytest
from google.protobuf.message import DecodeError

from tests.kernels import running
from trainboard.normaliser import histogram_kernel
from trainboard.normaliser.normalise import normalise_event, normalise_histograms
from trainboard.normaliser.points import Batch, DataClass, RunState, SeriesMetadata
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import HistogramProto, Summary


@pytest.fixture(autouse=True, scope="module")
def _compiled() -> Iterator[None]:
    """These tests are of the C kernel (against the pure-Python path as reference), whatever TRAINBOARD_PURE_PYTHON
    says."""
    with running("compiled", "trainboard.normaliser._histograms"):
        yield


INPUTS = 5_000
EDGES = (0.0, -1.0, 2.5, 1e39, -1e39, float("nan"), float("inf"), 1e-45)


def _histogram(rng: random.Random) -> HistogramProto:
    limits = sorted(rng.uniform(-10, 10) for _ in range(rng.choice((0, 1, 2, 5, rng.randrange(300)))))
    # As many counts as limits, or one more, or fewer (a malformed histogram keeps the buckets it can place).
    counts = [rng.choice((0.0, 0.0, 1.0, 3.0, 1e39, float("nan"))) for _ in range(len(limits) + rng.choice((0, 1, -1)))]
    histo = HistogramProto(bucket_limit=limits, bucket=counts, num=sum(counts[:3]), sum=rng.random())
    if rng.random() < 0.8:
        histo.min, histo.max = rng.choice(EDGES), rng.choice(EDGES)
    return histo


def _event(rng: random.Random) -> bytes:
    values = [
        Summary.Value(tag=rng.choice(("h", "a/b", "é")), histo=_histogram(rng)) for _ in range(rng.randrange(1, 3))
    ]
    event = Event(wall_time=rng.random() * 2e9, step=rng.randrange(1 << 40), summary=Summary(value=values))
    return event.SerializeToString()


def _damaged(rng: random.Random, payload: bytes) -> tuple[bytes, bool]:
    damaged, kind = bytearray(payload), rng.random()
    if kind < 0.25:
        damaged[rng.randrange(len(damaged))] = rng.randrange(256)
    elif kind < 0.35:
        del damaged[rng.randrange(len(damaged)) :]
    elif kind < 0.45:
        at = rng.randrange(len(damaged) + 1)
        damaged[at:at] = rng.randbytes(rng.randrange(1, 4))
    return bytes(damaged), kind >= 0.45


def _normalised(events: list[Event | histogram_kernel.HistogramEvent]) -> tuple[list[object], dict[str, object]]:
    state, batch = RunState(file_version=2.0), Batch()
    for event in events:
        if isinstance(event, histogram_kernel.HistogramEvent):
            assert normalise_histograms(event, state, batch)
        else:
            normalise_event(event, state, batch)
    return batch.operations, dict(batch.metadata)


def test_what_the_kernel_takes_normalises_as_the_parsed_event() -> None:
    rng = random.Random(16)
    wrong = []
    for seed in range(INPUTS):
        payloads = [_damaged(rng, _event(rng)) for _ in range(rng.randrange(1, 4))]
        data = np.frombuffer(b"".join(payload for payload, _ in payloads), dtype=np.uint8)
        lengths = np.array([len(payload) for payload, _ in payloads], dtype=np.int64)
        starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
        found = histogram_kernel.decode(data, starts, lengths)
        for record, (payload, intact) in enumerate(payloads):
            if record not in found:
                if intact:
                    wrong.append((seed, record, "an intact event is not taken"))
                continue
            try:
                parsed = Event.FromString(payload)
            except DecodeError:
                wrong.append((seed, record, "the parser refuses it"))
                continue
            if _normalised([found[record]]) != _normalised([parsed]):
                wrong.append((seed, record, "points or metadata differ"))
    assert not wrong, wrong[:10]


def test_a_tag_of_another_kind_is_left_to_the_parser() -> None:
    event = Event(step=1, summary=Summary(value=[Summary.Value(tag="h", histo=HistogramProto(bucket=[1.0]))]))
    payload = event.SerializeToString()
    found = histogram_kernel.decode(
        np.frombuffer(payload, dtype=np.uint8), np.array([0], dtype=np.int64), np.array([len(payload)], dtype=np.int64)
    )
    state = RunState(file_version=2.0)
    state.first_metadata["h"] = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
    batch = Batch()
    assert not normalise_histograms(found[0], state, batch)
    assert batch.operations == [] and state.most_recent_step != 1


@pytest.mark.parametrize(("start", "length"), [(-1, 2), (0, 11), (10, 1), (5, -1)])
def test_records_outside_the_data_are_refused(start: int, length: int) -> None:
    with pytest.raises(ValueError, match="outside"):
        histogram_kernel.decode(
            np.zeros(10, dtype=np.uint8), np.array([start], dtype=np.int64), np.array([length], dtype=np.int64)
        )
