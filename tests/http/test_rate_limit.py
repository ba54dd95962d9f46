"""The rate limit of WRITE routes: the token bucket on its own (with a clock the test moves), and behind the real
guard of the real app on a real store, per token, a session counting as its token."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import anyio
import httpx
import pytest
from starlette.applications import Starlette

from tests.http.test_route_policies import walk
from trainboard.access.accounts import Accounts
from trainboard.access.roles import Role
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.http.guard import SESSION_COOKIE
from trainboard.http.policies import Policy
from trainboard.http.rate_limit import RateLimit
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.upload import Uploads
from trainboard.provider.provider import DataProvider
from trainboard.settings import Settings
from trainboard.store.opening import open_store


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    limit = RateLimit(rate=2, burst=3, clock=clock)
    assert [limit.take("a") for _ in range(3)] == [0, 0, 0]
    assert limit.take("a") == pytest.approx(0.5)
    assert limit.take("b") == 0  # every key has its own bucket
    clock.now += 0.25
    assert limit.take("a") == pytest.approx(0.25)  # a refused request takes nothing
    clock.now += 0.25
    assert limit.take("a") == 0
    assert limit.take("a") == pytest.approx(0.5)
    # An idle bucket fills up to its burst, no more.
    clock.now += 3600
    assert [limit.take("a") for _ in range(4)][-2:] == [0, pytest.approx(0.5)]


def test_keys_past_the_bound_are_forgotten_full_buckets_first() -> None:
    """Keys a client makes up (token ids of failed authentications) cannot fill the memory."""
    clock = Clock()
    limit = RateLimit(rate=1, burst=10, clock=clock, max_keys=3)
    assert [limit.take("a") for _ in range(11)][-1] == pytest.approx(1)  # `a` is spent
    limit.take("b")
    clock.now += 1.5  # `b` is full again, `a` is not
    limit.take("c")
    limit.take("d")  # one key too many: `b`, full, is forgotten
    assert [limit.take("a") for _ in range(2)] == [0, pytest.approx(0.5)]  # remembered
    for key in "efghij":
        limit.take(key)  # none full: the least recently used are forgotten
    assert [limit.take("a") for _ in range(2)] == [0, 0]  # forgotten: a full bucket again


def test_a_rate_of_zero_allows_everything() -> None:
    limit = RateLimit(rate=0, burst=1, clock=Clock())
    assert all(limit.take("a") == 0 for _ in range(1000))


@dataclass(frozen=True, slots=True)
class Served:
    app: Starlette
    experiment: str
    writer: str
    other_writer: str
    reader: str


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    """The app `trainboard serve` runs, on a SQLite store with one experiment and tokens that may write to it."""
    store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
    experiment = store.create_experiment("runs").id
    accounts = Accounts(store.accounts)
    for name in ("ada", "bob", "cy"):
        accounts.add_user(name)
    tokens = [
        accounts.create_token(name, experiment_id=experiment, role=role)[1]
        for name, role in (("ada", Role.WRITE), ("bob", Role.ADMIN), ("cy", Role.READ))
    ]
    experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
    app = create_app(experiments, Settings(upload_rate=2, upload_burst=3), accounts=accounts, uploads=Uploads(store))
    assert {route.policy for route in walk(app.routes, scoped=False) if route.path == "/upload/forget"} == {
        Policy.WRITE
    }
    yield Served(app, experiment, *tokens)
    store.close()


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.mark.anyio
async def test_write_routes_answer_429_past_the_burst_per_token(served: Served) -> None:
    url = f"/experiment/{served.experiment}/upload/forget"
    transport = httpx.ASGITransport(app=served.app)
    async with httpx.AsyncClient(transport=transport, base_url="http://localhost") as client:

        async def forget(headers: dict[str, str]) -> int:
            return (await client.post(url, headers=headers, json={"paths": []})).status_code

        ada = {"Authorization": f"Bearer {served.writer}"}
        assert [await forget(ada) for _ in range(3)] == [200, 200, 200]
        refused = await client.post(url, headers=ada, json={"paths": []})
        assert refused.status_code == 429 and refused.headers["retry-after"] == "1"
        assert refused.text == "Too many requests: more than 3 upload requests at once or 2 a second with this token"
        # Another token has its own bucket; reads are not limited; a reader may not write at all.
        assert await forget({"Authorization": f"Bearer {served.other_writer}"}) == 200
        runs = f"/experiment/{served.experiment}/data/runs"
        assert [(await client.get(runs, headers=ada)).status_code for _ in range(10)] == [200] * 10
        assert await forget({"Authorization": f"Bearer {served.reader}"}) == 404

        # A session counts as its token.
        origin = {"Origin": "http://localhost"}
        signed_in = await client.post("/auth/session", json={"token": served.writer}, headers=origin)
        browser = {"Cookie": f"{SESSION_COOKIE}={signed_in.cookies[SESSION_COOKIE]}", **origin}
        assert await forget(browser) == 429
        await anyio.sleep(0.55)
        assert await forget(browser) == 200
        assert await forget(ada) == 429
