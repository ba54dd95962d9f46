"""The cookie of a sign-in under way, read only when it is one of ours; the routes single sign-on adds to
`trainboard serve`, each with its policy, as the route-policy matrix walks them
(tests/http/test_route_policies.py walks an app without single sign-on; tests/browser/test_ui_single_sign_on.py
signs in through a real provider)."""

from __future__ import annotations

import base64
from pathlib import Path

import pytest

from tests.access.test_single_sign_on import SSO
from tests.http.test_route_policies import walk
from trainboard.access.accounts import Accounts
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.http.oidc import Pending
from trainboard.http.policies import Policy
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.settings import Settings
from trainboard.store.opening import open_store


def _policies(tmp_path: Path, *, sso: bool) -> dict[tuple[str, str], Policy | None]:
    store = open_store(f"sqlite:{tmp_path / 'team.sqlite'}")
    try:
        experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
        app = create_app(experiments, Settings(), accounts=Accounts(store.accounts), sso=SSO if sso else None)
        return {(route.path, route.method): route.policy for route in walk(app.routes, scoped=False)}
    finally:
        store.close()


def test_single_sign_on_adds_its_routes_for_anyone_and_nothing_unguarded(tmp_path: Path) -> None:
    with_sso, without = _policies(tmp_path, sso=True), _policies(tmp_path, sso=False)
    assert {route: with_sso[route] for route in set(with_sso) - set(without)} == {
        ("/auth/oidc/start", "GET"): Policy.ANYONE,
        ("/auth/oidc/callback", "GET"): Policy.ANYONE,
        ("/auth/oidc/signout", "POST"): Policy.ANYONE,
    }
    assert None not in with_sso.values()
    # The upload-token page is there with accounts, single sign-on or not.
    assert without[("/auth/tokens", "GET")] is without[("/auth/tokens", "POST")] is Policy.SIGNED_IN


@pytest.mark.parametrize(
    "cookie",
    [
        "",
        "not base64 !",
        base64.urlsafe_b64encode(b"[1, 2]").decode(),
        base64.urlsafe_b64encode(b'{"state": "s"}').decode(),
        base64.urlsafe_b64encode(b'{"state": 1, "nonce": "n", "verifier": "v", "next": "/", "started": 1}').decode(),
        base64.urlsafe_b64encode(
            b'{"state": "s", "nonce": "n", "verifier": "v", "next": "/", "started": "x"}'
        ).decode(),
    ],
)
def test_a_pending_sign_in_cookie_that_is_not_ours_is_none(cookie: str) -> None:
    assert Pending.decoded(cookie) is None


def test_a_pending_sign_in_cookie_round_trips() -> None:
    pending = Pending("state", "nonce", "verifier", "/next", 12.5)
    assert Pending.decoded(pending.encoded()) == pending
