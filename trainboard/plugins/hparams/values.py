"""The values the hparams plugin computes with: metric names and values, sessions and session groups."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# A google.protobuf.Value in its JSON form: a float, str or bool, or None, a dict or a list for the rare others.
JsonValue = Any


@dataclass(frozen=True, slots=True)
class MetricName:
    """A metric: a scalar `tag` of the runs `<session>/<group>` (the session's own run when `group` is empty)."""

    group: str
    tag: str


@dataclass(frozen=True, slots=True)
class MetricValue:
    name: MetricName
    value: float
    training_step: int
    wall_time_secs: float


@dataclass(frozen=True, slots=True)
class Session:
    """One run with a session start info: its hyperparameters, status and the last value of each metric."""

    name: str
    group_name: str
    hparams: dict[str, JsonValue]
    start_time_secs: float
    end_time_secs: float
    status: int
    model_uri: str
    monitor_url: str
    metric_values: tuple[MetricValue, ...]


@dataclass(frozen=True, slots=True)
class SessionGroup:
    """Sessions sharing a group name; hparams and monitor URL come from the first one, metrics are aggregated."""

    name: str
    hparams: dict[str, JsonValue]
    metric_values: tuple[MetricValue, ...]
    sessions: tuple[Session, ...]
    monitor_url: str
    # The first value of each metric, for filtering and sorting.
    by_metric: dict[MetricName, MetricValue] = field(init=False, compare=False)

    def __post_init__(self) -> None:
        by_metric: dict[MetricName, MetricValue] = {}
        for value in self.metric_values:
            by_metric.setdefault(value.name, value)
        object.__setattr__(self, "by_metric", by_metric)
