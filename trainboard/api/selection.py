"""What a user's `runs=`, `tags=` and `steps=` arguments select."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable

from trainboard.store.values import ALL_STEPS, StepRange

# A list of names, or one regular expression that a name must match (re.search, as TensorBoard's run filter).
Names = Collection[str] | str | None
Steps = tuple[int | None, int | None] | StepRange | None


def chosen(names: Iterable[str], wanted: Names) -> list[str]:
    """The names `wanted` selects, in their order."""
    if wanted is None:
        return list(names)
    if isinstance(wanted, str):
        pattern = re.compile(wanted)
        return [name for name in names if pattern.search(name)]
    allowed = set(wanted)
    return [name for name in names if name in allowed]


def step_range(steps: Steps) -> StepRange:
    if steps is None:
        return ALL_STEPS
    if isinstance(steps, StepRange):
        return steps
    first, last = steps
    return StepRange(first=first, last=last)
