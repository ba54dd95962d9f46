"""`trainboard.open` while `trainboard --logdir` serves and writes the same store: it reads, and writes nothing."""

from __future__ import annotations

from pathlib import Path

import trainboard
from tests import loopback
from tests.servers import trainboard_server


def test_open_reads_the_store_a_server_is_writing(full_logdir: Path, tmp_path: Path) -> None:
    with trainboard_server(full_logdir, tmp_path) as server:
        store = tmp_path / "store.sqlite"
        with trainboard.open(f"sqlite:{store}") as by_url:
            points = by_url.scalars()
        # The logdir, on the server's store: the server holds the writer's claim, so this only reads.
        with trainboard.open(full_logdir, db=str(store)) as by_logdir:
            assert by_logdir.id == by_url.id
            assert len(by_logdir.scalars()) == len(points) > 0
        assert loopback.get(f"{server.url}/data/runs", timeout=30).raise_for_status().json()
