"""The reader fuzzed with 100,000 seeded inputs (tests/reader/fuzzing.py): truncations at any byte, bit flips, garbage,
headers claiming giant lengths, records split across reads of a growing file. bench/fuzz.py runs 1,000,000."""

from __future__ import annotations

import logging

import pytest

from tests.kernels import WAYS, running
from tests.reader.fuzzing import DAMAGE, case, verdicts

# The pure-Python framing is compared with the kernel's in tests/reader/test_frames.py: fewer inputs suffice here.
# Other seeds, so other paths: the reader says each damage of a path once in a process.
SEEDS = {"compiled": range(100_000), "pure-python": range(100_000, 105_000)}
READER = logging.getLogger("trainboard.reader")


@pytest.mark.parametrize("way", WAYS)
def test_every_intact_record_is_read_once_in_order_and_damage_is_logged_once(way: str) -> None:
    with running(way, "trainboard.reader._framing"):
        wrong = [(found.seed, found.damage, what) for found, what in verdicts(SEEDS[way], READER) if what is not None]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("damage", DAMAGE)
def test_the_inputs_hold_every_kind_of_damage_and_split_reads(damage: str) -> None:
    cases = [found for seed in range(2000) if (found := case(seed)).damage == damage]
    assert len(cases) > 200
    assert any(len(found.growth) > 1 for found in cases) and any(found.limit < 200 for found in cases)
    assert any(found.warnings for found in cases) == (damage not in ("none", "truncated"))
