"""What a pin costs in storage (issue 27): bytes per pin and per series of the pinned experiment, on SQLite and on
PostgreSQL (started here, on loopback, as the tests start it).

    .venv/bin/python -m bench.pin_bytes [--runs 10 --tags 100 --pins 100]

A pin is a row per run and per series of its experiment (`trainboard.store.pinned`), so its size grows with the
number of series and with nothing else (not with the points). Measured as the growth of the pin tables over
--pins pins: SQLite's `dbstat` pages, PostgreSQL's `pg_total_relation_size` after a VACUUM.
"""

from __future__ import annotations

import argparse
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

import psycopg

from tests.commands import in_process_command as cli
from tests.pgserver import postgres_server
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record
from trainboard.store.opening import open_store

PIN_TABLES = ("pins", "pin_runs", "pin_series")


def write_logdir(logdir: Path, runs: int, tags: int) -> None:
    for run in range(runs):
        (logdir / f"run{run}").mkdir(parents=True)
        with (logdir / f"run{run}" / "events.out.tfevents.1.host").open("wb") as stream:
            for step in range(5):
                event = Event(wall_time=1.0 + step, step=step)
                for tag in range(tags):
                    event.summary.value.add(tag=f"group/metric_{tag}", simple_value=0.5)
                write_record(stream, event.SerializeToString())


def measure(db: str, logdir: Path, pins: int, size: Callable[[], int]) -> tuple[int, float]:
    """Series of the experiment, and bytes per pin."""
    cli("ingest", f"--db={db}", "--experiment=pinned", f"--logdir={logdir}")
    store = open_store(db)
    try:
        experiment_id = store.experiments()[0].id
        series = len(store.series(experiment_id))
        before = size()
        for _ in range(pins):
            store.create_pin(experiment_id, creator=1)
        return series, (size() - before) / pins
    finally:
        store.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--tags", type=int, default=100)
    parser.add_argument("--pins", type=int, default=100)
    args = parser.parse_args()
    scratch = Path(tempfile.mkdtemp(prefix="pin_bytes-"))
    write_logdir(scratch / "logs", args.runs, args.tags)

    path = scratch / "store.sqlite"

    def sqlite_size() -> int:
        with sqlite3.connect(path) as connection:
            names = " OR ".join(f"name LIKE '%{table}%'" for table in PIN_TABLES)
            return int(connection.execute(f"SELECT coalesce(sum(pgsize), 0) FROM dbstat WHERE {names}").fetchone()[0])

    results = {"sqlite": measure(f"sqlite:{path}", scratch / "logs", args.pins, sqlite_size)}
    with postgres_server() as server:
        url = server.create_database("pin_bytes")

        def postgres_size() -> int:
            with psycopg.connect(url, autocommit=True) as connection:
                connection.execute("VACUUM ANALYZE " + ", ".join(PIN_TABLES))
                sizes = [connection.execute("SELECT pg_total_relation_size(%s)", (t,)).fetchone() for t in PIN_TABLES]
                return sum(int(found[0]) for found in sizes if found is not None)

        results["postgresql"] = measure(url, scratch / "logs", args.pins, postgres_size)
    for backend, (series, per_pin) in results.items():
        print(f"{backend}: {series} series, {per_pin:,.0f} bytes per pin, {per_pin / series:.0f} bytes per series")


if __name__ == "__main__":
    main()
