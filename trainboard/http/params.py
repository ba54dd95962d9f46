"""Turning query parameters into typed values; a bad one is an InvalidArgumentError naming it."""

from __future__ import annotations

from starlette.datastructures import QueryParams
from starlette.requests import Request

from trainboard.errors import InvalidArgumentError

# A request may name at most this many characters in one parameter; longer is hostile or a mistake.
MAX_PARAM_LENGTH = 32 * 1024


async def query_or_form(request: Request) -> QueryParams:
    """A GET's query parameters, or a POST's form fields (for values too long for a URL), read alike below."""
    if request.method != "POST":
        return request.query_params
    form = await request.form()
    return QueryParams([(key, value) for key, value in form.multi_items() if isinstance(value, str)])


def required(params: QueryParams, name: str) -> str:
    value = params.get(name)
    if value is None:
        raise InvalidArgumentError(f"missing required query parameter {name!r}")
    return _checked(name, value)


def optional(params: QueryParams, name: str, default: str | None = None) -> str | None:
    value = params.get(name)
    return default if value is None else _checked(name, value)


def integer(params: QueryParams, name: str, default: int | None = None, *, minimum: int | None = None) -> int | None:
    raw = params.get(name)
    if raw is None or raw == "":
        return default
    try:
        value = int(_checked(name, raw))
    except ValueError:
        raise InvalidArgumentError(f"query parameter {name!r} must be an integer, not {raw[:100]!r}") from None
    if minimum is not None and value < minimum:
        raise InvalidArgumentError(f"query parameter {name!r} must be at least {minimum}, not {value}")
    return value


def boolean(params: QueryParams, name: str, default: bool = False) -> bool:
    raw = params.get(name)
    if raw is None:
        return default
    if raw.lower() in ("true", "1", "yes"):
        return True
    if raw.lower() in ("false", "0", "no", ""):
        return False
    raise InvalidArgumentError(f"query parameter {name!r} must be true or false, not {raw[:100]!r}")


def repeated(params: QueryParams, name: str) -> list[str]:
    return [_checked(name, value) for value in params.getlist(name)]


def _checked(name: str, value: str) -> str:
    if len(value) > MAX_PARAM_LENGTH:
        raise InvalidArgumentError(f"query parameter {name!r} is longer than {MAX_PARAM_LENGTH} characters")
    if "\x00" in value:
        raise InvalidArgumentError(f"query parameter {name!r} contains a NUL character")
    return value
