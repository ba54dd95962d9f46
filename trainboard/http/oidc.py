"""Single sign-on with OpenID Connect: the authorization code flow with PKCE, through Authlib (its PKCE challenge and
its ID token claims) and joserfc (the token's signature); imported on the first sign-in (`trainboard.http.lazy`).

- `GET /auth/oidc/start?next=PATH`: to the provider, with a fresh state, nonce and PKCE verifier kept in a cookie of
  this browser (HttpOnly, SameSite=Lax so that it comes back with the provider's redirect, for /auth/oidc only);
- `GET /auth/oidc/callback`: the provider's answer; the code redeemed once, the ID token checked (signature, issuer,
  audience, expiry, nonce), the user let in by `trainboard.access.single_sign_on`, added on a first sign-in and given
  the roles their claims map to; then a session, as a token's sign-in gives (`trainboard.http.sessions`);
- `POST /auth/oidc/signout`: ends the session here, then at the provider when it offers an end_session_endpoint.

Every refusal is a page that says what went wrong, never a traceback.
"""

from __future__ import annotations

import base64
import dataclasses
import hmac
import html
from typing import Any
from urllib.parse import urlencode

import httpx
import orjson
from authlib.common.security import generate_token
from authlib.common.urls import add_params_to_uri
from authlib.oauth2.rfc7636 import create_s256_code_challenge
from authlib.oidc.core import CodeIDToken
from joserfc import jwt
from joserfc.errors import ClaimError, ExpiredTokenError, JoseError
from joserfc.jwk import KeySet
from joserfc.jws import JWSRegistry
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import RedirectResponse, Response

from trainboard.access.accounts import AccountError, Accounts, NewSession
from trainboard.access.audit import Event
from trainboard.access.single_sign_on import Identity, SignInRefused, SingleSignOn, identity_of, roles_by_claims
from trainboard.http.audit import record
from trainboard.http.context import Experiments
from trainboard.http.guard import SESSION_COOKIE, principal_of
from trainboard.http.openapi import HTML, declare, text
from trainboard.http.plain_pages import plain_page, problem_page
from trainboard.http.sessions import cookie_path, local_path, set_session_cookie
from trainboard.settings import Settings

PENDING_COOKIE = "trainboard_oidc"
# How long a browser may take at the provider before its sign-in here is stale.
PENDING_SECONDS = 600
# Clock skew allowed between the provider and this server.
LEEWAY_SECONDS = 60
PROVIDER_TIMEOUT_SECONDS = 10
# What the provider's claims are called when one of them is wrong.
CLAIM_NAMES = {
    "iss": "it was issued by another issuer than this server's provider",
    "aud": "it was issued to another client than this server",
    "azp": "it was issued to another client than this server",
    "nonce": "it answers another sign-in than the one this browser started",
    "exp": "it has expired",
    "iat": "its time of issue is not valid",
}


class SignInFailed(Exception):
    """A sign-in that cannot go on; the message is shown to the user on a page with the status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


@dataclasses.dataclass(frozen=True, slots=True)
class Pending:
    """A sign-in this browser started: what the provider's answer must match, and where to go on to after."""

    state: str
    nonce: str
    verifier: str
    next: str
    started: float

    def encoded(self) -> str:
        return base64.urlsafe_b64encode(orjson.dumps(dataclasses.asdict(self))).decode()

    @classmethod
    def decoded(cls, text: str) -> Pending | None:
        try:
            found = cls(**orjson.loads(base64.urlsafe_b64decode(text.encode())))
        except (ValueError, TypeError):
            return None
        texts = (found.state, found.nonce, found.verifier, found.next)
        if not all(isinstance(value, str) for value in texts) or not isinstance(found.started, int | float):
            return None
        return found


def _metadata(request: Request) -> dict[str, Any]:
    """The provider's discovery document, fetched on the first sign-in and kept; its issuer must be the one
    configured, as OpenID Connect Discovery requires."""
    found: dict[str, Any] | None = getattr(request.app.state, "oidc_metadata", None)
    if found is not None:
        return found
    sso: SingleSignOn = request.app.state.sso
    address = sso.issuer.rstrip("/") + "/.well-known/openid-configuration"
    try:
        answer = httpx.get(address, timeout=PROVIDER_TIMEOUT_SECONDS)
        answer.raise_for_status()
        metadata = answer.json()
    except (httpx.HTTPError, ValueError) as error:
        raise SignInFailed(f"the identity provider did not answer at {address}: {error}", 502) from None
    if not isinstance(metadata, dict) or metadata.get("issuer") != sso.issuer:
        named = metadata.get("issuer") if isinstance(metadata, dict) else None
        raise SignInFailed(f"the identity provider at {sso.issuer} names itself {named!r}, not {sso.issuer!r}", 502)
    request.app.state.oidc_metadata = metadata
    return metadata


