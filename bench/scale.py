"""The store at team scale (issue 28, item 5): --points scalar points in 1,000 runs across 10 experiments, on one
PostgreSQL and on a Citus cluster of a coordinator and two workers (tests/citus.py), all on this machine.

    nice -n 10 .venv/bin/python -m bench.scale [--points 100000000] [--backend postgres,citus] [--writers 2]
        [--clients 100 --seconds 30]

The points are written through trainboard's own write path, `Store.write_batch` of normalised batches (what
`trainboard ingest` and an upload's chunk commit after reading and normalising records; the reading and parsing of
event files is left out, bench/store.py and bench/upload.py measure those): every run is one file of 20 scalar tags
(`loss`, `val/acc`, `tag02`...) with two hyperparameters, committed in batches of about --batch points (an upload
chunk of 4 MiB holds about 50,000), one experiment per writer process at a time, --writers processes at once.
Experiment 0 also holds one series of --long points (default a tenth of --points; 10,000,000 at full size), which
counts in --points.

Figures, for each backend: ingest points/s (wall) and points per CPU-second (the writers' and every database node's
processes, read from /proc: the per-core rate, which does not depend on what else shares the machine); bytes per point
(every table's heap, TOAST and indexes on every node, over the points); the long series downsampled to 1,000 points
(p50 of 30, in the process and over HTTP); the runs table of an experiment's runs with summary columns and a sort
(p50 of 21 per experiment, in the process and over HTTP); and --clients concurrent dashboard clients on two `serve`
replicas for --seconds (each asks, as fast as it can, for the tags, one run's scalars or the runs table of a random
experiment; p50 and p99 of each route). PostgreSQL and the cluster are started here, on loopback, as the tests start
them (fsync off: their data is thrown away).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import psycopg

from bench.store import Timings, percentile
from tests.citus import citus_cluster, citus_installed
from tests.pgserver import PostgresServer, postgres_server
from tests.servers import store_serving
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata, TensorPoint
from trainboard.plugins.hparams.metadata import SESSION_START_INFO_TAG
from trainboard.provider.provider import DataProvider
from trainboard.reader.protos.hparams_pb2 import HParamsPluginData
from trainboard.reader.tail import FileCursor
from trainboard.store.opening import open_store
from trainboard.store.run_filter import parse_terms
from trainboard.store.runs_table import SortKey, TableQuery
from trainboard.store.writer import FileWrite

RUNS = 1_000
TAGS = ["loss", "val/acc", *(f"tag{index:02d}" for index in range(2, 20))]
START = 1_700_000_000.0
LONG_CHUNK = 1_000_000
READS = 30
TABLE_READS = 21
TABLE_COLUMNS = "status,lr,optimizer,last(loss),min(loss),max(val/acc),step_of_max(val/acc)"
TABLE_SORT = "-max(val/acc)"
SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)


@dataclass(frozen=True, slots=True)
class Layout:
    points: int
    long: int
    batch: int
    writers: int
    experiments: int

    @property
    def runs(self) -> int:
        """Runs per experiment."""
        return RUNS // self.experiments

    @property
    def steps(self) -> int:
        """Steps per tag of every run: the points besides the long series, over the runs' series."""
        return (self.points - self.long) // (RUNS * len(TAGS))

    @property
    def written(self) -> int:
        return self.steps * RUNS * len(TAGS) + self.long


@dataclass(frozen=True, slots=True)
class Written:
    points: int
    commits: int
    cpu: float


def _session_start(run: int) -> bytes:
    data = HParamsPluginData(version=0)
    info = data.session_start_info
    info.hparams["lr"].number_value = 10.0 ** -(run % 4)
    info.hparams["optimizer"].string_value = ("adam", "sgd")[run % 2]
    return data.SerializeToString()


