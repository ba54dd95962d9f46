"""The one runner of every backend's schema migrations: named and ordered, each applied once and recorded in the
`migrations` table, and a database that a newer trainboard migrated refused. Each backend keeps its own list (in its
`migrations.py`) and says how migrators take turns (`transaction`)."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from contextlib import AbstractContextManager
from typing import Any, Protocol, TypeVar

from trainboard.store.errors import StoreUnavailable


class Rows(Protocol):
    def fetchall(self) -> list[Any]: ...


class Connection(Protocol):
    """What the runner needs of a DB-API connection (sqlite3's, psycopg's)."""

    def execute(self, sql: str, params: Sequence[Any] = ..., /) -> Rows: ...


Db = TypeVar("Db", bound=Connection)

# A migration: its name and its SQL statements, separated by semicolons.
Migration = tuple[str, str]

MIGRATIONS_TABLE = "CREATE TABLE IF NOT EXISTS migrations (name TEXT PRIMARY KEY, applied_at DOUBLE PRECISION NOT NULL)"


def unexpected(migrations: Sequence[Migration], applied: Collection[str], *, retired: Collection[str] = ()) -> str:
    """What differs between the migrations a database has applied and this trainboard's: "" when they are the same."""
    known = {name for name, _ in migrations} | set(retired)
    missing = [name for name, _ in migrations if name not in applied]
    newer = sorted(set(applied) - known)
    return "; ".join(
        [
            *([f"migrations not applied: {', '.join(missing)}"] if missing else []),
            *([f"migrations of a newer trainboard: {', '.join(newer)}"] if newer else []),
        ]
    )


def migrate(
    migrations: Sequence[Migration],
    transaction: Callable[[], AbstractContextManager[Db]],
    *,
    placeholder: str,
    location: str,
    backfills: Mapping[str, Callable[[Db], None]],
    retired: Collection[str] = (),
) -> None:
    """Apply the migrations not yet applied, in order, each with its backfill (what SQL alone cannot fill, run after
    its SQL), all in one `transaction`: migrators of one database must take turns in it, so that processes opening a
    new database at once apply each migration once, and a migration that fails leaves the schema as it was.
    `placeholder` is the driver's parameter marker; `retired` names migrations that later ones replaced; `location`
    names the database in the error raised when a newer trainboard migrated it."""
    known = {name for name, _ in migrations} | set(retired)
    with transaction() as db:
        db.execute(MIGRATIONS_TABLE)
        applied = {name for (name,) in db.execute("SELECT name FROM migrations").fetchall()}
        newer = sorted(applied - known)
        if newer:
            raise StoreUnavailable(
                f"{location} was migrated by a newer trainboard ({', '.join(newer)}): upgrade trainboard, or give"
                " another --db"
            )
        for name, sql in migrations:
            if name in applied:
                continue
            # One statement at a time: SQLite's execute runs one.
            for statement in sql.split(";"):
                if statement.strip():
                    db.execute(statement)
            if name in backfills:
                backfills[name](db)
            db.execute(
                f"INSERT INTO migrations (name, applied_at) VALUES ({placeholder}, {placeholder})", (name, time.time())
            )
