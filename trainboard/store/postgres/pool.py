"""The pool of connections to PostgreSQL, which turns a database that is down or restarting into `StoreUnavailable`.

A request that meets a stopped or restarting server (no connection in the pool works, a connection is lost in the
middle of a query, the server is starting up or shutting down) gets a 503 with Retry-After, not a 500: a restart is
an outage the clients wait out. A request waits at most WAIT_SECONDS for a connection, so that during an outage it
answers 503 within seconds instead of holding a worker thread for psycopg_pool's default of 30 s. Other errors (a
bad query, a constraint, a serialization failure that its caller retries) pass unchanged.

psycopg_pool replaces a lost connection by trying again at doubling intervals (1, 2, 4, 8 s, ...), so after an
outage of 10 s the pool would wait up to 8 s more before it looked again. It gives each replacement RECONNECT_SECONDS
instead: past that the replacement is given up and the next request that needs a connection starts a new one at once,
so the pool answers again within about RECONNECT_SECONDS of the database's return.

Writes take their connection by `writing()`: once a write is done, `written(connection)` is told, which with standbys
(trainboard.store.postgres.standbys) marks the position that later reads must see.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import psycopg
import psycopg_pool

from trainboard.store.errors import StoreUnavailable

# Under load a request queues for a connection for milliseconds; seconds mean the database does not answer.
WAIT_SECONDS = 5.0
RECONNECT_SECONDS = 2.0
# PostgreSQL's SQLSTATEs of a server going away or not there yet: class 08 (connection exception), and
# admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down).
_LOST_STATES = ("57P01", "57P02", "57P03")


class Pool(psycopg_pool.ConnectionPool[psycopg.Connection[Any]]):
    def __init__(self, url: str, *, location: str, **options: Any) -> None:
        super().__init__(url, timeout=WAIT_SECONDS, reconnect_timeout=RECONNECT_SECONDS, **options)
        self.location = location
        self.written: Callable[[psycopg.Connection[Any]], None] = lambda connection: None

    @contextlib.contextmanager
    def connection(self, timeout: float | None = None) -> Iterator[psycopg.Connection[Any]]:
        try:
            with super().connection(timeout) as connection:
                yield connection
        except psycopg.OperationalError as error:
            if not unreachable(error):
                raise
            raise StoreUnavailable(f"cannot reach the database {self.location}: {reason(error)}") from None

    @contextlib.contextmanager
    def writing(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection for a write (or a transaction of writes, committed inside the block)."""
        with self.connection() as connection:
            yield connection
            self.written(connection)


def unreachable(error: psycopg.OperationalError) -> bool:
    """Whether the error says the server is not there (down, restarting, unreachable), not that a query failed."""
    if isinstance(error, psycopg_pool.PoolTimeout) or error.sqlstate is None:
        return True
    return error.sqlstate.startswith("08") or error.sqlstate in _LOST_STATES


def reason(error: Exception) -> str:
    return str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