def write_experiment(url: str, experiment_id: str, number: int, layout: Layout) -> Written:
    """Write the experiment's runs (and, in experiment 0, the long series) through `Store.write_batch`."""
    used = time.process_time()
    store = open_store(url)
    rng = np.random.default_rng(number)
    points = commits = 0
    per_batch = max(1, layout.batch // len(TAGS))
    try:
        for run in range(layout.runs):
            name, previous = f"run{run:03d}", None
            walks = rng.normal(0, 0.01, (len(TAGS), layout.steps)).cumsum(axis=1)
            for start in range(0, layout.steps, per_batch):
                steps = np.arange(start, min(start + per_batch, layout.steps), dtype=np.int64)
                batch = Batch(
                    [ScalarSeries(tag, steps, START + steps, walks[index, steps]) for index, tag in enumerate(TAGS)],
                    dict.fromkeys(TAGS, SCALARS),
                )
                if previous is None:
                    content = _session_start(run)
                    batch.metadata[SESSION_START_INFO_TAG] = SeriesMetadata("hparams", DataClass.TENSOR, content)
                    batch.operations.insert(0, TensorPoint(SESSION_START_INFO_TAG, 0, START, b""))
                cursor = FileCursor(path=f"/{name}/events", offset=int(steps[-1]) + 1, size=0, mtime=0.0, head=b"")
                store.write_batch(
                    experiment_id, FileWrite(name, cursor, RunState(), batch, restarted=False, previous=previous)
                )
                previous = cursor
                points += len(steps) * len(TAGS)
                commits += 1
        if number == 0 and layout.long:
            previous = None
            for start in range(0, layout.long, LONG_CHUNK):
                steps = np.arange(start, min(start + LONG_CHUNK, layout.long), dtype=np.int64)
                batch = Batch([ScalarSeries("x", steps, START + steps / 10, np.sin(steps / 1000))], {"x": SCALARS})
                cursor = FileCursor(path="/long/events", offset=int(steps[-1]) + 1, size=0, mtime=0.0, head=b"")
                store.write_batch(
                    experiment_id, FileWrite("long", cursor, RunState(), batch, restarted=False, previous=previous)
                )
                previous = cursor
                points += len(steps)
                commits += 1
    finally:
        store.close()
    return Written(points, commits, time.process_time() - used)


def _cpu_seconds(pid: int) -> tuple[float, float]:
    """A process's own CPU seconds and those of its children that ended, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    tick = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / tick, (int(fields[13]) + int(fields[14])) / tick


def _children_cpu(parents: set[int]) -> float:
    """CPU seconds used so far by the live children of `parents`, by themselves."""
    total = 0.0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            if parent in parents:
                total += _cpu_seconds(int(entry.name))[0]
        except (FileNotFoundError, ProcessLookupError, IndexError, ValueError):
            continue
    return total


def replicas_cpu() -> float:
    """CPU seconds used so far by this process's live children: the `serve` replicas."""
    return _children_cpu({os.getpid()})


def server_cpu(nodes: Sequence[PostgresServer]) -> float:
    """CPU seconds used so far by the database nodes: each postmaster, its backends alive, and those that ended."""
    postmasters = {int((node.log.parent / "data" / "postmaster.pid").read_text().split()[0]): node for node in nodes}
    return sum(sum(_cpu_seconds(pid)) for pid in postmasters) + _children_cpu(set(postmasters))


@dataclass(frozen=True, slots=True)
class Database:
    """A trainboard database on one PostgreSQL or on a cluster: the URL processes open, and every node's."""

    name: str
    url: str
    nodes: tuple[PostgresServer, ...]
    node_urls: tuple[str, ...]


@contextmanager
def database(backend: str) -> Iterator[Database]:
    if backend == "postgres":
        with postgres_server() as server:
            url = server.create_database("scale")
            yield Database("PostgreSQL", url, (server,), (url,))
        return
    with citus_cluster() as cluster:
        for attempt in range(5):
            try:
                url = cluster.create_database("scale")
                break
            except psycopg.errors.ObjectInUse:
                # Citus' maintenance daemon came back to the template database; it leaves again.
                if attempt == 4:
                    raise
                time.sleep(2)
        name = url.rsplit("/", 1)[1]
        yield Database("Citus, 3 nodes", url, cluster.nodes, tuple(node.database_url(name) for node in cluster.nodes))


def store_bytes(db: Database) -> int:
    """Heap, TOAST and indexes of every table of trainboard's schema on every node (a worker's shards are tables
    there; the coordinator's copies of distributed tables are empty)."""
    total = 0
    for url in db.node_urls:
        with psycopg.connect(url) as connection:
            # Citus hides a worker's shards from the catalog unless told not to (a plain PostgreSQL takes the setting
            # as a placeholder).
            connection.execute("SET citus.override_table_visibility = off")
            total += connection.execute(
                "SELECT coalesce(sum(pg_total_relation_size(c.oid)), 0) FROM pg_class c"
                " JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'"
            ).fetchone()[0]  # type: ignore[index]
    return int(total)


def analyze(db: Database) -> None:
    """What autovacuum does soon after a large write, done at once so that the reads below see planned tables."""
    for url in db.node_urls:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("VACUUM ANALYZE")


def p50_ms(call: Callable[[], object], repeat: int) -> float:
    call()  # warm-up
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        call()
        times.append((time.perf_counter() - started) * 1000)
    return statistics.median(times)


def cpu_ms(call: Callable[[], object], repeat: int, nodes: Sequence[PostgresServer]) -> float:
    """Mean CPU milliseconds of a call, in this process and in the database: what it costs on an idle core."""
    call()  # warm-up
    before, used = server_cpu(nodes), time.process_time()
    for _ in range(repeat):
        call()
    return (server_cpu(nodes) - before + time.process_time() - used) * 1000 / repeat


def table_query() -> TableQuery:
    return TableQuery(
        columns=tuple(term for term, _ in parse_terms(TABLE_COLUMNS)),
        sort=tuple(SortKey(term, descending) for term, descending in parse_terms(TABLE_SORT, descending=True)),
        limit=100,
    )


def table_path(experiment_id: str) -> str:
    return f"/experiment/{experiment_id}/data/trainboard/runs_table?columns={TABLE_COLUMNS}&sort={TABLE_SORT}"


def answered(http: httpx.Client, path: str) -> httpx.Response:
    return http.get(path).raise_for_status()


def scalars_path(experiment_id: str, run: str, tag: str) -> str:
    return f"/experiment/{experiment_id}/data/plugin/scalars/scalars?run={run}&tag={tag}"


async def load(urls: list[str], experiments: list[str], runs: int, clients: int, seconds: float) -> Timings:
    """`clients` clients each ask, as fast as they can for `seconds`, from either replica, for the scalar tags of a
    random experiment, one run's scalars (three times as often) or its runs table."""
    timings = Timings({"tags": [], "scalars": [], "runs table": []})
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)

    async def client(number: int, http: httpx.AsyncClient) -> None:
        chooser = random.Random(number)
        while time.perf_counter() < deadline:
            experiment_id = chooser.choice(experiments)
            route = chooser.choice(("tags", "scalars", "scalars", "scalars", "runs table"))
            if route == "tags":
                path = f"/experiment/{experiment_id}/data/plugin/scalars/tags"
            elif route == "scalars":
                path = scalars_path(experiment_id, f"run{chooser.randrange(runs):03d}", chooser.choice(TAGS))
            else:
                path = table_path(experiment_id)
            started = time.perf_counter()
            try:
                status = (await http.get(chooser.choice(urls) + path)).status_code
                failure = str(status) if status >= 400 else None
            except httpx.TransportError as error:
                failure = type(error).__name__
            if failure is None:
                timings.routes[route].append((time.perf_counter() - started) * 1000)
            else:
                timings.errors[failure] += 1

    async with httpx.AsyncClient(timeout=120, limits=limits) as http:
        await asyncio.gather(*(client(number, http) for number in range(clients)))
    return timings


