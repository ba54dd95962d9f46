"""Session groups as TensorBoard's JSON prints them: lowerCamelCase names, every field, enums by name."""

from __future__ import annotations

from typing import Any

from trainboard.plugins.hparams.values import MetricValue, Session, SessionGroup
from trainboard.reader.protos.hparams_pb2 import Status


def session_group_json(group: SessionGroup, hparams: dict[str, Any]) -> dict[str, Any]:
    return {
        "name": group.name,
        "hparams": hparams,
        "metricValues": [metric_value_json(value) for value in group.metric_values],
        "sessions": [session_json(session) for session in group.sessions],
        "monitorUrl": group.monitor_url,
    }


def session_json(session: Session) -> dict[str, Any]:
    return {
        "name": session.name,
        "startTimeSecs": session.start_time_secs,
        "endTimeSecs": session.end_time_secs,
        "status": status_json(session.status),
        "modelUri": session.model_uri,
        "metricValues": [metric_value_json(value) for value in session.metric_values],
        "monitorUrl": session.monitor_url,
    }


def metric_value_json(value: MetricValue) -> dict[str, Any]:
    return {
        "name": {"group": value.name.group, "tag": value.name.tag},
        "value": value.value,
        "trainingStep": value.training_step,
        "wallTimeSecs": value.wall_time_secs,
    }


def status_json(status: int) -> str | int:
    """The enum's name; a number no name stands for prints as itself, as protobuf's JSON does."""
    try:
        return Status.Name(status)
    except ValueError:
        return status
