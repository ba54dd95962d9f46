"""Experiment names are unique per owner, not across the store: two users may each have an experiment named
"baseline", one user cannot have two, and experiments without an owner (made by `trainboard ingest` and
`trainboard --logdir`) share one more set of names. So a name finds an experiment as someone: the caller's own of
that name first, else the one other experiment of that name the caller may use; several others are refused with
their ids, never one picked at random. An experiment's id always finds it."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Protocol, TypeVar

from trainboard.errors import PublicError


class Named(Protocol):
    @property
    def id(self) -> str: ...

    @property
    def name(self) -> str: ...


Row = TypeVar("Row", bound=Named)


class AmbiguousName(PublicError):
    """A name that several experiments have, none of them the caller's: the message lists their ids, one of which the
    caller can give instead."""

    http_code = 409
    kind = ""

    def __init__(self, name: str, ids: Iterable[str]) -> None:
        self.ids = sorted(ids)
        super().__init__(
            f"{len(self.ids)} experiments are named {name!r}, none of them yours: give one's id instead"
            f" ({', '.join(self.ids)})"
        )


def find_experiment(rows: Iterable[Row], wanted: str, *, own: Callable[[Row], bool]) -> Row | None:
    """The experiment whose id is `wanted`; else the caller's `own` one named so; else the only other one named so;
    None when none is. AmbiguousName when several others are."""
    named: list[Row] = []
    for row in rows:
        if row.id == wanted:
            return row
        if row.name == wanted:
            named.append(row)
    mine = [row for row in named if own(row)]
    if mine:
        return mine[0]
    if len(named) > 1:
        raise AmbiguousName(wanted, (row.id for row in named))
    return named[0] if named else None


class OwnedRow(Named, Protocol):
    @property
    def owner_id(self) -> int | None: ...


def ownerless(row: OwnedRow) -> bool:
    """Whether nobody owns the experiment: the caller's own, for a caller that is no user (the command line, a
    store opened by the Python API)."""
    return row.owner_id is None
