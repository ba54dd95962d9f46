"""Browsers' sessions, CSRF and the experiments routes against a real `trainboard serve` on SQLite and PostgreSQL:
signing in and out, the cookie's flags (Secure behind an https proxy), a revoked token ending its sessions, cross-site
requests refused, experiments created and listed with roles, an experiment's access listed."""

from __future__ import annotations

from http.cookies import Morsel, SimpleCookie
from pathlib import Path

import httpx

from tests import loopback
from tests.commands import in_process_command as cli
from tests.http.teams import Team, bearer, cookie, denial, new_token, sign_in
from tests.servers import store_serving
from trainboard.access.accounts import SESSION_SECONDS
from trainboard.http.guard import SESSION_COOKIE

EVIL = "http://evil.example"


def set_cookie(response: httpx.Response) -> Morsel[str]:
    cookies: SimpleCookie = SimpleCookie()
    cookies.load(response.headers["set-cookie"])
    return cookies[SESSION_COOKIE]


def me(url: str, headers: dict[str, str]) -> object:
    return loopback.get(f"{url}/auth/me", headers=headers).raise_for_status().json()


def test_a_token_signs_a_browser_in_and_out(team: Team) -> None:
    response = loopback.post(f"{team.url}/auth/session", json={"token": team.reader}, headers={"Origin": team.url})
    assert response.status_code == 200 and response.json() == {"ok": True, "user": "bob"}
    flags = set_cookie(response)
    assert flags["httponly"] is True and flags["samesite"].lower() == "strict" and flags["path"] == "/"
    assert flags["secure"] == "" and flags["max-age"] == str(SESSION_SECONDS)
    bob = cookie(flags.value, team.url)
    assert me(team.url, bob) == {"auth": True, "user": "bob"}
    assert me(team.url, {}) == {"auth": True, "user": None}

    # The session carries its token's limits: reading `private` only.
    runs = f"{team.url}/experiment/{team.private}/data/runs"
    assert loopback.get(runs, headers=bob).json() == ["train"]
    assert loopback.get(f"{team.url}/experiment/{team.other}/data/runs", headers=bob).text == denial(team.other)
    refused = loopback.post(f"{team.url}/experiment/{team.private}/admin/public", headers=bob, json={"public": True})
    assert (refused.status_code, refused.text) == (404, denial(team.private))

    signed_out = loopback.post(f"{team.url}/auth/signout", headers=bob)
    assert signed_out.status_code == 200 and signed_out.json() == {"ok": True}
    cleared = set_cookie(signed_out)
    assert cleared.value == "" and cleared["max-age"] == "0" and cleared["path"] == "/"
    # The old cookie is worth nothing now: as no cookie at all.
    assert me(team.url, bob) == {"auth": True, "user": None}
    assert loopback.get(runs, headers=bob).status_code == 401


def test_only_a_valid_token_opens_a_session(team: Team) -> None:
    url = f"{team.url}/auth/session"
    for body in ({"token": team.reader + "x"}, {"token": "tbk_0000000000_" + "x" * 43}):
        refused = loopback.post(url, json=body)
        assert refused.status_code == 401 and refused.json()["ok"] is False and "set-cookie" not in refused.headers
    for content in (b"not json", b"[]", b'{"token": 3}'):
        assert loopback.post(url, content=content).status_code == 400
    cli("tokens", "revoke", f"--db={team.db}", team.reader.split("_")[1])
    assert loopback.post(url, json={"token": team.reader}).status_code == 401


def test_revoking_or_expiring_the_token_ends_its_sessions(team: Team) -> None:
    bob = cookie(sign_in(team.url, team.reader), team.url)
    runs = f"{team.url}/experiment/{team.private}/data/runs"
    assert loopback.get(runs, headers=bob).status_code == 200
    cli("tokens", "revoke", f"--db={team.db}", team.reader.split("_")[1])
    assert loopback.get(runs, headers=bob).status_code == 401
    assert me(team.url, bob) == {"auth": True, "user": None}

    # A session of a token that expires sooner than a session lasts ends with it, and its cookie says so.
    brief = new_token(team.db, "ada", "--expires=0.5")
    response = loopback.post(f"{team.url}/auth/session", json={"token": brief})
    assert abs(int(set_cookie(response)["max-age"]) - 43_200) <= 5


