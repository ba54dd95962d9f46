"""The audit log through a real `trainboard serve` (the team's store, on each backend): what users do is recorded
with who, from where and on what; an experiment's admins read its events (GET .../admin/audit); `trainboard audit`
prints them one line each; and authentication failures are throttled per address and per token id."""

from __future__ import annotations

import secrets
import time
from pathlib import Path

import anyio
import httpx

from tests import loopback
from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.http.teams import Team, bearer, cookie, new_token, sign_in
from trainboard.access.accounts import Accounts
from trainboard.access.audit import Actor, AuditLog, Event, detail_of
from trainboard.access.roles import Role
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.settings import Settings
from trainboard.store.audit import AuditQuery, AuditRow
from trainboard.store.opening import open_store

AGENT = {"User-Agent": "audit-test/1.0"}


def events(db: str, **query: object) -> list[AuditRow]:
    """The store's events, oldest first."""
    store = open_store(db)
    try:
        return list(reversed(AuditLog(store.accounts).events(AuditQuery(limit=100_000, **query))))  # type: ignore[arg-type]
    finally:
        store.close()


def token_id(token: str) -> str:
    return token.split("_")[1]


def bad_token() -> str:
    return f"tbk_{secrets.token_hex(5)}_{secrets.token_urlsafe(32)}"


def test_what_users_do_is_recorded_with_who_and_from_where(team: Team, tmp_path: Path) -> None:
    admin = {**bearer(team.admin), **AGENT}
    admin_url = f"{team.url}/experiment/{team.private}/admin"
    start = len(events(team.db))
    session = sign_in(team.url, team.reader)
    assert loopback.post(f"{team.url}/auth/signout", headers=cookie(session, team.url)).is_success
    assert loopback.post(f"{admin_url}/share", headers=admin, json={"user": "eve", "role": "write"}).is_success
    assert loopback.post(f"{admin_url}/public", headers=admin, json={"public": True}).is_success
    assert loopback.post(f"{admin_url}/rename", headers=admin, json={"name": "renamed"}).is_success
    pin = loopback.post(f"{team.url}/experiment/{team.private}/pins", headers=admin).json()["pin"]
    created = loopback.post(f"{team.url}/data/experiments", headers=bearer(team.stranger), json={"name": "fresh"})
    assert created.status_code == 201
    fresh = created.json()["id"]
    write_run(tmp_path / "upload" / "train", steps=3)
    upload = ("upload", f"--server={team.url}", "--experiment=fresh", f"--logdir={tmp_path / 'upload'}")
    cli(*upload, f"--token={team.stranger}")
    cli(*upload, f"--token={team.stranger}")  # nothing new: no file starts again
    (uploaded,) = [p.relative_to(tmp_path / "upload").as_posix() for p in (tmp_path / "upload").rglob("*.tfevents*")]
    assert loopback.post(f"{team.url}/experiment/{fresh}/admin/delete", headers=bearer(team.stranger)).is_success
    refused = loopback.get(f"{team.url}/data/experiments", headers={**bearer(bad := bad_token()), **AGENT})
    assert refused.status_code == 401

    found = [(row.event, row.user, row.experiment_id) for row in events(team.db)[start:]]
    assert found == [
        ("sign_in", "bob", None),
        ("sign_out", "bob", None),
        ("role_change", "ada", team.private),
        ("publish", "ada", team.private),
        ("rename", "ada", team.private),
        ("pin_create", "ada", team.private),
        ("experiment_create", "eve", fresh),
        ("upload_start", "eve", fresh),
        ("delete", "eve", fresh),
        ("auth_failure", None, None),
    ]
    rows = events(team.db)[start:]
    assert all(row.client == "127.0.0.1" for row in rows)
    assert rows[0].token_id == token_id(team.reader) and detail_of(rows[0]) == {"method": "token"}
    share, public, rename, pinned = rows[2:6]
    assert (share.token_id, share.user_agent, share.target_user) == (token_id(team.admin), "audit-test/1.0", "eve")
    assert detail_of(share) == {"role": "write"}
    assert detail_of(public) == {"public": True} and detail_of(rename) == {"name": "renamed"}
    assert detail_of(pinned) == {"pin": pin}
    assert detail_of(rows[7]) == {"run": "train", "path": uploaded}
    failure = rows[-1]
    # The id the bad token claims, never any of its secret.
    assert (failure.token_id, failure.user_agent) == (token_id(bad), "audit-test/1.0")
    assert bad.split("_", 2)[2] not in repr(events(team.db))


