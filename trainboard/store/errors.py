"""Errors of the store layer that a command reports to its user as one line, without a traceback."""

from __future__ import annotations


class StoreUnavailable(Exception):
    """A database or blob store that cannot be reached or used: the message names its URL and the reason."""

    def __init__(self, url: str, reason: str) -> None:
        super().__init__(f"cannot reach {url}: {reason}")
        self.url = url
        self.reason = reason