def test_the_cookie_is_secure_behind_an_https_proxy_and_scoped_to_the_path_prefix(tmp_path: Path) -> None:
    db = f"sqlite:{tmp_path / 'store.sqlite'}"
    cli("users", "add", "ada", f"--db={db}")
    token = new_token(db, "ada")
    # uvicorn takes X-Forwarded-Proto from the proxies it trusts (FORWARDED_ALLOW_IPS; loopback by default).
    with store_serving(db, tmp_path / "serve", "--path_prefix=/board") as url:
        assert url.endswith("/board")
        proxied = loopback.post(f"{url}/auth/session", json={"token": token}, headers={"X-Forwarded-Proto": "https"})
        flags = set_cookie(proxied)
        assert flags["secure"] is True and flags["path"] == "/board" and flags["httponly"] is True
        plain = set_cookie(loopback.post(f"{url}/auth/session", json={"token": token}))
        assert plain["secure"] == "" and plain["path"] == "/board"
        signed_out = loopback.post(
            f"{url}/auth/signout",
            headers={**cookie(flags.value, "https://" + url.removeprefix("http://")), "X-Forwarded-Proto": "https"},
        )
        cleared = set_cookie(signed_out)
        assert cleared["secure"] is True and cleared["path"] == "/board" and cleared["max-age"] == "0"


def test_cross_site_requests_with_the_cookie_are_refused(team: Team) -> None:
    session = sign_in(team.url, team.admin)
    public = f"{team.url}/experiment/{team.private}/admin/public"
    body = {"public": False}
    for headers in (
        cookie(session, EVIL),
        cookie(session, None),
        cookie(session, "null"),
        {**cookie(session, None), "Referer": f"{EVIL}/page"},
        # The same host on another port is another origin.
        cookie(session, "http://127.0.0.1:1"),
    ):
        refused = loopback.post(public, headers=headers, json=body)
        assert refused.status_code == 403, headers
        assert refused.text.startswith("Permission denied: a request signed in by the session cookie must come from")
    assert loopback.post(public, headers=cookie(session, team.url), json=body).status_code == 200
    same_page = {**cookie(session, None), "Referer": f"{team.url}/experiment/{team.private}/"}
    assert loopback.post(public, headers=same_page, json=body).status_code == 200
    # Reads are no state change; a bearer token is no cookie a browser sends by itself.
    assert loopback.get(f"{team.url}/auth/me", headers=cookie(session, EVIL)).json()["user"] == "ada"
    assert loopback.post(public, headers={**bearer(team.admin), "Origin": EVIL}, json=body).status_code == 200

    # Another site's page can neither sign the browser out nor in.
    assert loopback.post(f"{team.url}/auth/signout", headers=cookie(session, EVIL)).status_code == 403
    assert me(team.url, cookie(session, None)) == {"auth": True, "user": "ada"}
    login = loopback.post(f"{team.url}/auth/session", json={"token": team.stranger}, headers={"Origin": EVIL})
    assert login.status_code == 403 and "set-cookie" not in login.headers


