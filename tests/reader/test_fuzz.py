"""The reader fuzzed with 100,000 seeded inputs (tests/reader/fuzzing.py): truncations at any byte, bit flips, garbage,
headers claiming giant lengths, records split across reads of a growing file. bench/fuzz.py runs 1,000,000."""

from __future__ import annotations

import logging

import pytest

from tests.reader.fuzzing import DAMAGE, case, verdicts

INPUTS = 100_000
READER = logging.getLogger("trainboard.reader")


def test_every_intact_record_is_read_once_in_order_and_damage_is_logged_once() -> None:
    wrong = [(found.seed, found.damage, what) for found, what in verdicts(range(INPUTS), READER) if what is not None]
    assert not wrong, wrong[:10]


@pytest.mark.parametrize("damage", DAMAGE)
def test_the_inputs_hold_every_kind_of_damage_and_split_reads(damage: str) -> None:
    cases = [found for seed in range(2000) if (found := case(seed)).damage == damage]
    assert len(cases) > 200
    assert any(len(found.growth) > 1 for found in cases) and any(found.limit < 200 for found in cases)
    assert any(found.warnings for found in cases) == (damage not in ("none", "truncated"))