def _callback_url(request: Request) -> str:
    settings: Settings = request.app.state.settings
    return f"{request.url.scheme}://{request.url.netloc}{settings.path_prefix.rstrip('/')}/auth/oidc/callback"


def _pending_cookie_path(settings: Settings) -> str:
    return settings.path_prefix.rstrip("/") + "/auth/oidc"


def _signin_path(settings: Settings, going_on: str) -> str:
    return f"{settings.path_prefix.rstrip('/')}/auth/signin?{urlencode({'next': going_on})}"


@declare("To the identity provider, to sign in and go on to next", text("next"), returns=HTML)
async def start(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    sso: SingleSignOn = request.app.state.sso
    accounts: Accounts = request.app.state.accounts
    going_on = local_path(request.query_params.get("next", ""), settings)
    try:
        metadata = await run_in_threadpool(_metadata, request)
    except SignInFailed as failed:
        return problem_page("Sign-in failed", str(failed), status_code=failed.status)
    pending = Pending(generate_token(32), generate_token(32), generate_token(64), going_on, accounts.now())
    address = add_params_to_uri(
        metadata["authorization_endpoint"],
        [
            ("response_type", "code"),
            ("client_id", sso.client_id),
            ("redirect_uri", _callback_url(request)),
            ("scope", sso.scopes),
            ("state", pending.state),
            ("nonce", pending.nonce),
            ("code_challenge", create_s256_code_challenge(pending.verifier)),
            ("code_challenge_method", "S256"),
        ],
    )
    response = RedirectResponse(address, status_code=303)
    response.set_cookie(
        PENDING_COOKIE,
        pending.encoded(),
        max_age=PENDING_SECONDS,
        path=_pending_cookie_path(settings),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="lax",
    )
    return response


@declare("The identity provider's answer: a session, or a page saying why not", returns=HTML)
async def callback(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    again = _signin_path(settings, "/")
    pending = Pending.decoded(request.cookies.get(PENDING_COOKIE, ""))
    try:
        if pending is None:
            raise SignInFailed(
                "no sign-in is under way in this browser: it was finished already, or it was started elsewhere"
            )
        # The cookie is this browser's, but a path of this server only, whoever set it.
        pending = dataclasses.replace(pending, next=local_path(pending.next, settings))
        again = _signin_path(settings, pending.next)
        started = await run_in_threadpool(_finish, request, pending)
    except SignInFailed as failed:
        response = problem_page("Sign-in failed", str(failed), again=again, status_code=failed.status)
    else:
        body = f'<p>Signed in as {html.escape(started.user.name)}. <a href="{html.escape(pending.next)}">Go on</a></p>'
        response = plain_page("Signed in", body, refresh_to=pending.next)
        set_session_cookie(response, request, started)
        await record(request, Event.SIGN_IN, user=started.user.name, token_id=started.session.token_id, method="oidc")
    response.delete_cookie(PENDING_COOKIE, path=_pending_cookie_path(settings), httponly=True, samesite="lax")
    return response


def _finish(request: Request, pending: Pending) -> NewSession:
    """The provider's answer checked against the sign-in this browser started, the code redeemed, the user let in."""
    sso: SingleSignOn = request.app.state.sso
    accounts: Accounts = request.app.state.accounts
    query = request.query_params
    if not hmac.compare_digest(query.get("state", ""), pending.state):
        raise SignInFailed("the answer does not belong to the sign-in this browser started (its state differs)")
    if accounts.now() - pending.started > PENDING_SECONDS:
        raise SignInFailed(f"the sign-in took more than {PENDING_SECONDS // 60} minutes at the provider")
    if "error" in query:
        said = query.get("error_description") or query["error"]
        raise SignInFailed(f"the identity provider refused the sign-in: {said}", 403)
    metadata = _metadata(request)
    # RFC 9207: the provider names itself in its answer, against a mix-up with another provider.
    if "iss" in query and query["iss"] != sso.issuer:
        raise SignInFailed(f"the answer comes from {query['iss']!r}, not from this server's provider {sso.issuer!r}")
    tokens = _redeem(request, metadata, query.get("code", ""), pending.verifier)
    claims = _id_token_claims(request, metadata, tokens, pending.nonce)
    try:
        identity = identity_of({**_userinfo(metadata, tokens, claims), **claims}, sso)
        return _sign_in(request, identity)
    except (SignInRefused, AccountError) as error:
        raise SignInFailed(str(error), 403) from None


def _redeem(request: Request, metadata: dict[str, Any], code: str, verifier: str) -> dict[str, Any]:
    sso: SingleSignOn = request.app.state.sso
    form = {
        "grant_type": "authorization_code",
        "code": code,
        "redirect_uri": _callback_url(request),
        "code_verifier": verifier,
    }
    try:
        answer = httpx.post(
            metadata["token_endpoint"],
            data=form,
            auth=(sso.client_id, sso.client_secret),
            timeout=PROVIDER_TIMEOUT_SECONDS,
        )
        body = answer.json()
    except (httpx.HTTPError, ValueError) as error:
        raise SignInFailed(f"the identity provider's token endpoint did not answer: {error}", 502) from None
    if answer.status_code != 200 or not isinstance(body, dict) or not isinstance(body.get("id_token"), str):
        said = body.get("error_description") or body.get("error") if isinstance(body, dict) else None
        raise SignInFailed(
            f"the identity provider would not redeem the code ({said or answer.status_code}): a code is good once,"
            " and for a short while"
        )
    return body


def _id_token_claims(request: Request, metadata: dict[str, Any], tokens: dict[str, Any], nonce: str) -> dict[str, Any]:
    sso: SingleSignOn = request.app.state.sso
    accounts: Accounts = request.app.state.accounts
    try:
        keys = httpx.get(metadata["jwks_uri"], timeout=PROVIDER_TIMEOUT_SECONDS).json()
        algorithms = metadata.get("id_token_signing_alg_values_supported") or ["RS256"]
        token = jwt.decode(tokens["id_token"], KeySet.import_key_set(keys), registry=JWSRegistry(algorithms=algorithms))
        claims = CodeIDToken(
            token.claims,
            token.header,
            {"iss": {"essential": True, "value": sso.issuer}, "aud": {"essential": True, "value": sso.client_id}},
            {"nonce": nonce, "client_id": sso.client_id, "access_token": tokens.get("access_token")},
        )
        claims.validate(now=int(accounts.now()), leeway=LEEWAY_SECONDS)
    except ExpiredTokenError:
        raise SignInFailed("the identity provider's ID token has expired: sign in again", 401) from None
    except ClaimError as error:
        reason = CLAIM_NAMES.get(error.claim, f"its claim {error.claim!r} is not valid")
        raise SignInFailed(f"the identity provider's ID token is refused: {reason}", 401) from None
    except (JoseError, httpx.HTTPError, ValueError) as error:
        raise SignInFailed(f"the identity provider's ID token is not valid: {error}", 401) from None
    return dict(claims)


def _userinfo(metadata: dict[str, Any], tokens: dict[str, Any], claims: dict[str, Any]) -> dict[str, Any]:
    """The userinfo endpoint's claims where the provider has one (some give email and groups only there), when they
    are of the ID token's subject."""
    address, access_token = metadata.get("userinfo_endpoint"), tokens.get("access_token")
    if not address or not access_token:
        return {}
    try:
        answer = httpx.get(
            address, headers={"Authorization": f"Bearer {access_token}"}, timeout=PROVIDER_TIMEOUT_SECONDS
        )
        found = answer.json() if answer.status_code == 200 else {}
    except (httpx.HTTPError, ValueError):
        return {}
    return found if isinstance(found, dict) and found.get("sub") == claims.get("sub") else {}


def _sign_in(request: Request, identity: Identity) -> NewSession:
    sso: SingleSignOn = request.app.state.sso
    accounts: Accounts = request.app.state.accounts
    experiments: Experiments = request.app.state.experiments
    user = accounts.signed_in_user(identity.name)
    owned = accounts.owners()
    names = {
        found.experiment_id: None if found.experiment_id in owned else found.name
        for found in experiments.provider.list_experiments()
    }
    accounts.apply_claim_roles(user.id, roles_by_claims(identity, sso.rules, names))
    return accounts.start_signed_in_session(user)


@declare("End the session here, then at the identity provider", returns=HTML)
async def signout(request: Request) -> Response:
    settings: Settings = request.app.state.settings
    sso: SingleSignOn = request.app.state.sso
    accounts: Accounts = request.app.state.accounts
    secret = request.cookies.get(SESSION_COOKIE)
    if secret:
        await run_in_threadpool(accounts.end_session, secret)
        if principal_of(request) is not None:
            await record(request, Event.SIGN_OUT, method="oidc")
    signin = f"{request.url.scheme}://{request.url.netloc}{settings.path_prefix.rstrip('/')}/auth/signin"
    try:
        metadata = await run_in_threadpool(_metadata, request)
        ending = metadata.get("end_session_endpoint")
    except SignInFailed:
        ending = None
    going = signin
    if isinstance(ending, str):
        going = add_params_to_uri(ending, [("client_id", sso.client_id), ("post_logout_redirect_uri", signin)])
    response = RedirectResponse(going, status_code=303)
    response.delete_cookie(
        SESSION_COOKIE,
        path=cookie_path(settings),
        secure=request.url.scheme == "https",
        httponly=True,
        samesite="strict",
    )
    return response