def test_an_experiments_admins_read_its_audit_log_in_pages(team: Team) -> None:
    admin_url = f"{team.url}/experiment/{team.private}/admin"
    for step in range(5):
        body = {"user": "eve", "role": "read" if step % 2 else None}
        assert loopback.post(f"{admin_url}/share", headers=bearer(team.admin), json=body).is_success
    audit = f"{admin_url}/audit"
    first = loopback.get(audit, headers=bearer(team.admin), params={"limit": 3}).json()
    assert [e["event"] for e in first["events"]] == ["role_change"] * 3
    assert [e["detail"]["role"] for e in first["events"]] == [None, "read", None]
    assert first["events"][0]["user"] == "ada" and first["events"][0]["target_user"] == "eve"
    assert first["next"] == first["events"][-1]["id"]
    rest = loopback.get(audit, headers=bearer(team.admin), params={"before": first["next"]}).json()
    # Before: the team's pin, and ada's and bob's tokens limited to the experiment, which gave them their roles.
    older = [(e["event"], e["target_user"]) for e in rest["events"]]
    assert older == [
        ("role_change", "eve"),
        ("role_change", "eve"),
        ("pin_create", None),
        ("token_create", "bob"),
        ("role_change", "bob"),
        ("token_create", "ada"),
        ("role_change", "ada"),
    ]
    assert rest["next"] is None
    assert all(e["experiment"] == team.private for e in first["events"] + rest["events"])
    of_bob = loopback.get(audit, headers=bearer(team.admin), params={"user": "bob"}).json()
    assert [e["event"] for e in of_bob["events"]] == ["token_create", "role_change"]
    assert of_bob["events"][0]["token"] == token_id(team.reader)
    assert of_bob["events"][0]["client"] == "command line" and of_bob["events"][0]["detail"]["role"] == "read"
    later = loopback.get(audit, headers=bearer(team.admin), params={"since": int(time.time()) + 60}).json()
    assert later["events"] == []
    # Its readers, and admins of other experiments, get the 404 of an experiment that does not exist.
    assert loopback.get(audit, headers=bearer(team.reader)).status_code == 404
    assert loopback.get(audit, headers=bearer(team.stranger)).status_code == 404
    assert loopback.get(audit).status_code == 401


def test_the_audit_command_prints_one_line_per_event(team: Team, tmp_path: Path) -> None:
    new_token(team.db, "bob", "--experiment=private", "--role=write")
    sneaky = {**bearer(bad_token()), "User-Agent": "evil\x1b[2J FORGED"}
    assert loopback.get(f"{team.url}/data/experiments", headers=sneaky).status_code == 401
    cli("tokens", "revoke", f"--db={team.db}", token_id(team.reader))
    # A name with a newline (refused at upload; the command escapes it wherever it comes from).
    store = open_store(team.db)
    try:
        AuditLog(store.accounts).record(Event.UPLOAD_START, Actor("eve", None, "10.0.0.1", None), path="a\nFORGED")
    finally:
        store.close()

    lines = cli("audit", f"--db={team.db}").splitlines()
    assert len(lines) == len(events(team.db))
    created = [line for line in lines if " token_create " in line]
    # The team's three tokens and bob's new one, made on the command line.
    assert len(created) == 4 and all("client=command line" not in line for line in created)
    assert all('client="command line"' in line for line in created)
    assert "target=bob" in created[-1] and "role=write" in created[-1]
    role = [line for line in lines if " role_change " in line]
    assert any("target=bob" in line and "role=write" in line for line in role)
    (failure,) = [line for line in lines if " auth_failure " in line]
    assert 'agent="evil\\u001b[2J FORGED"' in failure and "client=127.0.0.1" in failure
    assert lines[-1].endswith(' upload_start user=eve client=10.0.0.1 path="a\\nFORGED"')
    revoked = [line for line in lines if " token_revoke " in line]
    assert len(revoked) == 1 and f"token={token_id(team.reader)}" in revoked[0] and "target=bob" in revoked[0]

    of_bob = cli("audit", f"--db={team.db}", "--user=bob").splitlines()
    assert of_bob and all("bob" in line for line in of_bob)
    of_private = cli("audit", f"--db={team.db}", "--experiment=private").splitlines()
    assert of_private and all(f"experiment={team.private}" in line for line in of_private)
    assert cli("audit", f"--db={team.db}", "--since=1h") == cli("audit", f"--db={team.db}")
    assert cli("audit", f"--db={team.db}", "--since=2999-01-01") == ""


