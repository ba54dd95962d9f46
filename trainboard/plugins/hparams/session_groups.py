"""ListSessionGroups: sessions grouped, aggregated, filtered, sorted and sliced, as TensorBoard 2.21 answers."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from trainboard.errors import BadRequestError
from trainboard.plugins.hparams.aggregation import aggregate
from trainboard.plugins.hparams.columns import (
    column_filter,
    discrete_values_are_scalars,
    extractor,
    sort_groups,
)
from trainboard.plugins.hparams.encoding import session_group_json
from trainboard.plugins.hparams.experiment import all_starts, full_experiment, metric_names
from trainboard.plugins.hparams.memo import Remember, compute_now
from trainboard.plugins.hparams.sessions import sessions
from trainboard.plugins.hparams.values import MetricName, Session, SessionGroup
from trainboard.provider.provider import DataProvider


def list_session_groups(
    provider: DataProvider, experiment_id: str, request: Any, remember: Remember = compute_now
) -> dict[str, Any]:
    """The ListSessionGroupsResponse for a ListSessionGroupsRequest message, as JSON."""
    groups = filtered_groups(provider, experiment_id, request, remember)
    start = request.start_index
    page = groups[start : start + request.slice_size]
    included = _hparams_to_include(request.col_params)
    return {
        "sessionGroups": [
            session_group_json(group, _only(group.hparams, included) if included is not None else group.hparams)
            for group in page
        ],
        "totalSize": len(groups),
    }


def filtered_groups(
    provider: DataProvider, experiment_id: str, request: Any, remember: Remember = compute_now
) -> list[SessionGroup]:
    """Every session group that passes the request's statuses and filters, in the request's order."""
    include_metrics = not request.HasField("include_metrics") or request.include_metrics
    columns = list(request.col_params)
    extractors = [extractor(column) for column in columns]
    filters = [
        accepts
        for column, extract in zip(columns, extractors, strict=True)
        if (accepts := column_filter(column, extract)) is not None
    ]
    aggregation_metric = MetricName(group=request.aggregation_metric.group, tag=request.aggregation_metric.tag)
    statuses = frozenset(request.allowed_statuses)

    def all_sessions() -> list[Session]:
        return sessions(
            provider,
            experiment_id,
            all_starts(provider, experiment_id, remember),
            metric_names(full_experiment(provider, experiment_id, include_metrics, remember)),
        )

    def all_groups() -> list[SessionGroup]:
        found = remember(("sessions", include_metrics), all_sessions)
        return group_sessions(found, statuses, request.aggregation_type, aggregation_metric)

    key = ("groups", include_metrics, statuses, request.aggregation_type, aggregation_metric)
    groups = [group for group in remember(key, all_groups) if all(accepts(group) for accepts in filters)]
    sort_groups(groups, columns, extractors)
    if not groups and not all(discrete_values_are_scalars(column) for column in columns if column.hparam):
        # TensorBoard fails on such a filter when no group is left (it then asks its data provider).
        raise BadRequestError("Discrete filters of hparams may hold only numbers, strings and booleans")
    return groups


def group_sessions(
    found: Iterable[Session], allowed_statuses: frozenset[int], aggregation_type: int, aggregation_metric: MetricName
) -> list[SessionGroup]:
    """Sessions of the allowed statuses by group name, in order of first appearance; each group takes its hparams
    and monitor URL from its first session and lists its sessions by name."""
    members: dict[str, list[Session]] = {}
    for session in found:
        if session.status in allowed_statuses:
            members.setdefault(session.group_name, []).append(session)
    groups = []
    for name, in_group in members.items():
        first = in_group[0]
        ordered = sorted(in_group, key=lambda session: session.name)
        groups.append(
            SessionGroup(
                name=name,
                hparams=first.hparams,
                metric_values=aggregate(name, ordered, aggregation_type, aggregation_metric),
                sessions=tuple(ordered),
                monitor_url=first.monitor_url,
            )
        )
    return groups


def _hparams_to_include(columns: Sequence[Any]) -> set[str] | None:
    """When any column says include_in_result, the hparams of the columns that do not exclude themselves."""
    if not any(column.HasField("include_in_result") for column in columns):
        return None
    return {
        column.hparam
        for column in columns
        if column.hparam and not (column.HasField("include_in_result") and not column.include_in_result)
    }


def _only(hparams: dict[str, Any], names: set[str]) -> dict[str, Any]:
    return {name: value for name, value in hparams.items() if name in names}
