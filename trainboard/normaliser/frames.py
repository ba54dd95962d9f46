"""One read's records → a Batch. Runs of simple scalar events are decoded in bulk into column series; every other
event is parsed and normalised one by one. Both paths give the same points and purges, in file order."""

from __future__ import annotations

import numpy as np

from trainboard.normaliser.normalise import normalise_event
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.reader.events import parse_event
from trainboard.reader.records import Frames


def normalise_frames(frames: Frames, state: RunState, *, path: str) -> Batch:
    batch = Batch()
    if not len(frames):
        return batch
    # Imported here so that numba loads with the first read, not with the server (a restart reads nothing).
    from trainboard.normaliser import scalar_kernel

    decoded = scalar_kernel.decode(frames.data, frames.starts, frames.lengths)
    simple = decoded[0]
    boundaries = np.flatnonzero(np.diff(simple.view(np.int8))) + 1
    for start, stop in zip(np.r_[0, boundaries], np.r_[boundaries, len(simple)], strict=True):
        if simple[start] and _bulk_scalars(frames, decoded, int(start), int(stop), state, batch):
            continue
        for index in range(start, stop):
            event = parse_event(frames.payload(index), path=path, offset=frames.record_offset(index))
            if event is not None:
                normalise_event(event, state, batch)
    return batch


def _bulk_scalars(
    frames: Frames, decoded: tuple[np.ndarray, ...], start: int, stop: int, state: RunState, batch: Batch
) -> bool:
    """Keep records start..stop, all simple scalar events, as one column series per tag; False (nothing done) when
    the general path must take them: a step going back in an old-format file, a tag that is not a scalar series,
    a tag that is not UTF-8, or a hash collision."""
    _, wall_times, steps, records, tag_starts, tag_lengths, hashes, values = decoded
    steps, wall_times = steps[start:stop], wall_times[start:stop]
    if state.file_version is None or state.file_version < 2:
        previous = np.r_[state.most_recent_step, steps[:-1]]
        if (steps < previous).any():
            return False
    first, last = np.searchsorted(records, [start, stop])
    groups_of = hashes[first:last]
    unique, representatives, groups = np.unique(groups_of, return_index=True, return_inverse=True)
    from trainboard.normaliser import scalar_kernel

    if not scalar_kernel.same_tags(
        frames.data, tag_starts[first:last], tag_lengths[first:last], groups, representatives
    ):
        return False
    try:
        tags = [
            frames.data[tag_starts[first + index] : tag_starts[first + index] + tag_lengths[first + index]]
            .tobytes()
            .decode("utf-8")
            for index in representatives
        ]
    except UnicodeDecodeError:
        return False
    known = [state.first_metadata.get(tag) for tag in tags]
    if any(metadata is not None and metadata.data_class != DataClass.SCALAR for metadata in known):
        return False
    if state.start_time is None:
        state.start_time = float(wall_times[0])
    state.most_recent_step = int(steps[-1])
    value_records = records[first:last] - start
    order = np.argsort(groups, kind="stable")
    bounds = np.searchsorted(groups[order], np.arange(len(unique) + 1))
    for group, (tag, metadata) in enumerate(zip(tags, known, strict=True)):
        if metadata is None:
            state.first_metadata[tag] = batch.metadata[tag] = SeriesMetadata(
                plugin_name="scalars", data_class=DataClass.SCALAR, display_name=tag
            )
        members = order[bounds[group] : bounds[group + 1]]
        of_records = value_records[members]
        batch.operations.append(
            ScalarSeries(tag, steps[of_records], wall_times[of_records], values[first:last][members])
        )
    return True
