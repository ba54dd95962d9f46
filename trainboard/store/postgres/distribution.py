"""How the PostgreSQL schema spreads over a Citus cluster: one declared list of tables, and the step that applies it.

When the database has the `citus` extension, every per-experiment table is distributed by `experiment_id`, all
co-located (an experiment's rows of every table on one node, so that its reads and each write batch run on one shard
group), and the account tables become reference tables (a copy on every node: read by every request, written
rarely). Without Citus the step does nothing. It runs each time a store opens, after the migrations: a table a new
migration created is distributed then, and an existing single-node database that gained the extension is distributed
in place (its rows copied to the workers' shards). A migration that adds a table adds it to TABLES, and only there.
"""

from __future__ import annotations

from typing import Any, Literal

import psycopg

# The column every distributed table is distributed by.
DISTRIBUTION_COLUMN = "experiment_id"

# Each table of the schema and where it lives under Citus, in the order they are converted (reference tables first: a
# distributed table may refer to them, not they to it). tests/store/test_citus.py fails while a table is missing.
#   reference:   a copy on every node;
#   distributed: sharded by experiment_id, co-located with every other distributed table;
#   coordinator: stays a plain table of the coordinator (read by no query that joins a distributed table).
Placement = Literal["reference", "distributed", "coordinator"]
TABLES: tuple[tuple[str, Placement], ...] = (
    ("migrations", "coordinator"),
    ("audit_log", "coordinator"),
    ("users", "reference"),
    ("experiments", "reference"),
    ("tokens", "reference"),
    ("sessions", "reference"),
    ("experiment_roles", "reference"),
    ("claim_roles", "reference"),
    ("experiment_state", "distributed"),
    ("runs", "distributed"),
    ("files", "distributed"),
    ("series", "distributed"),
    ("scalar_chunks", "distributed"),
    ("tensor_points", "distributed"),
    ("blob_points", "distributed"),
    ("blobs", "distributed"),
    ("run_hparams", "distributed"),
    ("pins", "distributed"),
    ("pin_runs", "distributed"),
    ("pin_series", "distributed"),
    ("run_metadata", "distributed"),
    ("run_labels", "distributed"),
    ("saved_views", "distributed"),
    ("definitions", "distributed"),
)
# The table every distributed table is co-located with.
COLOCATED_WITH = "experiment_state"


def has_citus(connection: psycopg.Connection[Any]) -> bool:
    return connection.execute("SELECT 1 FROM pg_extension WHERE extname = 'citus'").fetchone() is not None


def keep_new_tables_plain(connection: psycopg.Connection[Any]) -> None:
    """On a Citus database, let the tables that migrations create in this transaction stay plain tables until
    `distribute` converts them: Citus would make one that refers to a reference table a "Citus local table", which it
    cannot distribute once it has an identity column. A migration's backfill must not insert into a new table that
    refers to a distributed one: until the table is distributed too, its foreign key checks the coordinator's empty
    copy."""
    if has_citus(connection):
        connection.execute("SET LOCAL citus.enable_local_reference_table_foreign_keys = off")


def distribute(connection: psycopg.Connection[Any]) -> None:
    """On a Citus database, make each table of TABLES what it is declared to be (those that are already are left as
    they are); elsewhere nothing. Runs in the caller's transaction."""
    if not has_citus(connection):
        return
    # Not the "local" tables of Citus (those it made of plain tables that refer to reference tables): they are still
    # to be distributed.
    done = {
        name
        for (name,) in connection.execute(
            "SELECT table_name::text FROM citus_tables WHERE citus_table_type IN ('distributed', 'reference')",
            binary=False,
        ).fetchall()
    }
    wanted = [(table, placement) for table, placement in TABLES if table not in done and placement != "coordinator"]
    if not wanted:
        return
    # A plain table that refers to a new reference table would become a "Citus local table", which Citus cannot then
    # distribute when it has an identity column. The foreign keys of the tables converted are dropped first and made
    # again once every table is in place.
    foreign_keys = connection.execute(
        "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = 'f'"
        " AND (conrelid::regclass::text = ANY(%s) OR confrelid::regclass::text = ANY(%s)) ORDER BY oid",
        ([table for table, _ in wanted],) * 2,
        binary=False,
    ).fetchall()
    for table, name, _ in foreign_keys:
        connection.execute(f'ALTER TABLE {table} DROP CONSTRAINT "{name}"')
    # In one transaction, Citus must create a reference table's and then a referring table's shards over one
    # connection per node, or it refuses the foreign keys between them.
    connection.execute("SET LOCAL citus.multi_shard_modify_mode TO 'sequential'")
    for table, placement in wanted:
        if placement == "reference":
            connection.execute("SELECT create_reference_table(%s)", (table,))
        else:
            connection.execute(
                "SELECT create_distributed_table(%s, %s, colocate_with => %s)",
                (table, DISTRIBUTION_COLUMN, "default" if table == COLOCATED_WITH else COLOCATED_WITH),
            )
        # The rows of a table that was filled before it was distributed were copied to its shards: its local copy on
        # the coordinator is no longer read.
        connection.execute("SELECT truncate_local_data_after_distributing_table(%s)", (table,))
    for table, name, definition in foreign_keys:
        connection.execute(f'ALTER TABLE {table} ADD CONSTRAINT "{name}" {definition}')
