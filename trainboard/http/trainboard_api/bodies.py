"""What trainboard's own write routes share: a JSON object as the request's body, and refusals in trainboard's JSON
error shape (`{"ok": false, "error": ..., "status": ...}`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import wraps
from typing import Any

import orjson
from starlette.requests import Request

from trainboard.errors import InvalidArgumentError, NoSuchExperiment, PublicError
from trainboard.http.responses import JSONResponse

Handler = Callable[[Request], Awaitable[JSONResponse]]


async def json_object(request: Request, allowed: frozenset[str]) -> dict[str, Any]:
    """The body, a JSON object of the `allowed` keys only (a misspelt key is an error, not a change left out)."""
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        raise InvalidArgumentError("the request body must be a JSON object") from None
    if not isinstance(body, dict):
        raise InvalidArgumentError("the request body must be a JSON object")
    if unknown := sorted(set(body) - allowed):
        raise InvalidArgumentError(
            f"unknown keys {', '.join(repr(key[:100]) for key in unknown[:5])}; known: {', '.join(sorted(allowed))}"
        )
    return body


def answers_json_errors(handler: Handler) -> Handler:
    """The handler, its refusals (but an experiment's or a pin's that does not exist, which every route words alike)
    answered as trainboard's JSON."""

    @wraps(handler)
    async def answering(request: Request) -> JSONResponse:
        try:
            return await handler(request)
        except NoSuchExperiment:
            raise
        except PublicError as error:
            if error.http_code >= 500:
                raise
            status = error.http_code
            return JSONResponse({"ok": False, "error": str(error), "status": status}, status_code=status)

    return answering
