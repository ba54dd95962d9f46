"""Browsers sign in with a token once and then send a session cookie (`trainboard serve`):

- `GET /auth/me` (every app): `{"auth": bool, "user": NAME | null}`; auth is false when the app has no accounts;
  `"sso": true` besides where single sign-on is configured;
- `POST /auth/session` `{"token": "tbk_..."}`: a session of a valid token, in the `trainboard_session` cookie;
- `POST /auth/signout`: ends the request's session and clears the cookie;
- `GET /auth/signin?next=PATH`: a page without script whose form posts a token to `/auth/session` and goes on to
  PATH: how a browser signs in to TensorBoard's and TS-VIS's own UIs (`--ui tensorboard`, `--ui tsvis`), which know
  nothing of tokens; the guard sends their page requests there while signed out.

With single sign-on configured (`--oidc_issuer`), the sign-in page also leads to the identity provider
(`trainboard.http.oidc`), whose sign-in ends in the same kind of session; `trainboard.http.token_page` makes upload
tokens for the signed-in user.

The cookie is HttpOnly, SameSite=Strict, for the path prefix (or /), and Secure when the request came by https (the
scope's scheme: uvicorn sets it from X-Forwarded-Proto for the proxies it trusts).
"""

from __future__ import annotations

import html
from urllib.parse import urlencode

import orjson
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import BaseRoute

from trainboard.access.accounts import Accounts, NewSession
from trainboard.access.audit import Event
from trainboard.http.audit import record
from trainboard.http.guard import SESSION_COOKIE, principal_of, same_origin
from trainboard.http.lazy import LazyEndpoint
from trainboard.http.openapi import HTML, declare, json_body, text
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.http.responses import SECURITY_HEADERS, JSONResponse
from trainboard.http.throttle import authentication_failed
from trainboard.settings import Settings


@declare("Whether the server has accounts, and who is signed in")
async def me(request: Request) -> JSONResponse:
    principal = principal_of(request)
    found = {"auth": request.app.state.accounts is not None, "user": None if principal is None else principal.user.name}
    return JSONResponse(found | ({"sso": True} if request.app.state.sso is not None else {}))


def _refusal(error: str, status: int) -> JSONResponse:
    return JSONResponse({"ok": False, "error": error, "status": status}, status_code=status)


@declare(
    "A session of a valid token, in the session cookie (JSON, or the sign-in page's form)",
    body=json_body({"type": "object", "properties": {"token": {"type": "string"}}, "required": ["token"]}),
)
async def start(request: Request) -> Response:
    """JSON `{"token": ...}`, or the sign-in page's form (`token`, `next`): then a redirect to `next`."""
    # Another site's page may not sign a browser in either (into the other site's account, say).
    if same_origin(request.headers) is False:
        return _refusal("sign in from this server's own pages: the request's Origin names another host", 403)
    settings: Settings = request.app.state.settings
    going_on: str | None = None
    if request.headers.get("content-type", "").startswith(FORM):
        form = await request.form(max_files=0, max_fields=2)
        token, going_on = form.get("token"), local_path(str(form.get("next", "")), settings)
    else:
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
        await authentication_failed(request, token.strip())
        if going_on is not None:
            return _signin_page(request, going_on, refused=True)
        return _refusal("the token is not valid: it is unknown, revoked or expired", 401)
    await record(request, Event.SIGN_IN, user=started.user.name, token_id=started.session.token_id, method="token")
    response: Response = (
        JSONResponse({"ok": True, "user": started.user.name})
        if going_on is None
        else RedirectResponse(going_on, status_code=303)
    )
    set_session_cookie(response, request, started)
    return response


def set_session_cookie(response: Response, request: Request, started: NewSession) -> None:
    response.set_cookie(
        SESSION_COOKIE,
        started.secret,
        max_age=int(started.session.expires - started.session.created),
        path=cookie_path(request.app.state.settings),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )


