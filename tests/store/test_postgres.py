"""What the PostgreSQL backend promises beyond the contract suite: its schema can be distributed by experiment, it
migrates a new database at open (once, however many processes open it), writers of one experiment take turns,
a downsampled read does not read the whole series, and a database it cannot reach is named in a clear error."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import psycopg
import pytest

from tests.pgserver import PostgresServer
from tests.servers import free_port
from trainboard.normaliser.points import Batch, DataClass, RunState, ScalarSeries, SeriesMetadata
from trainboard.reader.tail import FileCursor
from trainboard.store.downsample import sample_indices
from trainboard.store.errors import StaleOffsetError, StoreUnavailable
from trainboard.store.opening import open_store
from trainboard.store.postgres.blobs import PostgresBlobs
from trainboard.store.postgres.database import PICKS_SQL, PostgresDatabase
from trainboard.store.postgres.migrations import MIGRATIONS, POINT
from trainboard.store.store import Store
from trainboard.store.writer import FileWrite

pytestmark = pytest.mark.postgres

SCALARS = SeriesMetadata(plugin_name="scalars", data_class=DataClass.SCALAR)


def cursor(offset: int) -> FileCursor:
    return FileCursor(path="/logs/run/events", offset=offset, size=offset, mtime=1.0, head=b"head")


def constraint_columns(url: str, kind: str) -> dict[tuple[str, str], list[str]]:
    """(table, constraint) -> its columns in order, for constraints of `kind` (p: primary key, u: unique,
    f: foreign key) on trainboard's tables."""
    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT c.conrelid::regclass::text, c.conname,"
            " array(SELECT a.attname FROM unnest(c.conkey) WITH ORDINALITY k (attnum, n)"
            " JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.attnum ORDER BY k.n)"
            " FROM pg_constraint c JOIN pg_namespace s ON s.oid = c.connamespace"
            " WHERE s.nspname = 'public' AND c.contype = %s AND c.conrelid::regclass::text <> 'migrations'",
            (kind,),
        ).fetchall()
    return {(table, name): columns for table, name, columns in rows}


# Small tables of no one experiment, which Citus copies whole to every node (reference tables).
REFERENCE_TABLES = {"experiments", "users", "tokens", "sessions"}
# Tables that stay on the Citus coordinator alone: the audit log, whose events mostly name no experiment (sign-ins,
# authentication failures), written at a person's pace and read by operators.
COORDINATOR_TABLES = {"audit_log"}


def test_every_key_starts_with_the_experiment(postgres_url: str) -> None:
    open_store(postgres_url).close()
    primary_keys = constraint_columns(postgres_url, "p")
    assert {table for table, _ in primary_keys} >= {"experiments", "runs", "series", "scalar_chunks", "blobs"}
    for (table, _), columns in primary_keys.items():
        if table not in REFERENCE_TABLES - {"experiments"} | COORDINATOR_TABLES:
            assert columns[0] == "experiment_id", table
    # Citus distributes a table by one column: unique keys, and foreign keys between distributed tables, include it.
    with psycopg.connect(postgres_url) as connection:
        referencing = dict(
            connection.execute("SELECT conname, confrelid::regclass::text FROM pg_constraint WHERE contype = 'f'")
        )
    for kind in ("u", "f"):
        for (table, name), columns in constraint_columns(postgres_url, kind).items():
            if table not in REFERENCE_TABLES | COORDINATOR_TABLES and referencing.get(name) not in REFERENCE_TABLES - {
                "experiments"
            }:
                assert "experiment_id" in columns, (table, name)


def test_a_new_database_is_migrated_once_by_however_many_openers(postgres_url: str) -> None:
    errors: list[BaseException] = []

    def open_and_close() -> None:
        try:
            open_store(postgres_url).close()
        except BaseException as error:  # reported below, in the test's thread
            errors.append(error)

    openers = [threading.Thread(target=open_and_close) for _ in range(4)]
    for opener in openers:
        opener.start()
    for opener in openers:
        opener.join()
    assert errors == []
    open_store(postgres_url).close()
    with psycopg.connect(postgres_url) as connection:
        applied = [name for (name,) in connection.execute("SELECT name FROM migrations ORDER BY name")]
    assert applied == [name for name, _ in MIGRATIONS]


def test_writers_of_one_experiment_take_turns(postgres_url: str) -> None:
    """Two stores (as two ingest processes would) write one file of one experiment from offset 0: the second waits
    for the first to commit, then is refused rather than duplicate its points."""
    first, second = open_store(postgres_url), open_store(postgres_url)
    experiment_id = first.create_experiment("shared").id
    batch = Batch(
        operations=[ScalarSeries("loss", np.arange(10), np.ones(10), np.ones(10))], metadata={"loss": SCALARS}
    )
    outcome: list[BaseException | None] = []
    holding, release = threading.Event(), threading.Event()

    def second_writer() -> None:
        holding.wait(5)
        try:
            second.write_batch(
                experiment_id, FileWrite("run", cursor(100), RunState(), batch, restarted=False, previous=None)
            )
            outcome.append(None)
        except StaleOffsetError as error:
            outcome.append(error)

    thread = threading.Thread(target=second_writer)
    thread.start()
    with first.database.transaction(experiment_id) as transaction:
        run_id = transaction.save_run("run", RunState())
        transaction.save_file(run_id, cursor(100), expected_offset=None)
        holding.set()
        release.wait(0.5)  # the second writer is blocked meanwhile
        assert outcome == []
    thread.join(10)
    assert len(outcome) == 1 and isinstance(outcome[0], StaleOffsetError)
    first.close()
    second.close()


