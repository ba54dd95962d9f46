"""A store with two experiments, three users with their tokens, and `trainboard serve` on it, for the tests of
access: route policies, sessions, CSRF, experiments."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.cli.logs import write_run
from tests.cli.process import command
from tests.servers import store_serving
from trainboard.http.guard import SESSION_COOKIE
from trainboard.store.opening import open_store
from trainboard.store.values import ExperimentRow

TIMEOUT = 120.0


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


def cli(*flags: str) -> str:
    """A `trainboard` command's standard output; it must succeed."""
    done = subprocess.run(command(*flags), capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


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
    with store_serving(db, tmp_path / "serve", f"--ui={ui}") as url:
        listed = httpx.get(f"{url}/data/experiments", headers=bearer(admin)).raise_for_status().json()
        ids = {e["name"]: e["id"] for e in listed}
        other = next(e.id for e in experiments_of(db) if e.name == "other")
        pin = httpx.post(f"{url}/experiment/{ids['private']}/pins", headers=bearer(admin)).raise_for_status().json()
        yield Team(db, url, ids["private"], other, admin, reader, stranger, pin["pin"])


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
    response = httpx.post(f"{url}/auth/session", json={"token": token}, headers={"Origin": url})
    assert response.status_code == 200, response.text
    return response.cookies[SESSION_COOKIE]


def cookie(session: str, origin: str | None) -> dict[str, str]:
    """The headers of a browser's request with the session's cookie, from a page of `origin`."""
    return {"Cookie": f"{SESSION_COOKIE}={session}", **({"Origin": origin} if origin else {})}


def denial(experiment_id: str) -> str:
    return f"Not found: no experiment with id {experiment_id!r}"
