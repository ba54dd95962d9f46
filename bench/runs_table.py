"""The runs table (issue 25): p50 of a filter over whole series and of a sort, on --runs runs x --tags scalar tags,
on SQLite and PostgreSQL, through the provider (the SQL that the HTTP route and `runs()` run).

    .venv/bin/python -m bench.runs_table [--runs 10000 --tags 50] [--repeat 21]

Each store is built directly in SQL (runs, two hparams each, and every series with the summary the write path would
leave after 20 points: the runs table reads nothing else), so that 500,000 series take seconds rather than the write
path's tens of minutes on PostgreSQL; PostgreSQL is started here, on loopback, as the tests start it. Each query asks
for a page of 100 rows with 6 columns; figures go to stdout, with the load average (the wall times of a shared machine
are those of its load) and this process's CPU time (SQLite's work; PostgreSQL's is its server's).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import re2

from tests.pgserver import postgres_server
from trainboard.normaliser.points import DataClass
from trainboard.provider.provider import DataProvider
from trainboard.store.opening import open_store
from trainboard.store.run_filter import parse, parse_terms
from trainboard.store.runs_table import SortKey, TableQuery
from trainboard.store.store import Store
from trainboard.store.summaries import COLUMNS

# Each series as if 20 points were written, a second apart from START.
POINTS = 20
START = 1_700_000_000.0
TABLE_COLUMNS = "status, lr, optimizer, last(loss), max(val/acc), step_of_max(val/acc)"
QUERIES = {
    "filter": ("max(val/acc) > 0.9 and lr < 0.05", ""),
    "filter, 3 functions": ("max(val/acc) > 0.5 and min(loss) < 0.9 and mean(tag7) > 0 or status = running", ""),
    "sort": ("", "-max(val/acc)"),
    "filter + sort": ("max(val/acc) > 0.9 and optimizer = adam", "-mean(loss)"),
}


def _rows(experiment_id: str, runs: int, tags: int) -> Iterator[tuple[str, dict[str, Any], list[tuple[Any, ...]]]]:
    """Per run: its name, its hparams and the summary of each of its series (the columns of `series`, as the write
    path leaves them after `POINTS` points: trainboard.store.summaries)."""
    rng = np.random.default_rng(25)
    names = ["loss", "val/acc", *(f"tag{index}" for index in range(tags - 2))]
    for run in range(runs):
        hparams = {"lr": 10.0 ** -(run % 4), "optimizer": ("adam", "sgd")[run % 2]}
        low, high = rng.random(tags) * 0.5, 0.5 + rng.random(tags) * 0.5
        steps = rng.integers(0, POINTS, (2, tags))
        series = [
            (
                tag,
                float(low[i]),
                int(steps[0, i]),
                float(high[i]),
                int(steps[1, i]),
                float(low[i] + high[i]) * POINTS / 2,
            )
            for i, tag in enumerate(names)
        ]
        yield f"run{run:05d}", hparams, series


SERIES_COLUMNS = (
    "experiment_id, run_id, tag, plugin_name, data_class, plugin_content, display_name, description, point_count,"
    f" max_step, max_wall_time, {', '.join(COLUMNS)}"
)


def _series_row(experiment_id: str, run_id: int, summary: tuple[Any, ...]) -> tuple[Any, ...]:
    tag, low, low_step, high, high_step, total = summary
    end = START + POINTS - 1
    return (
        *(experiment_id, run_id, tag, "scalars", int(DataClass.SCALAR), b"", tag, "", POINTS, POINTS - 1, end),
        *(0, low, low_step, high, high_step, total, 0, START, high, POINTS - 1, end, low),
    )


def build_sqlite(path: str, runs: int, tags: int) -> str:
    store = open_store(path)
    experiment_id = store.create_experiment("runs-table").id
    store.close()
    with sqlite3.connect(path) as db:
        for name, hparams, series in _rows(experiment_id, runs, tags):
            (run_id,) = db.execute(
                "INSERT INTO runs (experiment_id, name, start_time, last_step, last_wall_time) VALUES (?, ?, ?, ?, ?)"
                " RETURNING id",
                (experiment_id, name, START, POINTS - 1, START + POINTS - 1),
            ).fetchone()
            db.executemany(
                "INSERT INTO run_hparams (experiment_id, run_id, name, number, text) VALUES (?, ?, ?, ?, ?)",
                [
                    (experiment_id, run_id, "lr", hparams["lr"], None),
                    (experiment_id, run_id, "optimizer", None, hparams["optimizer"]),
                ],
            )
            db.executemany(
                f"INSERT INTO series ({SERIES_COLUMNS}) VALUES ({', '.join('?' * (11 + len(COLUMNS)))})",
                [_series_row(experiment_id, run_id, summary) for summary in series],
            )
        db.execute("ANALYZE")
    return experiment_id


def build_postgres(url: str, runs: int, tags: int) -> str:
    store = open_store(url)
    experiment_id = store.create_experiment("runs-table").id
    store.close()
    with psycopg.connect(url) as connection:
        for name, hparams, series in _rows(experiment_id, runs, tags):
            run_id = connection.execute(
                "INSERT INTO runs (experiment_id, name, start_time, last_step, last_wall_time)"
                " VALUES (%s, %s, %s, %s, %s) RETURNING run_id",
                (experiment_id, name, START, POINTS - 1, START + POINTS - 1),
            ).fetchall()[0][0]
            connection.execute(
                "INSERT INTO run_hparams (experiment_id, run_id, name, number, text) VALUES (%s, %s, 'lr', %s, NULL),"
                " (%s, %s, 'optimizer', NULL, %s)",
                (experiment_id, run_id, hparams["lr"], experiment_id, run_id, hparams["optimizer"]),
            )
            with connection.cursor().copy(f"COPY series ({SERIES_COLUMNS}) FROM STDIN") as copy:
                for summary in series:
                    copy.write_row(_series_row(experiment_id, run_id, summary))
        connection.commit()
    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("VACUUM ANALYZE")
    return experiment_id


def p50(call: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Medians of the wall time and of this process's CPU time (SQLite's work; PostgreSQL's is its server's)."""
    call()  # warm-up
    times, cpu = [], []
    for _ in range(repeat):
        started, used = time.perf_counter(), time.process_time()
        call()
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return statistics.median(times), statistics.median(cpu)