def test_a_downsampled_read_touches_a_small_part_of_a_long_series(postgres_url: str) -> None:
    store = open_store(postgres_url)
    experiment_id = store.create_experiment("long").id
    count = 400_000
    steps = np.arange(count, dtype=np.int64)
    batch = Batch(operations=[ScalarSeries("loss", steps, steps * 0.5, steps * 0.25)], metadata={"loss": SCALARS})
    store.write_batch(experiment_id, FileWrite("run", cursor(1), RunState(), batch, restarted=False, previous=None))
    (row,) = store.series(experiment_id)
    sampled = store.scalars(experiment_id, row.id, downsample=20)
    assert sampled.steps.tolist() == sample_indices(count, 20).tolist()
    assert sampled.values.tolist() == (sample_indices(count, 20) * 0.25).tolist()

    # The same query, explained: the buffers it touches (table, indexes and TOAST) against the TOAST pages that
    # hold the series.
    index = store.database.scalar_chunk_index(experiment_id, row.id)
    starts = np.concatenate(([0], np.cumsum(index.counts)))
    picked = sample_indices(count, 20)
    chunk_of = np.searchsorted(starts, picked, side="right") - 1
    chunk_ids = index.ids[chunk_of].tolist()
    offsets = ((picked - starts[chunk_of]) * POINT.itemsize + 1).tolist()
    with psycopg.connect(postgres_url) as connection:
        (plan,) = connection.execute(
            b"EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) " + PICKS_SQL.encode(), (chunk_ids, offsets, experiment_id)
        ).fetchone() or (None,)
        (toast_pages,) = connection.execute(
            "SELECT pg_relation_size(reltoastrelid) / current_setting('block_size')::int FROM pg_class"
            " WHERE relname = 'scalar_chunks'"
        ).fetchone() or (0,)
    touched = buffers(plan[0]["Plan"])
    assert toast_pages > 1000
    assert touched < toast_pages / 5, (touched, toast_pages)  # 94 of 1221 when written
    store.close()


def buffers(plan: dict[str, Any]) -> int:
    return int(plan.get("Shared Hit Blocks", 0)) + int(plan.get("Shared Read Blocks", 0))


def test_an_unreachable_database_is_named_without_its_password() -> None:
    url = f"postgresql://trainboard:secret@127.0.0.1:{free_port()}/nothing"
    with pytest.raises(StoreUnavailable) as caught:
        open_store(url)
    message = str(caught.value)
    assert message.startswith("cannot reach the database postgresql://trainboard:***@127.0.0.1:")
    assert "secret" not in message and "Connection refused" in message


def test_a_missing_database_is_a_clear_error(postgres: PostgresServer) -> None:
    with pytest.raises(StoreUnavailable, match='database "no_such_database" does not exist'):
        open_store(postgres.database_url("no_such_database"))


@pytest.mark.parametrize(
    "database_url",
    ["postgres_url", pytest.param("citus_url", marks=[pytest.mark.citus, pytest.mark.xdist_group("citus")])],
)
def test_many_files_written_in_one_transaction_take_a_few_statements_not_a_few_each(
    database_url: str, request: pytest.FixtureRequest
) -> None:
    """A Citus coordinator forwards each statement to a worker: 10,000 files' cursors written a few statements each
    took 72-112 s there against 4.4 s on one PostgreSQL. Each kind of row of all the files is one statement, and the
    offsets are still checked: a stale one writes nothing."""
    database = PostgresDatabase(request.getfixturevalue(database_url), pool_size=1)
    store = Store(database, PostgresBlobs(database), location="test")
    try:
        experiment_id = store.create_experiment("files").id
        statements: list[str] = []
        with database.pool.connection() as connection:
            connection.execute("LOAD 'auto_explain'")
            for setting, value in {
                "auto_explain.log_min_duration": "0",
                "auto_explain.log_level": "notice",
                "client_min_messages": "notice",
            }.items():
                connection.execute(f"SET {setting} = '{value}'")
            connection.add_notice_handler(
                lambda notice: (
                    statements.append(notice.message_primary or "")
                    if (notice.message_primary or "").startswith("duration:")
                    else None
                )
            )

        def writes(first: int, previous: int | None) -> list[FileWrite]:
            return [
                FileWrite(
                    f"run{index % 10}",
                    FileCursor(path=f"/run{index % 10}/{index}", offset=first, size=first, mtime=1.0, head=b"h"),
                    RunState(start_time=float(index % 10)),
                    Batch(metadata={f"tag{index % 3}": SCALARS}),
                    restarted=False,
                    previous=None
                    if previous is None
                    else FileCursor(path=f"/run{index % 10}/{index}", offset=previous, size=0, mtime=0.0, head=b""),
                )
                for index in range(200)
            ]

        store.write_batches(experiment_id, writes(10, None))
        assert len(statements) <= 8, statements
        assert store.file_cursors(experiment_id) == {write.cursor.path: write.cursor for write in writes(10, None)}
        assert {(row.run, row.tag) for row in store.series(experiment_id)} == {
            (f"run{run}", f"tag{index % 3}") for index in range(200) for run in [index % 10]
        }
        assert {run.name: run.start_time for run in store.runs(experiment_id)} == {
            f"run{run}": float(run) for run in range(10)
        }
        stale = writes(20, 10)
        stale[150] = writes(20, 5)[150]
        with pytest.raises(StaleOffsetError, match="/run0/150: read from 5, but the store is at 10"):
            store.write_batches(experiment_id, stale)
        assert {cursor.offset for cursor in store.file_cursors(experiment_id).values()} == {10}
        store.write_batches(experiment_id, writes(20, 10))
        assert {cursor.offset for cursor in store.file_cursors(experiment_id).values()} == {20}
    finally:
        store.close()