def bench(backend: str, layout: Layout, clients: int, seconds: float, scratch: Path) -> dict[str, float]:
    figures: dict[str, float] = {}
    with database(backend) as db:
        store = open_store(db.url)
        experiments = [store.create_experiment(f"scale{number}").id for number in range(layout.experiments)]
        store.close()
        print(f"{db.name}: writing {layout.written:,} points ...", file=sys.stderr, flush=True)
        nodes_before = [server_cpu([node]) for node in db.nodes]
        server_before, started = server_cpu(db.nodes), time.perf_counter()
        with ProcessPoolExecutor(layout.writers) as pool:
            written = list(
                pool.map(
                    write_experiment,
                    [db.url] * len(experiments),
                    experiments,
                    range(len(experiments)),
                    [layout] * len(experiments),
                )
            )
        wall = time.perf_counter() - started
        server = server_cpu(db.nodes) - server_before
        by_node = [server_cpu([node]) - before for node, before in zip(db.nodes, nodes_before, strict=True)]
        points = sum(part.points for part in written)
        client = sum(part.cpu for part in written)
        figures.update(
            points=points,
            commits=sum(part.commits for part in written),
            ingest_seconds=wall,
            ingest_rate=points / wall,
            writer_cpu=client,
            server_cpu=server,
            per_core=points / (client + server),
        )
        print(
            f"{db.name}: {points:,} points in {wall:.0f} s: {points / wall:,.0f} points/s; CPU {client:.0f} s in the"
            f" writers, {server:.0f} s in the database: {figures['per_core']:,.0f} points per CPU-second",
            file=sys.stderr,
            flush=True,
        )
        if len(by_node) > 1:
            figures["coordinator_cpu"] = by_node[0]
            print(
                f"{db.name}: database CPU by node (coordinator first): {', '.join(f'{cpu:.0f} s' for cpu in by_node)}",
                file=sys.stderr,
                flush=True,
            )
        analyze(db)
        figures["bytes_per_point"] = store_bytes(db) / points
        store = open_store(db.url)
        try:
            (long_row,) = store.series(experiments[0], runs=["long"], tags=["x"])
            figures["long_in_process"] = p50_ms(
                lambda: store.scalars(experiments[0], long_row.id, downsample=1000), READS
            )
            figures["long_cpu"] = cpu_ms(
                lambda: store.scalars(experiments[0], long_row.id, downsample=1000), READS, db.nodes
            )
            provider = DataProvider(store)
            figures["table_in_process"] = statistics.median(
                p50_ms(
                    functools.partial(provider.runs_table, experiment_id=experiment_id, query=table_query()),
                    TABLE_READS,
                )
                for experiment_id in experiments
            )
            figures["table_cpu"] = cpu_ms(
                lambda: provider.runs_table(experiment_id=experiments[0], query=table_query()), TABLE_READS, db.nodes
            )
        finally:
            store.close()
        with (
            store_serving(db.url, scratch / f"{backend}-a", "--no_auth") as first,
            store_serving(db.url, scratch / f"{backend}-b", "--no_auth") as second,
            httpx.Client(base_url=first, timeout=120) as http,
        ):
            long_path = scalars_path(experiments[0], "long", "x")
            assert len(http.get(long_path).raise_for_status().json()) == 1000
            figures["long_http"] = p50_ms(lambda: http.get(long_path).raise_for_status(), READS)
            rows = http.get(table_path(experiments[0])).raise_for_status().json()
            print(f"{db.name}: runs table answer: {str(rows)[:300]}", file=sys.stderr)
            figures["table_http"] = statistics.median(
                p50_ms(functools.partial(answered, http, table_path(experiment_id)), TABLE_READS)
                for experiment_id in experiments
            )
            before = (server_cpu(db.nodes), replicas_cpu(), time.process_time())
            started = time.perf_counter()
            timings = asyncio.run(load([first, second], experiments, layout.runs, clients, seconds))
            load_wall = time.perf_counter() - started
            database_cpu = server_cpu(db.nodes) - before[0]
            serve_cpu = replicas_cpu() - before[1]
            clients_cpu = time.process_time() - before[2]
        answers = sum(map(len, timings.routes.values()))
        figures["answers_per_second"] = answers / load_wall
        figures["load_database_cpu"] = database_cpu / load_wall
        figures["load_serve_cpu"] = serve_cpu / load_wall
        figures["load_clients_cpu"] = clients_cpu / load_wall
        figures["answers_per_cpu"] = answers / (database_cpu + serve_cpu)
        figures["errors"] = sum(timings.errors.values())
        every = [value for values in timings.routes.values() for value in values]
        for route, values in (*timings.routes.items(), ("all", every)):
            figures[f"{route} p50"] = percentile(values, 50)
            figures[f"{route} p99"] = percentile(values, 99)
        if timings.errors:
            print(f"{db.name}: errors under load: {dict(timings.errors)}", file=sys.stderr)
    return figures