def test_two_thousand_bad_tokens_from_one_address_are_throttled_and_a_valid_token_still_served(team: Team) -> None:
    url = f"{team.url}/experiment/{team.private}/data/runs"
    start = len(events(team.db))
    began = time.monotonic()
    statuses: list[int] = []
    with httpx.Client(timeout=30) as client:
        for attempt in range(2000):
            answer = client.get(url, headers={**bearer(bad_token()), **AGENT})
            statuses.append(answer.status_code)
            if answer.status_code == 429:
                assert int(answer.headers["retry-after"]) >= 1
                assert "failed authentications from this address" in answer.text
            if attempt % 500 == 250:
                # While its address is throttled, a valid token is served.
                assert client.get(url, headers=bearer(team.reader)).status_code == 200
        elapsed = time.monotonic() - began
        assert client.get(url, headers=bearer(team.reader)).status_code == 200
    refused = statuses.count(401)
    # The burst of 20, then one every 5 s (the defaults).
    assert statuses[:20] == [401] * 20 and statuses[20] == 429
    assert refused <= 20 + elapsed * 0.2 + 1 and statuses.count(429) == 2000 - refused
    rows = events(team.db)[start:]
    failures = [row for row in rows if row.event == "auth_failure"]
    assert len(failures) == refused
    assert all(row.client == "127.0.0.1" and row.user_agent == "audit-test/1.0" for row in failures)
    # Throttled failures are not a row each: one a minute per address says so.
    throttled = [row for row in rows if row.event == "auth_throttled"]
    assert 1 <= len(throttled) <= 1 + elapsed / 60 and detail_of(throttled[0]) == {"by": "address"}


def test_failures_with_one_token_id_are_throttled_from_any_address(tmp_path: Path) -> None:
    """Guesses at one token's secret from many addresses: the token id's limit; its owner's valid token is served."""
    write_run(tmp_path / "logs" / "train", steps=2)
    store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
    try:
        experiment = store.create_experiment("runs").id
        accounts = Accounts(store.accounts)
        accounts.add_user("ada")
        row, token = accounts.create_token("ada", experiment_id=experiment, role=Role.READ)
        experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
        settings = Settings(auth_failure_burst=5, auth_failure_rate=0.01)
        app = create_app(experiments, settings, accounts=accounts, audit=AuditLog(store.accounts))

        async def get(address: str, token: str) -> httpx.Response:
            transport = httpx.ASGITransport(app=app, client=(address, 40000))
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
                return await client.get(f"/experiment/{experiment}/data/runs", headers=bearer(token))

        guesses = [f"tbk_{row.id}_{secrets.token_urlsafe(32)}" for _ in range(8)]
        answers = [anyio.run(get, f"10.0.0.{n}", guess) for n, guess in enumerate(guesses)]
        assert [a.status_code for a in answers] == [401] * 5 + [429] * 3
        assert "with this token id" in answers[-1].text and int(answers[-1].headers["retry-after"]) > 1
        assert anyio.run(get, "10.0.0.1", token).status_code == 200
        # Another token id from the same addresses is not throttled.
        assert anyio.run(get, "10.0.0.1", bad_token()).status_code == 401
        rows = AuditLog(store.accounts).events(AuditQuery(limit=100))
        assert [r.event for r in rows].count("auth_failure") == 6
        assert {r.token_id for r in rows if r.event == "auth_throttled"} == {row.id}
        assert {r.client for r in rows if r.token_id == row.id and r.event == "auth_failure"} == {
            f"10.0.0.{n}" for n in range(5)
        }
    finally:
        store.close()
