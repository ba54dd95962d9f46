"""A store with two experiments, three users with their tokens, and `trainboard serve` on it, for the tests of
access: route policies, sessions, CSRF, experiments. The commands run in the test process and the server in a thread
of it (tests.servers.in_process): tests/cli/test_team_commands.py runs the same commands as processes."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from tests import loopback
from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.servers import in_process
from trainboard.errors import NoSuchExperiment
from trainboard.http.guard import SESSION_COOKIE
from trainboard.store.opening import open_store
from trainboard.store.values import ExperimentRow


@dataclass(slots=True)
class Clock:
    """The server's clock: the real time, moved on by `advance` (a token expires without waiting for it)."""

    ahead: float = 0.0

    def __call__(self) -> float:
        return time.time() + self.ahead

    def advance(self, seconds: float) -> None:
        self.ahead += seconds


@dataclass(frozen=True, slots=True)
class Team:
    """A store with two experiments, `private` and `other`, three users and their tokens, and `trainboard serve`."""

    db: str
    url: str
    private: str
    other: str
    # ada: admin of `private`; bob: a token limited to reading `private`; eve: a token with no role anywhere.
    admin: str
    reader: str
    stranger: str
    # A pin of `private`, for its routes below /at/<pin>/.
    pin: str
    # What the server logged, and the clock its tokens and sessions expire by.
    log: Path
    clock: Clock = field(default_factory=Clock)


def new_token(db: str, user: str, *flags: str) -> str:
    output = cli("tokens", "create", f"--db={db}", f"--user={user}", *flags)
    # The token alone on standard output.
    assert re.fullmatch(r"tbk_[0-9a-f]{10}_[A-Za-z0-9_-]{43}\n", output), output
    return output.strip()


def store_url(request: pytest.FixtureRequest, backend: str, tmp_path: Path) -> str:
    if backend == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return url
    return f"sqlite:{tmp_path / 'team.sqlite'}"


@contextmanager
def team_server(request: pytest.FixtureRequest, backend: str, ui: str, tmp_path: Path) -> Iterator[Team]:
    db = store_url(request, backend, tmp_path)
    for name in ("private", "other"):
        write_run(tmp_path / name / "train", steps=3)
        cli("ingest", f"--db={db}", f"--experiment={name}", f"--logdir={tmp_path / name}")
    for user in ("ada", "bob", "eve"):
        cli("users", "add", user, f"--db={db}")
    admin = new_token(db, "ada", "--experiment=private", "--role=admin")
    reader = new_token(db, "bob", "--experiment=private", "--role=read")
    stranger = new_token(db, "eve")
    clock = Clock()
    with in_process("serve", tmp_path / "serve", f"--db={db}", f"--ui={ui}", clock=clock) as server:
        url = server.url
        listed = loopback.get(f"{url}/data/experiments", headers=bearer(admin)).raise_for_status().json()
        ids = {e["name"]: e["id"] for e in listed}
        other = next(e.id for e in experiments_of(db) if e.name == "other")
        pin = loopback.post(f"{url}/experiment/{ids['private']}/pins", headers=bearer(admin)).raise_for_status().json()
        yield Team(db, url, ids["private"], other, admin, reader, stranger, pin["pin"], server.log, clock)


def experiments_of(db: str) -> list[ExperimentRow]:
    store = open_store(db)
    try:
        return list(store.experiments())
    finally:
        store.close()


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def sign_in(url: str, token: str) -> str:
    """A session of the token: the value of its cookie."""
    response = loopback.post(f"{url}/auth/session", json={"token": token}, headers={"Origin": url})
    assert response.status_code == 200, response.text
    return response.cookies[SESSION_COOKIE]


def cookie(session: str, origin: str | None) -> dict[str, str]:
    """The headers of a browser's request with the session's cookie, from a page of `origin`."""
    return {"Cookie": f"{SESSION_COOKIE}={session}", **({"Origin": origin} if origin else {})}


def denial(experiment_id: str) -> str:
    """The answer for an experiment the request may not read: the same whichever experiment (or pin) it names."""
    return str(NoSuchExperiment())