def report(results: dict[str, dict[str, float]], layout: Layout, clients: int, seconds: float) -> None:
    names = list(results)
    print(
        f"\n{layout.written:,} scalar points: {RUNS:,} runs x {len(TAGS)} tags x {layout.steps:,} steps in"
        f" {layout.experiments} experiments + one series of {layout.long:,}; batches of {layout.batch:,} points,"
        f" {layout.writers} writer processes; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n"
    )
    print(f"| figure | {' | '.join(names)} |")
    print(f"| --- |{' ---: |' * len(names)}")
    rows: list[tuple[str, Callable[[dict[str, float]], str]]] = [
        ("ingest, wall", lambda f: f"{f['ingest_seconds']:,.0f} s"),
        ("ingest points/s", lambda f: f"{f['ingest_rate']:,.0f}"),
        ("CPU: writers + database", lambda f: f"{f['writer_cpu']:,.0f} s + {f['server_cpu']:,.0f} s"),
        ("points per CPU-second (per core)", lambda f: f"{f['per_core']:,.0f}"),
        ("store bytes per point", lambda f: f"{f['bytes_per_point']:.1f}"),
        (f"{layout.long:,}-point series to 1,000, in the process", lambda f: f"{f['long_in_process']:.1f} ms"),
        (f"{layout.long:,}-point series to 1,000, over HTTP", lambda f: f"{f['long_http']:.1f} ms"),
        (f"{layout.long:,}-point series to 1,000, CPU per read", lambda f: f"{f['long_cpu']:.1f} ms"),
        (f"runs table of {layout.runs} runs, in the process", lambda f: f"{f['table_in_process']:.1f} ms"),
        (f"runs table of {layout.runs} runs, over HTTP", lambda f: f"{f['table_http']:.1f} ms"),
        (f"runs table of {layout.runs} runs, CPU per read", lambda f: f"{f['table_cpu']:.1f} ms"),
        *(
            (
                f"{clients} clients: {route} p50 / p99",
                lambda f, route=route: f"{f[f'{route} p50']:.0f} / {f[f'{route} p99']:.0f} ms",
            )
            for route in ("tags", "scalars", "runs table", "all")
        ),
        (f"{clients} clients: answers/s", lambda f: f"{f['answers_per_second']:,.0f} ({f['errors']:.0f} errors)"),
        (
            "cores used under load: serve replicas, database, clients",
            lambda f: f"{f['load_serve_cpu']:.2f}, {f['load_database_cpu']:.2f}, {f['load_clients_cpu']:.2f}",
        ),
        ("answers per CPU-second of replicas + database", lambda f: f"{f['answers_per_cpu']:,.0f}"),
    ]
    for label, show in rows:
        print(f"| {label} | {' | '.join(show(results[name]) for name in names)} |")
    for name, figures in results.items():
        verdicts = (
            f"long series over HTTP p50 {figures['long_http']:.1f} ms (<= 50 ms:"
            f" {'met' if figures['long_http'] <= 50 else 'not met'}), runs table over HTTP p50"
            f" {figures['table_http']:.1f} ms (<= 100 ms: {'met' if figures['table_http'] <= 100 else 'not met'})"
        )
        print(f"\n{name}: {verdicts}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--points", type=int, default=100_000_000)
    parser.add_argument("--long", type=int, help="points of the long series (default: a tenth of --points)")
    parser.add_argument("--batch", type=int, default=50_000, help="points per commit")
    parser.add_argument("--writers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--experiments", type=int, default=10, help="over which the 1,000 runs are spread")
    parser.add_argument("--backend", default="postgres,citus", help="postgres, citus or both, comma-separated")
    parser.add_argument("--clients", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=30)
    arguments = parser.parse_args()
    layout = Layout(
        arguments.points,
        arguments.points // 10 if arguments.long is None else arguments.long,
        arguments.batch,
        arguments.writers,
        arguments.experiments,
    )
    if RUNS % layout.experiments or layout.runs > 1000:
        parser.error(f"--experiments must divide the {RUNS:,} runs")
    if layout.steps < 1:
        parser.error(f"--points must leave at least one step per series: {RUNS * len(TAGS) + layout.long} or more")
    backends = arguments.backend.split(",")
    if "citus" in backends and not citus_installed():
        parser.error("Citus is not installed: run ../shared/tools/build-citus")
    results = {}
    with tempfile.TemporaryDirectory(prefix="trainboard-bench-scale-") as scratch:
        for backend in backends:
            figures = bench(backend, layout, arguments.clients, arguments.seconds, Path(scratch))
            results["PostgreSQL" if backend == "postgres" else "Citus, 3 nodes"] = figures
            print(figures, file=sys.stderr, flush=True)
    report(results, layout, arguments.clients, arguments.seconds)


if __name__ == "__main__":
    main()
