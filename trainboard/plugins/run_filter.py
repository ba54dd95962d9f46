"""The run filter: the runs whose name, hyperparameters and final metric values a filter keeps
(`trainboard.store.run_filter` describes the language), with those values."""

from __future__ import annotations

from typing import Any

from trainboard.errors import InvalidArgumentError
from trainboard.plugins.regex import compile_regex, error, error_text
from trainboard.provider.provider import DataProvider
from trainboard.provider.values import RunFilter, RunValues, parse_filter
from trainboard.store.run_filter import FilterSyntaxError


def parsed(text: str | None) -> RunFilter | None:
    """The filter's tree, None for no filter (absent or blank); InvalidArgumentError says where and what was
    expected."""
    if text is None or not text.strip():
        return None
    return parse_filter(text, _pattern)


def _pattern(pattern: str) -> Any:
    try:
        return compile_regex(pattern, name="a filter's regular expression")
    except error as failure:
        raise InvalidArgumentError(f"invalid regular expression: {error_text(failure)}") from None


def runs(
    provider: DataProvider,
    experiment_id: str,
    text: str | None,
    *,
    regex_fallback: bool = False,
    errors_answered: bool = False,
) -> dict[str, object]:
    """The runs the filter keeps. Text that is not a filter raises InvalidArgumentError, unless: with
    `errors_answered`, the answer says so (mode "invalid", the error, and the position where it was found and what
    was expected there, null for a filter refused whole, as one too long), for the web UI's filter box, which shows
    the error as one types; with `regex_fallback` (the UI before the explicit regex mode), mode "regex" and why in
    "reason", for a caller that then matches the text as a regular expression on run names."""
    try:
        tree = parsed(text)
    except InvalidArgumentError as error:
        if errors_answered:
            syntax = error if isinstance(error, FilterSyntaxError) else None
            return {
                "filter": text or "",
                "mode": "invalid",
                "error": error.message.removeprefix("filter: "),
                "position": syntax.position if syntax else None,
                "expected": syntax.expected if syntax else None,
                "runs": None,
            }
        if not regex_fallback:
            raise
        return {"filter": text or "", "mode": "regex", "reason": error.message, "runs": None}
    found = provider.list_run_values(experiment_id=experiment_id, run_filter=tree)
    return {"filter": text or "", "mode": "filter", "runs": [as_json(values) for values in found]}


def as_json(values: RunValues) -> dict[str, object]:
    return {"run": values.run, "hparams": values.hparams, "metrics": values.metrics}