def test_experiments_are_created_owned_by_the_caller_and_listed_with_roles(team: Team) -> None:
    url = f"{team.url}/data/experiments"
    created = loopback.post(url, headers=bearer(team.stranger), json={"name": "eves", "description": "mine"})
    assert created.status_code == 201, created.text
    eves = created.json()
    assert eves == {
        "ok": True,
        "id": eves["id"],
        "name": "eves",
        "description": "mine",
        "role": "admin",
        "public": False,
    }
    taken = loopback.post(url, headers=bearer(team.stranger), json={"name": "eves"})
    assert taken.status_code == 409 and taken.json() == {
        "ok": False,
        "error": "you have an experiment named 'eves' already",
        "status": 409,
    }
    # Names are unique per owner: another's name (here one the caller cannot see) is the caller's to take too, so
    # that the answer tells nothing of what others have.
    others = loopback.post(url, headers=bearer(team.stranger), json={"name": "other"})
    assert others.status_code == 201 and others.json()["id"] != team.other
    limited = loopback.post(url, headers=bearer(team.admin), json={"name": "adas"})
    assert limited.status_code == 403 and "limited to one experiment" in limited.json()["error"]
    assert loopback.post(url, json={"name": "anyones"}).status_code == 401
    for body in ({}, {"name": " "}, {"name": "x", "description": 3}):
        assert loopback.post(url, headers=bearer(team.stranger), json=body).status_code == 400
    browser = cookie(sign_in(team.url, team.stranger), team.url)
    assert loopback.post(url, headers=browser, json={"name": "eves-too"}).status_code == 201
    assert loopback.post(url, headers={**browser, "Origin": EVIL}, json={"name": "forged"}).status_code == 403

    listed = {e["name"]: e for e in loopback.get(url, headers=browser).raise_for_status().json()}
    assert sorted(listed) == ["eves", "eves-too", "other"]
    assert (listed["eves"]["id"], listed["eves"]["runCount"], listed["eves"]["description"]) == (eves["id"], 0, "mine")
    assert all(
        (e["role"], e["public"], e["owned"], e["owner"]) == ("admin", False, True, "eve") for e in listed.values()
    )
    assert loopback.get(f"{team.url}/experiment/{eves['id']}/data/runs", headers=browser).json() == []

    # Roles as each caller has them, and public experiments read by anyone.
    (private,) = loopback.get(url, headers=bearer(team.reader)).json()
    assert (private["name"], private["role"], private["public"], private["owned"]) == ("private", "read", False, False)
    admin_url = f"{team.url}/experiment/{team.private}/admin"
    assert loopback.post(f"{admin_url}/public", headers=bearer(team.admin), json={"public": True}).is_success
    (private,) = loopback.get(url, headers=bearer(team.admin)).json()
    assert (private["role"], private["public"]) == ("admin", True)
    seen = {e["name"]: (e["role"], e["public"]) for e in loopback.get(url, headers=bearer(team.stranger)).json()}
    assert seen == {
        "eves": ("admin", False),
        "eves-too": ("admin", False),
        "other": ("admin", False),
        "private": ("read", True),
    }
    # Whose each one is (ingested, `private` has no owner).
    eves_admin = f"{team.url}/experiment/{eves['id']}/admin/public"
    assert loopback.post(eves_admin, headers=bearer(team.stranger), json={"public": True}).is_success
    owners = {e["name"]: e["owner"] for e in loopback.get(url, headers=bearer(team.reader)).json()}
    assert owners == {"eves": "eve", "private": None}


def test_an_admin_lists_who_has_access(team: Team) -> None:
    access = f"{team.url}/experiment/{team.private}/admin/access"
    answer = loopback.get(access, headers=bearer(team.admin))
    # Ingested, `private` has no owner; `tokens create` gave ada and bob their roles.
    assert answer.status_code == 200 and answer.json() == {
        "owner": None,
        "public": False,
        "shares": [{"user": "ada", "role": "admin"}, {"user": "bob", "role": "read"}],
    }
    refused = loopback.get(access, headers=bearer(team.reader))
    assert (refused.status_code, refused.text) == (404, denial(team.private))

    created = loopback.post(f"{team.url}/data/experiments", headers=bearer(team.stranger), json={"name": "eves"})
    eves = f"{team.url}/experiment/{created.json()['id']}/admin"
    assert loopback.post(
        f"{eves}/share", headers=bearer(team.stranger), json={"user": "bob", "role": "write"}
    ).is_success
    assert loopback.post(f"{eves}/public", headers=bearer(team.stranger), json={"public": True}).is_success
    assert loopback.get(f"{eves}/access", headers=cookie(sign_in(team.url, team.stranger), None)).json() == {
        "owner": "eve",
        "public": True,
        "shares": [{"user": "bob", "role": "write"}],
    }
