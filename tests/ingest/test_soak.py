"""A 30-second soak (bench/soak.py): `trainboard --logdir` killed with SIGKILL twice while writers append and clients
read; no read fails while it is up, and the store it leaves answers every route as a cold load of the logdir does."""

from __future__ import annotations

from pathlib import Path

from bench.soak import parser, report, run


def test_a_server_killed_while_writers_append_ends_as_a_cold_load(tmp_path: Path) -> None:
    args = parser().parse_args(
        ["--minutes=0.5", "--writers=3", "--clients=6", "--restart_every=7", "--step_seconds=0.1"]
    )
    outcome = run(tmp_path, args)
    figures = outcome.figures
    assert len(figures.first_answers) - 1 >= 2, report(outcome, args)
    assert not figures.errors, report(outcome, args)
    assert sum(len(times) for times in figures.latencies.values()) > 100, report(outcome, args)
    assert outcome.soaked_points == outcome.cold_points > 0, report(outcome, args)
    assert outcome.compared > 50 and not outcome.problems, report(outcome, args)
    assert outcome.tracebacks == 0, report(outcome, args)
