"""What a request's `run`, `run_regex`, `tag`, `tag_regex`, `first_step`, `last_step` and `latest` parameters select,
and the trainboard.api experiment a request reads (every point, through the experiment's provider)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from starlette.datastructures import QueryParams
from starlette.requests import Request

from trainboard.api.experiment import Experiment
from trainboard.api.selection import Names
from trainboard.errors import InvalidArgumentError
from trainboard.http import openapi, params
from trainboard.http.context import experiment
from trainboard.plugins.regex import compile_regex, error, error_text
from trainboard.store.values import StepRange

PARAMETERS = (
    openapi.repeated("run"),
    openapi.text("run_regex", max_length=1024),
    openapi.repeated("tag"),
    openapi.text("tag_regex", max_length=1024),
    openapi.integer("first_step"),
    openapi.integer("last_step"),
    openapi.integer("latest", minimum=0),
)


@dataclass(frozen=True, slots=True)
class Selection:
    runs: Names
    tags: Names
    steps: StepRange


def api_experiment(request: Request) -> Experiment:
    """The experiment the URL names (as of its pin, below .../at/<pin>/), read point by point."""
    found = experiment(request)
    # NotFoundError for an experiment deleted since this server first served it.
    metadata = found.provider.experiment_metadata(experiment_id=found.id)
    return Experiment(
        found.provider, found.id, name=metadata.experiment_name, location=metadata.data_location, backend="arrow"
    )


def selection(request: Request, api: Experiment) -> Selection:
    query = request.query_params
    steps = _steps(query)
    runs = _names(query, "run", api.run_names)
    tags = _names(query, "tag", api.tag_names)
    return Selection(runs, tags, steps)


def _names(query: QueryParams, name: str, every: Callable[[], list[str]]) -> Names:
    """The names given (`name` repeated), or those of `every()` that the RE2 expression `<name>_regex` finds; None
    for all."""
    given = params.repeated(query, name)
    pattern = params.optional(query, f"{name}_regex")
    if pattern is None:
        return given or None
    if given:
        raise InvalidArgumentError(f"give {name} or {name}_regex, not both")
    try:
        compiled = compile_regex(pattern, name=f"{name}_regex")
    except error as failure:
        raise InvalidArgumentError(f"{name}_regex is not a valid regular expression: {error_text(failure)}") from None
    return [found for found in every() if compiled.search(found)]


def _steps(query: QueryParams) -> StepRange:
    first = params.integer(query, "first_step")
    last = params.integer(query, "last_step")
    latest = params.integer(query, "latest", minimum=0)
    for bound in (first, last, latest):
        if bound is not None and not -(2**63) <= bound < 2**63:
            raise InvalidArgumentError(f"a step bound must be a 64-bit integer, not {bound}")
    if latest is not None and (first is not None or last is not None):
        raise InvalidArgumentError("give latest or first_step/last_step, not both")
    return StepRange(first=first, last=last, latest=latest)
