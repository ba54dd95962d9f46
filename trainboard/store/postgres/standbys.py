"""Reads from PostgreSQL hot standbys (`trainboard serve --read_db`), writes to the primary, and no reader ever sees
older data than it has already seen or written.

Positions are places in the primary's write-ahead log (LSNs, as integers). Each read has a floor, and:

- a read runs on a standby only if the standby's replay position, asked on the read's connection just before its
  query, is at least the floor: the query's snapshot then holds everything up to the floor;
- after a read on a standby the floor is raised to the standby's replay position asked just after the query, which
  is at least the position of every row the query saw; after a write, or a read that no standby could take, it is
  raised to the primary's WAL insert position, which is past every commit the primary has made visible (an
  asynchronous commit is visible once its record is inserted, before it is written out: hence insert, not write);
- a read's floor is the larger of the process's (`Standbys.floor`: every read and write of this process) and the
  client's (`client_floor`, which `trainboard.http.read_after` carries from request to request in a cookie, across
  replicas).

So a client reads its own writes at once (its floor is past them), never reads older data than it read before (the
floors only rise), and a replica's live-update watcher never sends an older generation than it sent. A standby that
lags behind the floor is passed over, and one that cannot be reached rests for REST_SECONDS; when none can take the
read, the primary does. A standby promoted to primary (failover) answers as a primary does: at its insert position.

Account tables (users, tokens, sessions, roles), run metadata and blobs kept in the database are read from the
primary: they are small, read by key, and a sign-in must count at once.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextvars import ContextVar
from typing import Any

import psycopg

from trainboard.store.errors import StoreUnavailable
from trainboard.store.postgres.pool import Pool

# A standby that cannot give a connection within this long is taken for down (a busy one gives one in milliseconds).
STANDBY_WAIT_SECONDS = 0.5
# How long a standby found down is left alone before a read tries it again.
REST_SECONDS = 2.0
# A standby's position (its replay position; a promoted one's insert position), and the primary's.
_STANDBY_POSITION = (
    "SELECT COALESCE(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_insert_lsn()"
    " END, '0/0') - '0/0'::pg_lsn"
)
_PRIMARY_POSITION = "SELECT pg_current_wal_insert_lsn() - '0/0'::pg_lsn"


class ReadFloor:
    """A position that only rises; shared between threads."""

    def __init__(self, lsn: int = 0) -> None:
        self._lsn = lsn
        self._lock = threading.Lock()

    @property
    def lsn(self) -> int:
        return self._lsn

    def raise_to(self, lsn: int) -> None:
        with self._lock:
            self._lsn = max(self._lsn, lsn)


_client: ContextVar[ReadFloor | None] = ContextVar("trainboard_read_floor", default=None)


@contextlib.contextmanager
def client_floor(lsn: int) -> Iterator[ReadFloor]:
    """The reads and writes of the block (a client's request) see at least `lsn`; the floor yielded rises with them."""
    floor = ReadFloor(lsn)
    token = _client.set(floor)
    try:
        yield floor
    finally:
        _client.reset(token)


class Standby:
    def __init__(self, pool: Pool) -> None:
        self.pool = pool
        self.resting_until = 0.0

    def rest(self) -> None:
        self.resting_until = time.monotonic() + REST_SECONDS


class Standbys:
    """Where the reads of one `PostgresDatabase` go: `rows(sql, params)` on a standby that has replayed at least the
    read's floor, else on the primary; writes on the primary pool raise the floors."""

    def __init__(self, primary: Pool, standbys: Sequence[Pool]) -> None:
        self.primary = primary
        self.standbys = [Standby(pool) for pool in standbys]
        self.floor = ReadFloor()
        self._turns = itertools.count()
        primary.written = self._primary_used
        # Reads see at least what the primary had at open: the schema its migrations just brought up to date.
        with primary.connection() as connection:
            self._primary_used(connection)

    def rows(self, sql: str, params: Sequence[object] | Mapping[str, object]) -> list[tuple[Any, ...]]:
        client = _client.get()
        floor = max(self.floor.lsn, client.lsn if client is not None else 0)
        for standby in self._in_turn():
            try:
                with standby.pool.connection(timeout=STANDBY_WAIT_SECONDS) as connection:
                    if _position(connection, _STANDBY_POSITION) < floor:
                        continue
                    rows = connection.execute(sql, params, binary=True).fetchall()
                    self._saw(_position(connection, _STANDBY_POSITION))
                    return rows
            except StoreUnavailable:
                # Down, or lost mid-query: the read is tried on the others, then on the primary.
                standby.rest()
            except psycopg.errors.SerializationFailure:
                # The standby cancelled the query, which held back the replay of rows it read (a recovery conflict).
                pass
        with self.primary.connection() as connection:
            rows = connection.execute(sql, params, binary=True).fetchall()
            self._primary_used(connection)
            return rows

    def close(self) -> None:
        for standby in self.standbys:
            standby.pool.close()

    def _in_turn(self) -> list[Standby]:
        """The standbys not resting, a different one first each time (the reads spread over them)."""
        now = time.monotonic()
        awake = [standby for standby in self.standbys if standby.resting_until <= now]
        if not awake:
            return []
        first = next(self._turns) % len(awake)
        return awake[first:] + awake[:first]

    def _primary_used(self, connection: psycopg.Connection[Any]) -> None:
        self._saw(_position(connection, _PRIMARY_POSITION))

    def _saw(self, lsn: int) -> None:
        self.floor.raise_to(lsn)
        if (client := _client.get()) is not None:
            client.raise_to(lsn)


def _position(connection: psycopg.Connection[Any], sql: str) -> int:
    row = connection.execute(sql).fetchone()
    assert row is not None
    return int(row[0])
