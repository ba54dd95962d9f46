"""Columns of the session-group table (a metric or an hparam): extracting, filtering and sorting by them.

Filters and sort keys behave as TensorBoard's, including Python's comparison rules (True == 1.0, NaN equals nothing).
Regular expressions run on RE2 within the bounds of trainboard.plugins.regex, so no pattern can hang the server.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from trainboard.errors import BadRequestError
from trainboard.plugins import regex
from trainboard.plugins.hparams.values import MetricName, SessionGroup

ORDER_UNSPECIFIED, ORDER_ASC, ORDER_DESC = range(3)

Extractor = Callable[[SessionGroup], Any]
GroupPredicate = Callable[[SessionGroup], bool]

# Stands for values in a discrete filter that are no number, string or boolean: equal to no column value.
_UNMATCHABLE = object()


def extractor(column: Any) -> Extractor:
    """The column's value in a session group, as a Python value; None when the group has none."""
    which = column.WhichOneof("name")
    if which == "metric":
        metric = MetricName(group=column.metric.group, tag=column.metric.tag)

        def metric_value(group: SessionGroup) -> Any:
            found = group.by_metric.get(metric)
            return None if found is None else found.value

        return metric_value
    if which == "hparam":
        name = column.hparam

        def hparam_value(group: SessionGroup) -> Any:
            value = group.hparams.get(name)
            if value is not None and not isinstance(value, float | str | bool):
                raise BadRequestError(f"hparam {name!r} of session group {group.name!r} is no number, string or bool")
            return value

        return hparam_value
    raise BadRequestError(f'Got ColParam with both "metric" and "hparam" fields unset: {column}')


def column_filter(column: Any, extract: Extractor) -> GroupPredicate | None:
    """Whether a session group passes the column's filter; None when the column filters nothing."""
    include_missing = not column.exclude_missing_values
    which = column.WhichOneof("filter")
    if which is None and include_missing:
        return None
    accepts = _value_filter(column, which)

    def passes(group: SessionGroup) -> bool:
        value = extract(group)
        return include_missing if value is None else accepts(value)

    return passes


def _value_filter(column: Any, which: str | None) -> Callable[[Any], bool]:
    if which == "filter_regexp":
        try:
            pattern = regex.compile_regex(column.filter_regexp, name="col_params filter_regexp")
        except regex.error as error:
            shown = column.filter_regexp[:200]
            raise BadRequestError(f"Invalid regular expression {shown!r}: {regex.error_text(error)}") from None

        def matches(value: Any) -> bool:
            if not isinstance(value, str):
                raise BadRequestError(f"Cannot use a regexp filter for a value of type {type(value).__name__}: {value}")
            return pattern.search(value) is not None

        return matches
    if which == "filter_interval":
        low, high = column.filter_interval.min_value, column.filter_interval.max_value

        def within(value: Any) -> bool:
            if not isinstance(value, int | float):
                raise BadRequestError(f"Cannot use an interval filter for a value of type {type(value).__name__}")
            return bool(low <= value and value <= high)

        return within
    if which == "filter_discrete":
        allowed = [_python(value) for value in column.filter_discrete.values]
        return lambda value: value in allowed
    return lambda value: True


def discrete_values_are_scalars(column: Any) -> bool:
    """Whether a discrete filter holds only numbers, strings and booleans (or the column has no such filter)."""
    if column.WhichOneof("filter") != "filter_discrete":
        return True
    return all(
        value.WhichOneof("kind") in ("number_value", "string_value", "bool_value")
        for value in column.filter_discrete.values
    )


def sort_groups(groups: list[SessionGroup], columns: Sequence[Any], extractors: Sequence[Extractor]) -> None:
    """Sort in place by the ordered columns, the first being the most significant, then by group name."""
    groups.sort(key=lambda group: group.name)
    # Stable sorts from the least significant key to the most significant one.
    for column, extract in reversed(list(zip(columns, extractors, strict=True))):
        if column.order == ORDER_UNSPECIFIED:
            continue
        if column.order not in (ORDER_ASC, ORDER_DESC):
            raise BadRequestError(f"Unknown col_param.order given: {column.order}")
        descending = column.order == ORDER_DESC
        none_is_largest = column.missing_values_first if descending else not column.missing_values_first
        try:
            groups.sort(key=_sort_key(extract, none_is_largest), reverse=descending)
        except TypeError:
            raise BadRequestError(f"Cannot order by a column whose values mix types: {column}") from None


def _sort_key(extract: Extractor, none_is_largest: bool) -> Callable[[SessionGroup], tuple[bool, Any]]:
    if none_is_largest:
        return lambda group: ((value := extract(group)) is None, value)
    return lambda group: ((value := extract(group)) is not None, value)


def _python(value: Any) -> Any:
    kind = value.WhichOneof("kind")
    if kind == "number_value":
        return value.number_value
    if kind == "string_value":
        return value.string_value
    if kind == "bool_value":
        return value.bool_value
    return None if kind == "null_value" else _UNMATCHABLE
