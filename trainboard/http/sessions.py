"""Browsers sign in with a token once and then send a session cookie (`trainboard serve`):

- `GET /auth/me` (every app): `{"auth": bool, "user": NAME | null}`; auth is false when the app has no accounts;
- `POST /auth/session` `{"token": "tbk_..."}`: a session of a valid token, in the `trainboard_session` cookie;
- `POST /auth/signout`: ends the request's session and clears the cookie.

The cookie is HttpOnly, SameSite=Strict, for the path prefix (or /), and Secure when the request came by https (the
scope's scheme: uvicorn sets it from X-Forwarded-Proto for the proxies it trusts).
"""

from __future__ import annotations

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.routing import BaseRoute, Route

from trainboard.access.accounts import Accounts
from trainboard.http.guard import SESSION_COOKIE, principal_of, same_origin
from trainboard.http.responses import JSONResponse
from trainboard.settings import Settings


async def me(request: Request) -> JSONResponse:
    principal = principal_of(request)
    return JSONResponse(
        {"auth": request.app.state.accounts is not None, "user": None if principal is None else principal.user.name}
    )


def _refusal(error: str, status: int) -> JSONResponse:
    return JSONResponse({"ok": False, "error": error, "status": status}, status_code=status)


async def start(request: Request) -> JSONResponse:
    # Another site's page may not sign a browser in either (into the other site's account, say).
    if same_origin(request.headers) is False:
        return _refusal("sign in from this server's own pages: the request's Origin names another host", 403)
    try:
        body = orjson.loads(await request.body())
    except orjson.JSONDecodeError:
        body = None
    token = body.get("token") if isinstance(body, dict) else None
    if not isinstance(token, str):
        return _refusal('expected {"token": "tbk_..."}', 400)
    accounts: Accounts = request.app.state.accounts
    started = await run_in_threadpool(accounts.start_session, token.strip())
    if started is None:
        return _refusal("the token is not valid: it is unknown, revoked or expired", 401)
    settings: Settings = request.app.state.settings
    response = JSONResponse({"ok": True, "user": started.user.name})
    response.set_cookie(
        SESSION_COOKIE,
        started.secret,
        max_age=int(started.session.expires - started.session.created),
        path=_cookie_path(settings),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


async def signout(request: Request) -> JSONResponse:
    accounts: Accounts = request.app.state.accounts
    secret = request.cookies.get(SESSION_COOKIE)
    if secret:
        await run_in_threadpool(accounts.end_session, secret)
    settings: Settings = request.app.state.settings
    response = JSONResponse({"ok": True})
    response.delete_cookie(
        SESSION_COOKIE,
        path=_cookie_path(settings),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


def _cookie_path(settings: Settings) -> str:
    return "/" + settings.path_prefix.strip("/")


def routes(accounts: Accounts | None) -> list[BaseRoute]:
    """`/auth/me` in every app; signing in and out where there are accounts."""
    if accounts is None:
        return [Route("/auth/me", me)]
    return [
        Route("/auth/me", me),
        Route("/auth/session", start, methods=["POST"]),
        Route("/auth/signout", signout, methods=["POST"]),
    ]
