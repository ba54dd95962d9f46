"""Ctrl+C and SIGTERM stop `trainboard` as users expect: a clean shutdown, exit status 0, no traceback, and the store
committed so that a restart serves the same points without reading them again."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import pytest

from tests import loopback
from tests.cli.logs import write_run
from tests.cli.process import trainboard

STEPS = 500


def served_points(url: str) -> list[list[float]]:
    points: list[list[float]] = loopback.get(f"{url}data/scalars", params={"run": "run", "tag": "loss"}).json()
    return points


@pytest.mark.parametrize("number", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_shuts_down_cleanly_and_the_store_keeps_every_point(number: signal.Signals, tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", steps=STEPS)
    flags = (f"--logdir={tmp_path / 'logs'}", "--port=0", f"--db={tmp_path / 'store.sqlite'}")
    with trainboard(tmp_path / "first", *flags) as server:
        before = served_points(server.url)
        # As Ctrl+C in a terminal does: to the process group (trainboard runs in a session of its own).
        os.killpg(server.process.pid, number)
        assert server.process.wait(60) == 0
    assert [step for _, step, _ in before] == list(range(STEPS))
    assert "Traceback" not in server.errors()
    assert server.stdout.read_text() == ""
    with trainboard(tmp_path / "second", *flags) as server:
        assert served_points(server.url) == before
        assert "ingest done: 1/1 files, 0.0/0.0 MB, 0 new points" in server.errors()
