"""The C framing kernel and its pure-Python twin (trainboard.reader.frames) answer alike on the fuzz inputs
(tests/reader/fuzzing.py: truncations, bit flips, garbage, headers claiming giant lengths), from any position."""

from __future__ import annotations

import numpy as np

from tests.kernels import running
from tests.reader.fuzzing import case
from trainboard.reader import frames

KERNEL = "trainboard.reader._framing"
SEEDS = 150


def _answers(way: str) -> list[tuple[object, ...]]:
    """frame and find_header of each fuzz input from each position."""
    answers: list[tuple[object, ...]] = []
    with running(way, KERNEL):
        for seed in range(SEEDS):
            data = np.frombuffer(case(seed).data, dtype=np.uint8)
            for position in range(-1, len(data) + 1):
                starts, lengths, intact, stop, reason = frames.frame(data, position)
                # Every fourth position only: in Python a search from each position costs a pass over the rest.
                header = frames.find_header(data, position) if position % 4 == 0 else None
                answers.append(
                    (seed, position, starts.tolist(), lengths.tolist(), intact.tolist(), stop, reason, header)
                )
    return answers


def test_the_python_framing_is_the_kernels() -> None:
    differing = [
        (compiled, python)
        for compiled, python in zip(_answers("compiled"), _answers("pure-python"), strict=True)
        if compiled != python
    ]
    assert not differing, differing[:3]


def test_the_fuzz_inputs_reach_every_answer() -> None:
    """The comparison above is worth something: framing stops both ways, and finds no header too."""
    reasons, headers = set(), set()
    for seed in range(SEEDS):
        data = np.frombuffer(case(seed).data, dtype=np.uint8)
        reasons.add(frames.frame(data, 0)[4])
        headers.add(frames.find_header(data, 1) >= 0)
    assert reasons == {frames.STOPPED_AT_END, frames.STOPPED_AT_CORRUPT_HEADER} and headers == {True, False}
