"""The runs table (issue 25): p50 of a filter over whole series and of a sort, on --runs runs x --tags scalar tags,
on SQLite and PostgreSQL, in the process (`Store.runs_table`: the SQL the HTTP route and `runs()` run).

    .venv/bin/python -m bench.runs_table [--runs 10000 --tags 50 --points 20] [--repeat 21]

Each store is built directly (batches written as ingest writes them: an hparams session start and every tag's points
per run, 100 runs per transaction); PostgreSQL is started here, on loopback, as the tests start it. Each query goes
through the provider (as the HTTP route and `runs()` do) and asks for a page of 100 rows with 6 columns; figures go
to stdout, with the load average (the wall times of a shared machine are those of its load).
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import re2

from tests.pgserver import postgres_server
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.provider.provider import DataProvider
from trainboard.reader.hparams_names import HPARAMS_PLUGIN, SESSION_START_INFO_TAG
from trainboard.reader.protos import hparams_pb2
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.run_filter import parse, parse_terms
from trainboard.store.runs_table import SortKey, TableQuery
from trainboard.store.store import Store
from trainboard.store.writer import FileWrite

RUNS_PER_TRANSACTION = 100
COLUMNS = "status, lr, optimizer, last(loss), max(val/acc), step_of_max(val/acc)"
QUERIES = {
    "filter": ("max(val/acc) > 0.9 and lr < 0.05", ""),
    "filter, 3 functions": ("max(val/acc) > 0.5 and min(loss) < 0.9 and mean(tag7) > 0 or status = running", ""),
    "sort": ("", "-max(val/acc)"),
    "filter + sort": ("max(val/acc) > 0.9 and optimizer = adam", "-mean(loss)"),
}


def _session(lr: float, optimizer: str) -> SeriesMetadata:
    start = hparams_pb2.SessionStartInfo()
    start.hparams["lr"].number_value = lr
    start.hparams["optimizer"].string_value = optimizer
    content = hparams_pb2.HParamsPluginData(session_start_info=start).SerializeToString()
    return SeriesMetadata(plugin_name=HPARAMS_PLUGIN, data_class=DataClass.TENSOR, plugin_content=content)


def build(store: Store, runs: int, tags: int, points: int) -> str:
    experiment_id = store.create_experiment("runs-table").id
    rng = np.random.default_rng(25)
    names = ["loss", "val/acc", *(f"tag{index}" for index in range(tags - 2))]
    scalar = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)
    steps = np.arange(points, dtype=np.int64)
    for first in range(0, runs, RUNS_PER_TRANSACTION):
        writes = []
        for run in range(first, min(runs, first + RUNS_PER_TRANSACTION)):
            operations = [ScalarSeries(name, steps, 1_700_000_000.0 + steps, rng.random(points)) for name in names]
            metadata = {name: scalar for name in names}
            metadata[SESSION_START_INFO_TAG] = _session(10.0 ** -(run % 4), ("adam", "sgd")[run % 2])
            cursor = FileCursor(path=f"/run{run}", offset=1, size=1, mtime=0.0, head=b"")
            batch = Batch(operations=list(operations), metadata=metadata)
            writes.append(FileWrite(f"run{run:05d}", cursor, RunState(), batch, restarted=False, previous=None))
        store.write_batches(experiment_id, writes)
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
    columns = tuple(term for term, _ in parse_terms(COLUMNS))
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
    parser.add_argument("--points", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=21)
    arguments = parser.parse_args()
    shape = (arguments.runs, arguments.tags, arguments.points)
    with tempfile.TemporaryDirectory(prefix="trainboard-bench-runs-table-") as scratch, postgres_server() as postgres:
        for name, url in (
            ("SQLite", str(Path(scratch) / "store.sqlite")),
            ("PostgreSQL", postgres.create_database("runs_table")),
        ):
            store = open_store(url)
            try:
                started = time.perf_counter()
                experiment_id = build(store, *shape)
                built = time.perf_counter() - started
                print(f"{name:10} built {arguments.runs} runs x {arguments.tags} tags in {built:.0f} s", flush=True)
                measure(name, store, experiment_id, arguments.repeat)
                print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores", flush=True)
            finally:
                store.close()


if __name__ == "__main__":
    main()
