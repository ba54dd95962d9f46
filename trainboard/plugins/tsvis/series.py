"""The point a TS-VIS request names by its step, in a series read whichever writer logged it
(`trainboard.plugins.series`)."""

from __future__ import annotations

from typing import Protocol, TypeVar

from trainboard.errors import NotFoundError


class Stepped(Protocol):
    @property
    def step(self) -> int: ...


S = TypeVar("S", bound=Stepped)


def at_step(points: list[S], step: int) -> S:
    """The first point logged at `step`, as TS-VIS picks it."""
    for point in points:
        if point.step == step:
            return point
    raise NotFoundError(f"no data at step {step}")
