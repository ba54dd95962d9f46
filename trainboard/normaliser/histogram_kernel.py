"""Legacy histogram events decoded in C (_histograms.c) straight into the tensors TensorBoard migrates them to: the
second most common event of a logdir, without a protobuf object per event. Anything else is left to the parser, and
without the kernel (trainboard.kernels) every event is."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from trainboard import kernels


class HistogramEvent(NamedTuple):
    """An event of legacy histogram values only: each value's tag and its migrated TensorProto, serialized."""

    wall_time: float
    step: int
    values: list[tuple[str, bytes]]


def decode(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray) -> dict[int, HistogramEvent]:
    """The histogram events among the records (payload at starts[i], lengths[i]), by i; a tag that is not UTF-8
    leaves its event to the parser."""
    kernel = kernels.compiled("trainboard.normaliser._histograms")
    if kernel is None:
        return {}
    found = kernel.decode(
        data, np.ascontiguousarray(starts, dtype=np.int64), np.ascontiguousarray(lengths, dtype=np.int64)
    )
    wall_times, steps = np.frombuffer(found[1], dtype=np.float64), np.frombuffer(found[2], dtype=np.int64)
    records, tag_starts, tag_lengths, tensor_ends = (np.frombuffer(found[i], dtype=np.int64) for i in (3, 4, 5, 7))
    tensors, raw = found[6], data.data
    events: dict[int, HistogramEvent] = {}
    not_utf8: set[int] = set()
    tensor_start = 0
    for record, tag_start, tag_length, tensor_end in zip(
        records.tolist(), tag_starts.tolist(), tag_lengths.tolist(), tensor_ends.tolist(), strict=True
    ):
        event = events.get(record)
        if event is None:
            event = events[record] = HistogramEvent(float(wall_times[record]), int(steps[record]), [])
        tensor, tensor_start = tensors[tensor_start:tensor_end], tensor_end
        try:
            event.values.append((str(raw[tag_start : tag_start + tag_length], "utf-8"), tensor))
        except UnicodeDecodeError:
            not_utf8.add(record)
    return {record: event for record, event in events.items() if record not in not_utf8}
