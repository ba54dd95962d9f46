"""The PostgreSQL store on a real Citus cluster (a coordinator and two workers): its tables distributed as
`trainboard.store.postgres.distribution` declares, a single-node store distributed in place, every hot read a
single-shard router plan (EXPLAINed by PostgreSQL's auto_explain as the store runs it), every write of one batch on
one shard group, and a shard group moved between workers while `trainboard serve` answers."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import psycopg
import pytest

from tests.citus import CitusCluster
from tests.servers import trainboard_store_server
from trainboard.ingest.loader import Loader
from trainboard.normaliser.points import DataClass
from trainboard.reader.logdir import LogDir
from trainboard.store.opening import open_store
from trainboard.store.postgres import database as database_module
from trainboard.store.postgres import distribution
from trainboard.store.postgres.blobs import PostgresBlobs
from trainboard.store.postgres.database import PostgresDatabase
from trainboard.store.postgres.distribution import DISTRIBUTION_COLUMN, TABLES
from trainboard.store.postgres.migrations import MIGRATIONS
from trainboard.store.run_filter import parse, parse_terms
from trainboard.store.runs_table import SortKey, TableQuery
from trainboard.store.store import Store
from trainboard.store.values import StepRange


def placements(url: str) -> dict[str, tuple[str, str | None, int]]:
    """Each Citus table of the database: its type, distribution column and co-location group."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT table_name::text, citus_table_type, distribution_column, colocation_id FROM citus_tables"
        ).fetchall()
    return {name: (kind, None if column == "<none>" else column, group) for name, kind, column, group in rows}


