"""The store's errors: why a store cannot be used, worded for the user and served as 503s when a request meets them;
and a write refused because another writer got there first."""

from __future__ import annotations

from trainboard.errors import PublicError

# The Retry-After of a 503 for a database or blob store that does not answer: an outage is a restart or a failover
# (seconds), and clients (`trainboard upload`, the web UI's reloads) come back after it.
RETRY_AFTER_SECONDS = 5


class StoreUnavailable(PublicError):
    """The database or blob store cannot be opened or reached; the message names it and, where known, the fix."""

    http_code = 503
    kind = ""
    retry_after: int | None = RETRY_AFTER_SECONDS


class StoreDamaged(StoreUnavailable):
    """What the store holds is damaged: a checksum does not match (`structural` False: those points only), or the
    database's own structure is broken (`structural` True: the whole database)."""

    # Damage stays until an operator repairs it: no use trying again soon.
    retry_after = None

    def __init__(self, message: str, *, structural: bool = False) -> None:
        super().__init__(message)
        self.structural = structural


class StaleOffsetError(Exception):
    """A batch read a file from an offset that is no longer the stored one: another writer got there first."""
