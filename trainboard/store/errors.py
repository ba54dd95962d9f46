"""Why a store cannot be used, worded for the user."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """The database or blob store cannot be opened or reached; the message names it and, where known, the fix."""