@pytest.mark.postgres
def test_every_table_of_the_schema_is_declared_for_citus(postgres_url: str) -> None:
    """On plain PostgreSQL too: a migration that adds a table adds it to distribution.TABLES."""
    open_store(postgres_url).close()
    with psycopg.connect(postgres_url) as connection:
        tables = {name for (name,) in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")}
    assert tables == {table for table, _ in TABLES}


@pytest.mark.citus
@pytest.mark.xdist_group("citus")
def test_every_table_is_distributed_by_experiment_or_a_reference_table_as_declared(citus: CitusCluster) -> None:
    url = citus.create_database("declared")
    try:
        open_store(url).close()
        found = placements(url)
        with psycopg.connect(url) as connection:
            tables = {
                name for (name,) in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
            }
    finally:
        citus.drop_database(url)
    assert tables == {table for table, _ in TABLES}, "a table of the schema is missing from distribution.TABLES"
    distributed = {table for table, placement in TABLES if placement == "distributed"}
    assert {found[table][:2] for table in distributed} == {("distributed", DISTRIBUTION_COLUMN)}
    assert len({found[table][2] for table in distributed}) == 1, "the distributed tables are not co-located"
    assert {table for table, (kind, _, _) in found.items() if kind == "reference"} == {
        table for table, placement in TABLES if placement == "reference"
    }
    assert not {table for table, placement in TABLES if placement == "coordinator"} & set(found)


@pytest.mark.citus
@pytest.mark.xdist_group("citus")
def test_a_table_a_later_migration_adds_is_distributed_too(
    citus: CitusCluster, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a table another release adds: an identity column and foreign keys to a reference and a distributed table."""
    url = citus.create_database("later")
    migration = (
        "9999_later",
        "CREATE TABLE later (experiment_id TEXT NOT NULL REFERENCES experiments, later_id BIGINT GENERATED ALWAYS AS"
        " IDENTITY, run_id BIGINT NOT NULL, PRIMARY KEY (experiment_id, later_id),"
        " FOREIGN KEY (experiment_id, run_id) REFERENCES runs)",
    )
    monkeypatch.setattr(database_module, "MIGRATIONS", [*MIGRATIONS, migration])
    monkeypatch.setattr(distribution, "TABLES", (*distribution.TABLES, ("later", "distributed")))
    try:
        open_store(url).close()
        assert placements(url)["later"][:2] == ("distributed", DISTRIBUTION_COLUMN)
        assert placements(url)["later"][2] == placements(url)["runs"][2]
    finally:
        citus.drop_database(url)


@pytest.mark.citus
@pytest.mark.xdist_group("citus")
def test_a_single_node_store_with_rows_is_distributed_in_place_when_citus_is_added(
    citus: CitusCluster, full_logdir: Path
) -> None:
    url = citus.coordinator.create_database("in_place")
    name = url.rsplit("/", 1)[1]
    try:
        store = open_store(url)
        experiment_id = store.create_experiment("before").id
        Loader(LogDir(str(full_logdir)), store, experiment_id, workers=0).poll()
        before = answers(store, experiment_id)
        store.close()
        # What the operator does (docs/team-server.md): the extension in the store's database on the coordinator,
        # the same database with the extension on each worker, the nodes added.
        for worker in citus.workers:
            with psycopg.connect(worker.url, autocommit=True) as connection:
                connection.execute(f'CREATE DATABASE "{name}"')
            with psycopg.connect(worker.database_url(name), autocommit=True) as connection:
                connection.execute("CREATE EXTENSION citus")
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("CREATE EXTENSION citus")
            connection.execute("SELECT citus_set_coordinator_host('127.0.0.1', %s)", (citus.port(citus.coordinator),))
            for worker in citus.workers:
                connection.execute("SELECT citus_add_node('127.0.0.1', %s)", (citus.port(worker),))
        store = open_store(url)
        try:
            assert placements(url)["scalar_chunks"][0] == "distributed"
            assert answers(store, experiment_id) == before
            # New writes go on after the rows copied.
            Loader(LogDir(str(full_logdir)), store, store.create_experiment("after").id, workers=0).poll()
        finally:
            store.close()
        with psycopg.connect(url) as connection:
            # The coordinator's own copies are emptied; the rows are on the workers.
            assert connection.execute("SELECT pg_relation_size('scalar_chunks')").fetchone() == (0,)
            assert connection.execute("SELECT citus_relation_size('scalar_chunks') > 0").fetchone() == (True,)
    finally:
        citus.drop_database(url)


def answers(store: Store, experiment_id: str) -> list[object]:
    """What a dashboard reads of an experiment, comparable."""
    found: list[object] = [store.runs(experiment_id)]
    for row in store.series(experiment_id):
        found.append(row)
        if row.metadata.data_class == DataClass.SCALAR:
            columns = store.scalars(experiment_id, row.id)
            found.append((columns.steps.tolist(), columns.wall_times.tolist(), np.nan_to_num(columns.values).tolist()))
        elif row.metadata.data_class == DataClass.TENSOR:
            found.append(store.tensors(experiment_id, row.id))
        else:
            found.append(store.blob_sequences(experiment_id, row.id))
    return found


class Plans:
    """The plans auto_explain sends as notices for the statements run on the store's one pooled connection, and the
    commands Citus sends to the workers for them (citus.log_remote_commands)."""

    def __init__(self) -> None:
        self.plans: list[dict[str, Any]] = []
        # Each command sent to a worker, and which worker (host:port).
        self.remote: list[tuple[str, str]] = []

    def __call__(self, notice: psycopg.errors.Diagnostic) -> None:
        message = notice.message_primary or ""
        if message.startswith("duration:"):
            self.plans.append(json.loads(message.split("plan:", 1)[1]))
        elif message.startswith("issuing "):
            server = re.search(r"on server \S+@(\S+)", notice.message_detail or "")
            self.remote.append((message, server.group(1) if server else "?"))

    def clear(self) -> None:
        self.plans.clear()
        self.remote.clear()


@pytest.fixture(scope="module")
def explained(citus: CitusCluster, full_logdir: Path) -> Iterator[tuple[Store, str, Plans]]:
    """A store with the full logdir in three experiments, on one pooled connection that explains every statement."""
    url = citus.create_database("explained")
    database = PostgresDatabase(url, pool_size=1)
    store = Store(database, PostgresBlobs(database), location="citus")
    plans = Plans()
    for name in ("a", "b", "c"):
        experiment_id = store.create_experiment(name).id
        Loader(LogDir(str(full_logdir)), store, experiment_id, workers=0).poll()
        store.create_pin(experiment_id)
    # Made before auto_explain is loaded, which Citus does not plan modifying CTEs with parameters under.
    store.create_experiment("written")
    with database.pool.connection() as connection:
        connection.execute("LOAD 'auto_explain'")
        for setting, value in {
            "auto_explain.log_min_duration": "0",
            "auto_explain.log_level": "notice",
            "auto_explain.log_format": "json",
            "client_min_messages": "notice",
        }.items():
            connection.execute(f"SET {setting} = '{value}'")
        connection.add_notice_handler(plans)
    try:
        yield store, store.experiments()[1].id, plans
    finally:
        store.close()
        citus.drop_database(url)


def citus_scans(plan: dict[str, Any]) -> Iterator[dict[str, Any]]:
    if plan.get("Custom Plan Provider", "").startswith("Citus"):
        yield plan
    for child in plan.get("Plans", []):
        yield from citus_scans(child)


def task_counts(plans: list[dict[str, Any]]) -> list[int]:
    """The task count of each distributed scan of the statements explained; a statement Citus split in subplans
    (each run on its own, their results sent back to the workers) counts as many tasks."""
    counts = []
    for plan in plans:
        for scan in citus_scans(plan["Plan"]):
            query = scan["Distributed Query"]
            counts.append(query["Job"]["Task Count"] + 100 * len(query.get("Subplans", [])))
    return counts


def hot_reads(store: Store, experiment_id: str) -> dict[str, Callable[[], object]]:
    """What every dashboard reads, by name."""
    series = store.series(experiment_id)
    scalar = next(row for row in series if row.metadata.data_class == DataClass.SCALAR and row.point_count > 2)
    tensor = next(row for row in series if row.metadata.data_class == DataClass.TENSOR)
    blobs = next(row for row in series if row.metadata.data_class == DataClass.BLOB_SEQUENCE)
    (pin,) = store.pins(experiment_id)
    sweep = parse("loss < 1 or name ~ 'r'", re.compile)
    summaries = tuple(term for term, _ in parse_terms("max(loss), step_of_min(loss), mean(loss), status, last_step"))
    table = TableQuery(where=sweep, columns=summaries, sort=(SortKey(summaries[0], descending=True),), limit=10)
    return {
        "runs": lambda: store.runs(experiment_id),
        "series listing": lambda: store.series(experiment_id),
        "plugin listing": lambda: store.plugin_names(experiment_id),
        "scalars": lambda: store.scalars(experiment_id, scalar.id),
        "scalars downsampled": lambda: store.scalars(experiment_id, scalar.id, downsample=2),
        "last scalars": lambda: store.last_scalars(experiment_id, [scalar.id]),
        "tensors": lambda: store.tensors(experiment_id, tensor.id, downsample=3),
        "blob sequences": lambda: store.blob_sequences(experiment_id, blobs.id, steps=StepRange(0, 5)),
        "run values": lambda: store.run_values(experiment_id),
        "run filter": lambda: store.run_values(experiment_id, sweep),
        "pinned run filter": lambda: store.run_values(experiment_id, sweep, pin_id=pin.id),
        "runs table": lambda: store.runs_table(experiment_id, table),
        "pinned runs table": lambda: store.runs_table(experiment_id, table, pin_id=pin.id),
        "run state": lambda: store.run_state(experiment_id, "tensorboard"),
        "file cursors": lambda: store.file_cursors(experiment_id),
    }


@pytest.mark.citus
@pytest.mark.xdist_group("citus")
def test_every_hot_read_is_a_single_shard_router_plan(explained: tuple[Store, str, Plans]) -> None:
    store, experiment_id, plans = explained
    for name, read in hot_reads(store, experiment_id).items():
        plans.clear()
        read()
        counts = task_counts(plans.plans)
        assert counts and set(counts) == {1}, f"{name}: task counts {counts} {json.dumps(plans.plans, indent=1)}"


@pytest.mark.citus
@pytest.mark.xdist_group("citus")
def test_the_writes_of_a_batch_touch_one_shard_group_on_one_worker(
    explained: tuple[Store, str, Plans], citus: CitusCluster, full_logdir: Path
) -> None:
    store, _, plans = explained
    (experiment_id,) = [e.id for e in store.experiments() if e.name == "written"]
    database = store.database
    assert isinstance(database, PostgresDatabase)
    with database.pool.connection() as connection:
        connection.execute("SET citus.log_remote_commands = on")
    try:
        plans.clear()
        Loader(LogDir(str(full_logdir)), store, experiment_id, workers=0).poll()
    finally:
        with database.pool.connection() as connection:
            connection.execute("RESET citus.log_remote_commands")
    assert sum(row.point_count for row in store.series(experiment_id)) > 0
    # The coordinator hands out the ids, in commit order: this experiment's come after the others'.
    with database.pool.connection() as connection:
        mine, others = connection.execute(
            "SELECT min(chunk_id) FILTER (WHERE experiment_id = %s), max(chunk_id) FILTER (WHERE experiment_id <> %s)"
            " FROM scalar_chunks",
            (experiment_id, experiment_id),
        ).fetchone() or (0, 0)
    assert others < mine < 2**48
    shards = {int(shard) for command, _ in plans.remote for shard in re.findall(r"_(1\d{5})\b", command)}
    conninfo = database.pool.conninfo
    assert isinstance(conninfo, str)
    with psycopg.connect(conninfo) as connection:
        groups = connection.execute(
            "SELECT DISTINCT s.shardminvalue, p.nodeport FROM pg_dist_shard s JOIN pg_dist_partition t USING"
            " (logicalrelid) JOIN pg_dist_shard_placement p USING (shardid) WHERE t.partmethod = 'h'"
            " AND s.shardid = ANY(%s)",
            (sorted(shards),),
        ).fetchall()
    assert len(shards) >= 5 and len(groups) == 1, groups
    (_, port) = groups[0]
    assert {server for _, server in plans.remote} == {f"127.0.0.1:{port}"}


@pytest.mark.citus
@pytest.mark.xdist_group("citus")
def test_a_shard_moved_between_workers_while_serve_answers_gives_no_wrong_answer(
    citus: CitusCluster, full_logdir: Path, tmp_path: Path
) -> None:
    url = citus.create_database("moved")
    try:
        with (
            trainboard_store_server(full_logdir, tmp_path, url) as server,
            httpx.Client(base_url=server.url + server.experiment_path, timeout=30) as client,
        ):
            tags = client.get("/data/plugin/scalars/tags").raise_for_status().json()
            paths = ["/data/runs", "/data/plugin/scalars/tags"] + [
                f"/data/plugin/scalars/scalars?run={run}&tag={tag}" for run in sorted(tags) for tag in sorted(tags[run])
            ]
            expected = {path: client.get(path).raise_for_status().json() for path in paths}
            answers: list[tuple[float, str, int, object]] = []
            moving = threading.Event()
            moving.set()

            def read() -> None:
                while moving.is_set():
                    for path in paths:
                        answer = client.get(path)
                        body = answer.json() if answer.status_code == 200 else answer.text
                        answers.append((time.monotonic(), path, answer.status_code, body))

            reader = threading.Thread(target=read)
            reader.start()
            try:
                time.sleep(1)
                started = time.monotonic()
                moved = move_shard(citus, url, server.experiment_path.rsplit("/", 1)[1])
                took = time.monotonic() - started
                time.sleep(1)
            finally:
                moving.clear()
                reader.join()
    finally:
        citus.drop_database(url)
    assert moved
    wrong = [(path, status) for _, path, status, body in answers if status == 200 and body != expected[path]]
    assert not wrong
    failed = [(at, status) for at, _, status, _ in answers if status != 200]
    assert {status for _, status in failed} <= {503}, failed
    assert not failed or max(at for at, _ in failed) - min(at for at, _ in failed) < 10
    assert answers[-1][2] == 200
    print(f"shard group moved in {took:.1f} s; {len(answers)} answers, {len(failed)} 503s")


def move_shard(citus: CitusCluster, url: str, experiment_id: str) -> bool:
    """Move the shard group holding `experiment_id` to the other worker (online: logical replication); whether it
    is there now."""
    with psycopg.connect(url, autocommit=True) as connection:
        ((shard, port),) = connection.execute(
            "SELECT shardid, nodeport FROM citus_shards WHERE shardid ="
            " get_shard_id_for_distribution_column('experiment_state', %s::text)",
            (experiment_id,),
        ).fetchall()
        (target,) = [citus.port(worker) for worker in citus.workers if citus.port(worker) != port]
        connection.execute(
            "SELECT citus_move_shard_placement(%s, '127.0.0.1', %s, '127.0.0.1', %s, shard_transfer_mode => %s)",
            (shard, port, target, "force_logical"),
        )
        row = connection.execute("SELECT nodeport FROM citus_shards WHERE shardid = %s", (shard,)).fetchone()
        return row == (target,)
