"""The reader fuzzed at scale: 1,000,000 seeded inputs of tests/reader/fuzzing.py (truncations, bit flips, garbage,
giant claimed lengths, records split across reads of a growing file), each checked as the CI test checks its 100,000:
every intact record read once and in order, damage logged once, nothing raised, reading stopping.

    .venv/bin/python -m bench.fuzz [--inputs 1000000] [--start 0]

Prints inputs/s, the records checked and the failures (seed, damage, what went wrong); exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import logging
import sys
import time

from tests.reader.fuzzing import verdicts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--inputs", type=int, default=1_000_000)
    parser.add_argument("--start", type=int, default=0, help="first seed (CI's test takes 0 to 99,999)")
    arguments = parser.parse_args()
    seeds = range(arguments.start, arguments.start + arguments.inputs)
    started = time.perf_counter()
    wrong = records = 0
    for found, what in verdicts(seeds, logging.getLogger("trainboard.reader")):
        records += len(found.expected)
        if what is not None:
            wrong += 1
            print(f"seed {found.seed} ({found.damage}): {what}", flush=True)
    elapsed = time.perf_counter() - started
    print(
        f"{len(seeds):,} inputs in {elapsed:.0f} s ({len(seeds) / elapsed:,.0f} inputs/s); "
        f"{records:,} intact records checked; {wrong} failures"
    )
    sys.exit(1 if wrong else 0)


if __name__ == "__main__":
    main()
