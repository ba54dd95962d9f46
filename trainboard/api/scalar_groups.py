"""`ScalarGroups`: `groups(...)`, a scalar tag's runs grouped as a data frame, written once for `Experiment` (from the
store) and `RemoteExperiment` (from a server); each says only where its groups come from (`_groups`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from trainboard.api.frames import FrameLibrary, Table, check_backend, frame, labels


@dataclass(frozen=True, slots=True)
class GroupQuery:
    """What `groups(...)` was asked, as the plugin (`trainboard.plugins.groups`) and its route take it."""

    tag: str
    by: str
    band: str
    align: str
    filter: str | None

    def form(self) -> dict[str, str]:
        """The route's form (/data/trainboard/groups/scalars)."""
        found = {"tag": self.tag, "by": self.by, "band": self.band, "align": self.align}
        return {**found, "filter": self.filter} if self.filter else found


class ScalarGroups(Protocol):
    backend: FrameLibrary

    def _groups(self, query: GroupQuery) -> list[dict[str, Any]]:
        """The groups as the plugin gives them: each a name and its step, mean, low, high and count lists."""
        ...

    def groups(
        self,
        tag: str,
        by: str,
        *,
        band: str = "std",
        align: str = "exact",
        filter: str | None = None,
        backend: str | None = None,
    ) -> Any:
        """A scalar tag's runs grouped (`by`: hparam:NAME, regex:PATTERN or dir:LEVEL), one row per group and step:
        group, step, mean, low, high (the band: std, minmax or ci) and count, aligned as `align` says (exact or
        asof), as the chart's groups are; `filter` keeps runs by the run filter."""
        found = self._groups(GroupQuery(tag=tag, by=by, band=band, align=align, filter=filter))
        chosen: FrameLibrary = self.backend if backend is None else check_backend(backend)
        return frame(_columns(found), chosen)


def _columns(found: list[dict[str, Any]]) -> Table:
    """The groups' columns one under another, each row named by its group."""
    names = [group["name"] for group in found]
    table: Table = {"group": labels(names, [len(group["step"]) for group in found])}
    for key, dtype in (
        ("step", np.int64),
        ("mean", np.float64),
        ("low", np.float64),
        ("high", np.float64),
        ("count", np.int64),
    ):
        table[key] = np.concatenate([np.asarray(group[key], dtype=dtype) for group in found] or [np.empty(0, dtype)])
    return table
