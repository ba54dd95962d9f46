"""TS-VIS's answer envelope and query decoding.

Every answer is HTTP 200 with `{"code": 200, "msg": "ok", "data": ...}`; a failure is `{"code": 500, "msg":
<what went wrong>, "data": ""}`, never with a traceback. TS-VIS's clients encode query values, sometimes twice: a
value is decoded once more, and again while it still holds a "%".
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Awaitable, Callable
from typing import Any
from urllib.parse import unquote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request

from trainboard.errors import InvalidArgumentError, PublicError
from trainboard.http import params
from trainboard.http.responses import JSONResponse
from trainboard.names import loggable

logger = logging.getLogger("trainboard.http.tsvis")

Endpoint = Callable[[Request], Awaitable[JSONResponse]]


def answer(compute: Callable[[Request], Any]) -> Endpoint:
    """An endpoint that runs `compute` in a worker thread and wraps what it returns, or why it failed."""

    @functools.wraps(compute)
    async def endpoint(request: Request) -> JSONResponse:
        try:
            data = await run_in_threadpool(compute, request)
        except PublicError as error:
            return failure(error.message or str(error))
        except Exception:
            # The API's boundary: TS-VIS's clients expect the envelope, whatever went wrong.
            logger.exception("TS-VIS route %s failed", loggable(request.url.path))
            return failure("internal error (logged by the server)")
        return JSONResponse({"code": 200, "msg": "ok", "data": data})

    return endpoint


def failure(message: str) -> JSONResponse:
    return JSONResponse({"code": 500, "msg": message, "data": ""})


def text(request: Request, name: str) -> str:
    value = unquote(params.required(request.query_params, name))
    return unquote(value) if "%" in value else value


def integer(request: Request, name: str) -> int:
    value = text(request, name)
    try:
        return int(value)
    except ValueError:
        raise InvalidArgumentError(f"parameter {name!r} must be an integer, not {value[:100]!r}") from None


def number(request: Request, name: str) -> float:
    value = text(request, name)
    try:
        return float(value)
    except ValueError:
        raise InvalidArgumentError(f"parameter {name!r} must be a number, not {value[:100]!r}") from None


def optional_integer(request: Request, name: str) -> int | None:
    return integer(request, name) if request.query_params.get(name) else None
