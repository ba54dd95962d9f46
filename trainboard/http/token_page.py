"""Upload tokens from the browser, for users who sign in with single sign-on (or a token) and have no shell on the
server: `GET /auth/tokens` a page whose form makes one, `POST /auth/tokens` makes it and shows it once. A token of
the signed-in user, with all their roles; not from a session of a token limited to one experiment, whose limits it
could not keep. Where single sign-on is configured, the page also signs out, here and at the identity provider."""

from __future__ import annotations

import html
from urllib.parse import urlsplit

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import HTMLResponse
from starlette.routing import BaseRoute

from trainboard.access.accounts import AccountError, Accounts
from trainboard.access.single_sign_on import SingleSignOn
from trainboard.http.guard import principal_of
from trainboard.http.openapi import HTML, declare
from trainboard.http.plain_pages import plain_page, problem_page
from trainboard.http.policies import Policy, PolicyRoute
from trainboard.settings import Settings

# How long a token made here lasts unless the form says otherwise.
DEFAULT_DAYS = 90
MAX_DAYS = 3650


def _form(request: Request) -> str:
    settings: Settings = request.app.state.settings
    prefix = html.escape(settings.path_prefix.rstrip("/"))
    creating = (
        f'<form method="post" action="{prefix}/auth/tokens">'
        f'<label>Days until it expires <input type="number" name="days" min="1" max="{MAX_DAYS}"'
        f' value="{DEFAULT_DAYS}"></label> <button type="submit">Create an upload token</button></form>'
    )
    if request.app.state.sso is None:
        return creating
    return creating + (
        f'<form method="post" action="{prefix}/auth/oidc/signout"><p><button type="submit">Sign out</button></p></form>'
    )


@declare("A page that makes an upload token for the signed-in user", returns=HTML)
async def tokens_page(request: Request) -> HTMLResponse:
    principal = principal_of(request)
    assert principal is not None
    intro = f"<p>Signed in as {html.escape(principal.user.name)}.</p>"
    return plain_page("Upload tokens", intro + _form(request), form_leads_to=_provider_origin(request))


@declare("Make an upload token for the signed-in user and show it once", returns=HTML)
async def create_token(request: Request) -> HTMLResponse:
    principal = principal_of(request)
    assert principal is not None
    if principal.token.experiment_id is not None:
        problem = "this session's token is limited to one experiment: it cannot make tokens"
        return problem_page("Upload tokens", problem, status_code=403)
    form = await request.form(max_files=0, max_fields=1)
    try:
        days = float(str(form.get("days") or DEFAULT_DAYS))
    except ValueError:
        days = 0
    if not 0 < days <= MAX_DAYS:
        return problem_page("Upload tokens", f"a token lasts between 1 and {MAX_DAYS} days")
    accounts: Accounts = request.app.state.accounts
    try:
        row, token = await run_in_threadpool(accounts.create_token, principal.user.name, expires_days=days)
    except AccountError as error:
        return problem_page("Upload tokens", str(error), status_code=error.http_code)
    body = (
        f"<p>A token of {html.escape(principal.user.name)} (id {html.escape(row.id)}), shown this once:</p>"
        f'<p><code id="token">{html.escape(token)}</code></p>'
        "<p>Upload with it: <code>TRAINBOARD_TOKEN=&lt;token&gt; trainboard upload --server URL --experiment NAME"
        " --logdir DIR</code>. <code>trainboard tokens revoke</code> ends it.</p>"
    )
    return plain_page("Upload token created", body + _form(request), form_leads_to=_provider_origin(request))


def _provider_origin(request: Request) -> str:
    """Where signing out goes on to: the identity provider's end_session_endpoint, at its issuer's origin."""
    sso: SingleSignOn | None = request.app.state.sso
    if sso is None:
        return ""
    parts = urlsplit(sso.issuer)
    return f"{parts.scheme}://{parts.netloc}"


def routes() -> list[BaseRoute]:
    return [
        PolicyRoute("/auth/tokens", tokens_page, Policy.SIGNED_IN),
        PolicyRoute("/auth/tokens", create_token, Policy.SIGNED_IN, methods=["POST"]),
    ]
