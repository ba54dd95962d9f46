"""Why a store cannot be used, worded for the user; served as 503s when a request meets them."""

from __future__ import annotations

from trainboard.errors import PublicError


class StoreUnavailable(PublicError):
    """The database or blob store cannot be opened or reached; the message names it and, where known, the fix."""

    http_code = 503
    kind = ""


class StoreDamaged(StoreUnavailable):
    """What the store holds is damaged: a checksum does not match (`structural` False: those points only), or the
    database's own structure is broken (`structural` True: the whole database)."""

    def __init__(self, message: str, *, structural: bool = False) -> None:
        super().__init__(message)
        self.structural = structural
