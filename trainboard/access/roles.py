"""The roles a user may have on an experiment, each allowing what the ones below it allow."""

from __future__ import annotations

from enum import IntEnum


class Role(IntEnum):
    # View every dashboard, route and blob of the experiment.
    READ = 1
    # Upload into it.
    WRITE = 2
    # Share, rename and make it public; an experiment's owner is its admin.
    ADMIN = 3

    @classmethod
    def named(cls, name: str) -> Role:
        try:
            return cls[name.strip().upper()]
        except KeyError:
            raise ValueError(f"unknown role {name!r}: expected one of {', '.join(ROLE_NAMES)}") from None

    def __str__(self) -> str:
        return self.name.lower()


# The roles by name, lowest first, as the CLI and the HTTP API take them.
ROLE_NAMES = tuple(str(role) for role in Role)