def measure(name: str, store: Store, experiment_id: str, repeat: int) -> None:
    provider = DataProvider(store)
    columns = tuple(term for term, _ in parse_terms(TABLE_COLUMNS))
    for label, (where, sort) in QUERIES.items():
        query = TableQuery(
            where=parse(where, re2.compile) if where else None,
            columns=columns,
            sort=tuple(SortKey(term, descending) for term, descending in parse_terms(sort, descending=True))
            if sort
            else (),
            limit=100,
        )
        total = provider.runs_table(experiment_id=experiment_id, query=query).total
        seconds, cpu = p50(lambda query=query: provider.runs_table(experiment_id=experiment_id, query=query), repeat)  # type: ignore[misc]
        print(
            f"{name:10} {label:22} {seconds * 1000:7.1f} ms p50 wall, {cpu * 1000:6.1f} ms p50 CPU here"
            f"  ({total} runs kept)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--tags", type=int, default=50)
    parser.add_argument("--repeat", type=int, default=21)
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="trainboard-bench-runs-table-") as scratch, postgres_server() as postgres:
        for name, url in (
            ("SQLite", str(Path(scratch) / "store.sqlite")),
            ("PostgreSQL", postgres.create_database("runs_table")),
        ):
            started = time.perf_counter()
            experiment_id = (build_sqlite if name == "SQLite" else build_postgres)(url, arguments.runs, arguments.tags)
            built = time.perf_counter() - started
            print(f"{name:10} built {arguments.runs} runs x {arguments.tags} tags in {built:.0f} s", flush=True)
            store = open_store(url)
            try:
                measure(name, store, experiment_id, arguments.repeat)
                print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
            finally:
                store.close()


if __name__ == "__main__":
    main()