@declare("End the request's session")
async def signout(request: Request) -> JSONResponse:
    accounts: Accounts = request.app.state.accounts
    secret = request.cookies.get(SESSION_COOKIE)
    if secret:
        await run_in_threadpool(accounts.end_session, secret)
        if principal_of(request) is not None:
            await record(request, Event.SIGN_OUT)
    settings: Settings = request.app.state.settings
    response = JSONResponse({"ok": True})
    response.delete_cookie(
        SESSION_COOKIE,
        path=cookie_path(settings),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response


def cookie_path(settings: Settings) -> str:
    return "/" + settings.path_prefix.strip("/")


def local_path(wanted: str, settings: Settings) -> str:
    """A path of this server to go on to after signing in: `wanted` when it is one, else the app's root (never another
    site: no scheme, no host, no `//` or backslash)."""
    root = "/" + settings.path_prefix.strip("/")
    if wanted.startswith(root) and wanted.startswith("/") and not wanted.startswith("//") and "\\" not in wanted:
        return wanted
    return root.rstrip("/") + "/"


@declare("The sign-in page, going on to next", text("next"), returns=HTML)
async def signin(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    return _signin_page(request, local_path(request.query_params.get("next", ""), settings))


def _signin_page(request: Request, going_on: str, *, refused: bool = False) -> HTMLResponse:
    settings: Settings = request.app.state.settings
    prefix = settings.path_prefix.rstrip("/")
    action = html.escape(prefix + "/auth/session")
    problem = '<p class="problem">That token is not valid: unknown, revoked or expired.</p>' if refused else ""
    single_sign_on = ""
    if request.app.state.sso is not None:
        start = html.escape(f"{prefix}/auth/oidc/start?{urlencode({'next': going_on})}")
        single_sign_on = f'<p><a href="{start}">Sign in with single sign-on</a></p><p>or</p>'
    page = SIGNIN_PAGE.format(action=action, next=html.escape(going_on), problem=problem, sso=single_sign_on)
    headers = {**SECURITY_HEADERS, "Content-Security-Policy": SIGNIN_POLICY}
    return HTMLResponse(page, status_code=401 if refused else 200, headers=headers)


FORM = "application/x-www-form-urlencoded"
# No script at all; its style inline; its form posts here only.
SIGNIN_POLICY = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'"
SIGNIN_PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Sign in · trainboard</title>
<meta name="viewport" content="width=device-width, initial-scale=1">
<style>
:root {{ color-scheme: light dark; font-family: system-ui, sans-serif; }}
body {{ display: grid; place-items: center; min-height: 90vh; margin: 0; }}
form {{ border: 1px solid #8886; border-radius: 6px; padding: 1.5em; width: min(22em, 90vw); }}
input[type=password] {{ width: 100%; box-sizing: border-box; padding: .4em; margin: .5em 0 1em; }}
.problem {{ color: #c62828; }}
</style></head>
<body><form method="post" action="{action}">
<h1>Sign in to trainboard</h1>{problem}{sso}
<label>Access token <input type="password" name="token" autocomplete="off" required autofocus></label>
<input type="hidden" name="next" value="{next}">
<button type="submit">Sign in</button>
</form></body></html>
"""


def routes(accounts: Accounts | None, single_sign_on: bool = False) -> list[BaseRoute]:
    """Who is signed in (no one, without a session) in every app; signing in with a token and signing out where
    there are accounts, and with the identity provider where single sign-on is configured (`trainboard.http.oidc`,
    imported on the first sign-in). Anyone may call them."""
    signing = [
        PolicyRoute("/auth/session", start, Policy.ANYONE, methods=["POST"]),
        PolicyRoute("/auth/signin", signin, Policy.ANYONE),
        PolicyRoute("/auth/signout", signout, Policy.ANYONE, methods=["POST"]),
    ]
    if single_sign_on:
        signing += [
            PolicyRoute("/auth/oidc/start", LazyEndpoint("trainboard.http.oidc", "start"), Policy.ANYONE),
            PolicyRoute("/auth/oidc/callback", LazyEndpoint("trainboard.http.oidc", "callback"), Policy.ANYONE),
            PolicyRoute(
                "/auth/oidc/signout", LazyEndpoint("trainboard.http.oidc", "signout"), Policy.ANYONE, methods=["POST"]
            ),
        ]
    return [PolicyRoute("/auth/me", me, Policy.ANYONE), *(signing if accounts is not None else [])]
