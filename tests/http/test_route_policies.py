"""Every route of `trainboard serve` against its declared policy, both ways, on a real server and a real store: the
route-policy matrix. A route without a policy fails here; so does a route that answers whom its policy refuses."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import anyio
import httpx
import psycopg
import pytest
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import BaseRoute, Mount, Route, Router
from starlette.staticfiles import StaticFiles

from tests import loopback
from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.http.teams import Team, bearer, cookie, denial, experiments_of, new_token, sign_in, team_server
from tests.servers import store_serving
from trainboard.access.accounts import Accounts
from trainboard.access.roles import Role
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.http.guard import STATE_CHANGING, Guard, guard
from trainboard.http.pins import AtPin
from trainboard.http.policies import Policy, policy_of
from trainboard.ingest.progress import IngestProgress
from trainboard.provider.provider import DataProvider
from trainboard.settings import Settings
from trainboard.store.opening import open_store

SCOPE = "/experiment/{experiment_id}"
PINNED = "/at/{pin}"
EVIL = "http://evil.example"


# The routes of the app `trainboard serve` runs, found by walking it.


@dataclass(frozen=True, order=True, slots=True)
class Listed:
    """A route of the app: its declared path, a method it takes, whether it is below /experiment/<id>/, the mount it is
    below there (/at/{pin} or none), and the policy it was declared with."""

    path: str
    method: str
    scoped: bool
    pinned: str = ""
    policy: Policy | None = field(default=None, compare=False)

    def url(self, team: Team, experiment_id: str, pin: str | None = None) -> str:
        """Below the experiment (when scoped), `pin` (else the pin of `team`) in place of {pin} and {pin_id}, x in
        place of other parameters."""
        below = f"/experiment/{experiment_id}" if self.scoped else ""
        path = re.sub(r"\{[^}]*\}", "x", self.path.replace("{pin_id}", pin or team.pin))
        return below + self.pinned.replace("{pin}", pin or team.pin) + path

    @property
    def names_a_pin(self) -> bool:
        return bool(self.pinned) or "{pin_id}" in self.path


def app_routes(db: str, ui: str) -> list[Listed]:
    """Every route of the app, those whose handlers are imported on their first request and one file of each mounted
    folder included; deleting the experiment comes last."""
    store = open_store(db)
    try:
        experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
        app = create_app(experiments, Settings(ui=ui), accounts=Accounts(store.accounts))
        return sorted(set(walk(app.routes, scoped=False)), key=lambda r: (r.path == "/admin/delete", r))
    finally:
        store.close()


def walk(routes: list[BaseRoute], *, scoped: bool, pinned: str = "") -> Iterator[Listed]:
    for route in routes:
        if isinstance(route, Route):
            methods = route.methods or {"GET"}
            method = "GET" if "GET" in methods else sorted(methods)[0]
            yield Listed(route.path, method, scoped, pinned, policy_of(route))
        elif isinstance(route, Mount) and isinstance(route.app, Router):
            below = pinned + route.path if route.path == PINNED else pinned
            yield from walk(route.routes, scoped=scoped or route.path == SCOPE, pinned=below)
        elif isinstance(route, Mount):
            assert isinstance(route.app, Guard), f"mount {route.path} is not guarded"
            inner = route.app.app.app if isinstance(route.app.app, AtPin) else route.app.app
            if isinstance(inner, StaticFiles):
                assert inner.directory is not None
                first = min(p for p in Path(inner.directory).rglob("*") if p.is_file())
                path = f"{route.path}/{first.relative_to(inner.directory).as_posix()}"
                yield Listed(path, "GET", scoped, pinned, policy_of(route))
            else:
                raise AssertionError(f"the test does not know how to list the routes of mount {route.path}")
        else:
            raise AssertionError(f"the test does not know how to list the routes of {route!r}")


def call(client: httpx.Client, method: str, url: str, headers: dict[str, str]) -> httpx.Response:
    body = b"{}" if method == "POST" else None
    return client.request(method, url, headers=headers, content=body)


def answer(response: httpx.Response) -> tuple[int, bytes, tuple[tuple[str, str], ...]]:
    """Everything a client learns from a response: status, body and headers (but the time it was sent)."""
    return (
        response.status_code,
        response.content,
        tuple(sorted((k, v) for k, v in response.headers.items() if k != "date")),
    )


def oracle(client: httpx.Client, route: Listed, team: Team, users: SignedIn, other_pin: str) -> list[str]:
    """Where an experiment's route tells apart what should look alike: an experiment that exists but may not be read
    from one that does not (to a user without a role, and to no user), and, to a reader, a pin of another experiment
    from a pin that does not exist (and, on a route that needs no role, from the experiment's own pin). On a route
    that needs a role, all of these are one answer to a signed-in user, and one (401) to no user."""
    method = route.method

    def at(headers: dict[str, str], experiment_id: str, pin: str | None = None) -> httpx.Response:
        return call(client, method, route.url(team, experiment_id, pin), headers)

    groups: dict[str, list[httpx.Response]] = {
        "forbidden/missing experiment, no role": [at(users.stranger, team.private), at(users.stranger, "nope")],
        "forbidden/missing experiment, no user": [at({}, team.private), at({}, "nope")],
    }
    if route.names_a_pin:
        groups["a pin of another experiment/no pin, a reader"] = [
            at(users.reader, team.private, other_pin),
            at(users.reader, team.private, "nope"),
        ]
        groups["a pin of another experiment/no pin, no user"] = [
            at({}, team.private, other_pin),
            at({}, team.private, "nope"),
        ]
    assert route.policy is not None
    if route.policy.role is not None:
        groups = {
            f"every refusal, {who}": [
                response for what, group in groups.items() if what.endswith(who) for response in group
            ]
            for who in ("no user", "a reader", "no role")
        }
        groups["every refusal, a user"] = groups.pop("every refusal, a reader") + groups.pop("every refusal, no role")
    elif route.names_a_pin:
        groups["a pin of another experiment/its own pin, a reader"] = [
            at(users.reader, team.private, other_pin),
            at(users.reader, team.private),
        ]
    return [
        f"{users.how}: {what}: {method} {route.path} below {route.pinned or 'live'}: "
        + ", ".join(f"{r.url.path} -> {r.status_code}" for r in responses)
        for what, responses in groups.items()
        if len({answer(r) for r in responses}) > 1
    ]


@dataclass(frozen=True, slots=True)
class SignedIn:
    """The request headers of the team's three users, signed in one way: bearer tokens or session cookies."""

    how: str
    stranger: dict[str, str]
    reader: dict[str, str]
    admin: dict[str, str]


def signed_in(team: Team) -> list[SignedIn]:
    def browser(token: str) -> dict[str, str]:
        return cookie(sign_in(team.url, token), team.url)

    return [
        SignedIn("bearer", bearer(team.stranger), bearer(team.reader), bearer(team.admin)),
        SignedIn("cookie", browser(team.stranger), browser(team.reader), browser(team.admin)),
    ]


MATRIX = [
    pytest.param("sqlite", "trainboard", id="sqlite-trainboard-ui"),
    pytest.param("sqlite", "tensorboard", id="sqlite-tensorboard-ui"),
    pytest.param("sqlite", "tsvis", id="sqlite-tsvis-ui"),
    pytest.param("postgres", "trainboard", id="postgres-trainboard-ui", marks=pytest.mark.postgres),
]


@pytest.mark.parametrize(("backend", "ui"), MATRIX)
def test_every_route_answers_only_whom_its_policy_allows(
    request: pytest.FixtureRequest, backend: str, ui: str, tmp_path: Path
) -> None:
    with team_server(request, backend, ui, tmp_path) as team, httpx.Client(base_url=team.url, timeout=60) as client:
        routes = app_routes(team.db, ui)
        paths = {(route.path, route.scoped, route.pinned) for route in routes}
        assert ("/api/getCategory", True, PINNED) in paths  # the lazily imported ones are listed, also below a pin
        assert {
            ("/admin/share", True, ""),
            ("/admin/audit", True, ""),
            ("/admin/delete", True, ""),
            ("/pins", True, ""),
        } <= paths
        assert {("/data/runs", scoped, pinned) for scoped in (True, False) for pinned in ("", PINNED)} <= paths
        unguarded = [route.path for route in routes if route.policy is None]
        assert unguarded == [], "routes declared without a policy (trainboard/http/policies.py)"
        # Deleting the pin, then the experiment, then signing out (which ends the caller's session), last.
        routes.sort(
            key=lambda route: (route.path == "/auth/signout", route.path == "/admin/delete", deletes_pin(route))
        )
        failures: list[str] = []

        def expect(ok: bool, what: str, response: httpx.Response) -> None:
            if not ok:
                failures.append(f"{what}: {response.request.method} {response.url.path} -> {response.status_code}")

        other_pin = pin_of(team.db, team.other)
        ways = signed_in(team)
        for users in ways:
            for route in routes:
                method = route.method
                policy = route.policy
                assert policy is not None
                needed = policy.role
                if users.how == "cookie" and method in STATE_CHANGING:
                    # Another site's page, with the admin's cookie (the stranger's once the admin's token is revoked
                    # with the experiment it was limited to): refused, whatever the route.
                    victim = users.stranger if route.path == "/auth/signout" else users.admin
                    forged = call(client, method, route.url(team, team.private), {**victim, "Origin": EVIL})
                    expect(forged.status_code == 403 and "Origin" in forged.text, "a cross-site request", forged)
                if not route.scoped:
                    # At /: no default experiment on `trainboard serve`; any valid token passes the guard, none is 401.
                    anonymous = call(client, method, route.url(team, ""), {})
                    expect(policy is Policy.ANYONE or anonymous.status_code == 401, "anonymous at /", anonymous)
                    stranger = call(client, method, route.url(team, ""), users.stranger)
                    expect(stranger.status_code != 401, f"signed in by {users.how} at /", stranger)
                    continue
                failures.extend(oracle(client, route, team, users, other_pin))
                url = route.url(team, team.private)
                anonymous = call(client, method, url, {})
                # trainboard's own page and files are open to anyone (they hold no data and sign visitors in).
                expect(
                    (policy is Policy.ANYONE and anonymous.status_code == 200)
                    or (
                        anonymous.status_code == 401
                        and anonymous.headers.get("www-authenticate", "").startswith("Bearer")
                    ),
                    "anonymous",
                    anonymous,
                )
                stranger = call(client, method, url, users.stranger)
                refused = needed is not None
                what = f"{users.how}: a user without a role"
                expect((stranger.text == denial(team.private)) == refused, what, stranger)
                expect(not refused or stranger.status_code == 404, f"{what} gets 404", stranger)
                reader = call(client, method, url, users.reader)
                reads = needed is None or needed <= 1
                expect(
                    reader.status_code != 401 and (reader.text == denial(team.private)) != reads,
                    f"{users.how}: a reader",
                    reader,
                )
                # The experiment the admin has no role on answers as one that does not exist.
                elsewhere = call(client, method, route.url(team, team.other), users.admin)
                missing = call(client, method, route.url(team, "nope"), users.admin)
                if refused:
                    expect(
                        elsewhere.text == denial(team.other) and elsewhere.status_code == 404,
                        f"{users.how}: another's",
                        elsewhere,
                    )
                    expect(
                        missing.text == denial("nope") and missing.status_code == 404,
                        f"{users.how}: a missing experiment",
                        missing,
                    )
                if (route.path == "/admin/delete" or deletes_pin(route)) and users is not ways[-1]:
                    continue  # the admin deletes the pin and the experiment in the last pass only
                admin = call(client, method, url, users.admin)
                expect(
                    admin.status_code != 401 and admin.text != denial(team.private), f"{users.how}: the admin", admin
                )
        assert failures == []
        assert [e.name for e in experiments_of(team.db)] == ["other"]  # the admin's /admin/delete deleted `private`


def deletes_pin(route: Listed) -> bool:
    return (route.path, route.method) == ("/pins/{pin_id}", "DELETE")


def pin_of(db: str, experiment_id: str) -> str:
    store = open_store(db)
    try:
        pin = store.create_pin(experiment_id)
        assert pin is not None
        return pin.id
    finally:
        store.close()


def runs_of(team: Team, token: str | None, experiment_id: str | None = None) -> int:
    url = f"{team.url}/experiment/{experiment_id or team.private}/data/runs"
    return loopback.get(url, headers=bearer(token)).status_code


def test_revoked_and_expired_tokens_are_refused(team: Team) -> None:
    assert runs_of(team, team.reader) == 200
    listed = cli("tokens", "list", f"--db={team.db}", "--user=bob")
    token_id = team.reader.split("_")[1]
    assert token_id in listed and team.reader.split("_", 2)[2] not in listed
    cli("tokens", "revoke", f"--db={team.db}", token_id[:6])
    assert runs_of(team, team.reader) == 401
    assert "revoked" in cli("tokens", "list", f"--db={team.db}", "--user=bob")

    brief = new_token(team.db, "ada", "--expires=0.00002")  # 1.7 s
    assert runs_of(team, brief) == 200
    team.clock.advance(2)
    response = loopback.get(f"{team.url}/experiment/{team.private}/data/runs", headers=bearer(brief))
    assert response.status_code == 401 and response.headers["www-authenticate"].startswith("Bearer")
    assert runs_of(team, "tbk_0000000000_" + "x" * 43) == 401
    assert loopback.get(f"{team.url}/data/runs", headers={"Authorization": "Basic YWRhOmFkYQ=="}).status_code == 401


def test_tokens_and_sessions_are_stored_hashed(team: Team) -> None:
    secrets = [token.split("_", 2)[2] for token in (team.admin, team.reader, team.stranger)]
    secrets.append(sign_in(team.url, team.reader))
    if team.db.startswith("sqlite:"):
        path = Path(team.db.removeprefix("sqlite:"))
        stored = b"".join(p.read_bytes() for p in path.parent.glob(path.name + "*"))
        assert all(secret.encode() not in stored for secret in secrets)
        return
    with psycopg.connect(team.db) as connection:
        tables = [t for (t,) in connection.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")]
        rows = [str(row) for table in tables for row in connection.execute(f'SELECT t::text FROM "{table}" t')]
    assert "tokens" in tables and rows
    assert all(secret not in row for secret in secrets for row in rows)


def test_experiments_are_listed_only_to_whom_may_read_them(team: Team) -> None:
    def listed(token: str | None) -> object:
        response = loopback.get(f"{team.url}/data/experiments", headers=bearer(token))
        return response.json() if response.status_code == 200 else response.status_code

    assert [e["name"] for e in listed(team.admin)] == ["private"]  # type: ignore[attr-defined]
    assert [e["name"] for e in listed(team.reader)] == ["private"]  # type: ignore[attr-defined]
    assert listed(team.stranger) == []
    assert listed(None) == 401


def test_an_admin_shares_and_publishes_and_others_cannot(team: Team) -> None:
    admin_url = f"{team.url}/experiment/{team.private}/admin"
    share = loopback.post(f"{admin_url}/share", headers=bearer(team.admin), json={"user": "eve", "role": "read"})
    assert share.status_code == 200 and share.json()["ok"] is True
    assert runs_of(team, team.stranger) == 200
    assert loopback.post(
        f"{admin_url}/share", headers=bearer(team.admin), json={"user": "eve", "role": None}
    ).is_success
    assert runs_of(team, team.stranger) == 404
    # A reader is no admin: the admin routes answer as for an experiment that does not exist.
    refused = loopback.post(f"{admin_url}/public", headers=bearer(team.reader), json={"public": True})
    assert (refused.status_code, refused.text) == (404, denial(team.private))
    assert runs_of(team, None) == 401

    assert loopback.post(f"{admin_url}/public", headers=bearer(team.admin), json={"public": True}).is_success
    assert runs_of(team, None) == 200 and runs_of(team, team.stranger) == 200
    assert [e["name"] for e in loopback.get(f"{team.url}/data/experiments", headers=bearer(team.stranger)).json()] == [
        "private"
    ]
    assert runs_of(team, None, team.other) == 401
    assert loopback.post(f"{admin_url}/public", headers=bearer(team.admin), json={"public": False}).is_success
    assert runs_of(team, None) == 401

    # A name nobody has is answered as one somebody has (byte for byte but the name): it tells nobody who has an
    # account.
    def shared(user: str) -> tuple[int, bytes, list[tuple[str, str]]]:
        answer = loopback.post(f"{admin_url}/share", headers=bearer(team.admin), json={"user": user, "role": None})
        headers = sorted((k, v) for k, v in answer.headers.items() if k not in ("date", "content-length"))
        return answer.status_code, answer.content.replace(user.encode(), b"USER"), headers

    assert shared("nobody") == shared("eve")
    assert shared("nobody")[0] == 200
    renamed = loopback.post(f"{admin_url}/rename", headers=bearer(team.admin), json={"name": "renamed"})
    assert renamed.is_success
    # Both were ingested, without an owner: their names are of one set, unique in it (docs/access.md).
    taken = loopback.post(f"{admin_url}/rename", headers=bearer(team.admin), json={"name": "other"})
    assert (taken.status_code, taken.json()) == (
        409,
        {"ok": False, "error": "another experiment of the same owner is named 'other'", "status": 409},
    )


def test_a_route_declared_without_a_policy_is_refused_to_everyone(tmp_path: Path) -> None:
    """The guard's default: a plain Starlette route (no `PolicyRoute`) answers no one, not even an admin's token."""
    store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
    try:
        experiment = store.create_experiment("runs").id
        accounts = Accounts(store.accounts)
        accounts.add_user("ada")
        admin = accounts.create_token("ada", experiment_id=experiment, role=Role.ADMIN)[1]
        experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
        app = create_app(experiments, Settings(), accounts=accounts)

        async def answer(request: Request) -> PlainTextResponse:
            return PlainTextResponse("answered")

        undeclared = Route("/undeclared", answer)
        guard([undeclared])
        app.router.routes.insert(0, undeclared)

        async def get(headers: dict[str, str]) -> httpx.Response:
            transport = httpx.ASGITransport(app=app)
            async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:
                # What any valid token may call, beside it.
                listed = await client.get("/data/experiments", headers=headers)
                assert listed.status_code == (200 if headers else 401)
                return await client.get("/undeclared", headers=headers)

        assert anyio.run(get, {}).status_code == 401
        refused = anyio.run(get, bearer(admin))
        assert (refused.status_code, refused.text) == (404, "Not found: no such route")
    finally:
        store.close()


def test_no_auth_serves_everyone(tmp_path: Path) -> None:
    db = f"sqlite:{tmp_path / 'open.sqlite'}"
    write_run(tmp_path / "logs" / "train")
    cli("ingest", f"--db={db}", "--experiment=open", f"--logdir={tmp_path / 'logs'}")
    with store_serving(db, tmp_path / "serve", "--no_auth") as url:
        (experiment,) = loopback.get(f"{url}/data/experiments").raise_for_status().json()
        assert loopback.get(f"{url}/experiment/{experiment['id']}/data/runs").json() == ["train"]
        assert (
            loopback.post(f"{url}/experiment/{experiment['id']}/admin/public", json={"public": True}).status_code == 404
        )
        # No accounts: nobody signs in, the listing has no roles, and anyone may create an experiment (as anyone may
        # upload into one).
        assert loopback.get(f"{url}/auth/me").json() == {"auth": False, "user": None}
        assert loopback.post(f"{url}/auth/session", json={"token": "tbk_x"}).status_code == 404
        assert (experiment["role"], experiment["public"]) == (None, False)
        created = loopback.post(f"{url}/data/experiments", json={"name": "new"})
        assert created.status_code == 201, created.text
        listed = loopback.get(f"{url}/data/experiments").json()
        assert {e["name"]: e["id"] for e in listed} == {"open": experiment["id"], "new": created.json()["id"]}


def test_the_default_experiments_alias_names_nothing_on_a_store_server(team: Team) -> None:
    """`trainboard serve` has no default experiment: TensorBoard's `defaultExperimentId` in a URL names none, for the
    admin routes too (they once acted on the literal id: a stray role row, or a 500 on PostgreSQL)."""
    admin = "/experiment/defaultExperimentId/admin"
    for path, body in ((f"{admin}/share", {"user": "eve", "role": "admin"}), (f"{admin}/public", {"public": True})):
        answer = loopback.post(f"{team.url}{path}", headers=bearer(team.stranger), json=body)
        assert (answer.status_code, answer.text) == (404, denial("defaultExperimentId"))
    assert loopback.get(f"{team.url}{admin}/access", headers=bearer(team.stranger)).status_code == 404
    runs = loopback.get(f"{team.url}/experiment/defaultExperimentId/data/runs", headers=bearer(team.stranger))
    assert runs.status_code == 404


def test_an_experiment_name_with_a_control_character_is_refused(team: Team) -> None:
    for name in ("inj\nERROR: FORGED", "\x1b[31mred", "c1\x9b"):
        created = loopback.post(f"{team.url}/data/experiments", headers=bearer(team.stranger), json={"name": name})
        assert created.status_code == 400 and "control character" in created.json()["error"], created.text
        renamed = loopback.post(
            f"{team.url}/experiment/{team.private}/admin/rename", headers=bearer(team.admin), json={"name": name}
        )
        assert renamed.status_code == 400 and "control character" in renamed.json()["error"], renamed.text
    assert sorted(e.name for e in experiments_of(team.db)) == ["other", "private"]


def test_the_server_path_of_an_experiments_data_is_told_to_its_admins_only(team: Team) -> None:
    url = f"{team.url}/experiment/{team.private}/data"

    def told(token: str) -> tuple[str, str]:
        logdir = loopback.get(f"{url}/logdir", headers=bearer(token)).raise_for_status().json()["logdir"]
        environment = loopback.get(f"{url}/environment", headers=bearer(token)).raise_for_status().json()
        return logdir, environment["data_location"]

    path = next(e.location for e in experiments_of(team.db) if e.id == team.private)
    assert Path(path).is_absolute()
    assert told(team.admin) == (path, path)
    assert told(team.reader) == ("private", "private")
