"""The nginx and Caddy configurations of docs/team-server.md, run as printed (tests/team/proxies.py) in front of two
replicas of `trainboard serve` on one PostgreSQL + S3 store: TLS with the test's certificate, requests spread over
both replicas, an upload, server-sent live updates arriving at once and kept alive, TensorBoard's own UI under a path
prefix, and X-Forwarded-For believed from the proxy only."""

from __future__ import annotations

import json
import ssl
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.pgserver import PostgresServer
from tests.s3server import S3Server
from tests.servers import Server
from tests.team.faults import Replica, replica, replicas, uploading
from tests.team.proxies import PROXY_ADDRESS, Certificate, caddy, certificate, nginx
from tests.upload.team import TeamStore, finished
from tests.upload.test_upload import IMAGE_EVERY, image_steps, steps_of, write_training_run
from trainboard.http.trainboard_api.events import KEEP_ALIVE_SECONDS, POLL_SECONDS

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("team/proxies")]
STEPS = 300


@dataclass(frozen=True, slots=True)
class Board:
    store: TeamStore
    replicas: list[Replica]
    tls: Certificate
    scratch: Path


@pytest.fixture(scope="module")
def board(postgres: PostgresServer, s3: S3Server, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Board]:
    """Two replicas, logging every request with its client (json), trusting X-Forwarded-* from PROXY_ADDRESS only."""
    scratch = tmp_path_factory.mktemp("proxies")
    db = postgres.create_database(f"proxies_{uuid.uuid4().hex[:8]}")
    environment = {**s3.environment(scratch), "FORWARDED_ALLOW_IPS": PROXY_ADDRESS}
    store = TeamStore(db, (f"--blobs=s3://{s3.bucket}/{scratch.name}", "--log_format=json"), environment)
    with replicas(store, scratch) as running:
        yield Board(store, running, certificate(scratch / "tls"), scratch)
    postgres.drop_database(db)


@pytest.fixture(scope="module", params=["nginx", "caddy"])
def proxy(request: pytest.FixtureRequest, board: Board) -> Iterator[Server]:
    addresses = [urlsplit(running.url).netloc for running in board.replicas]
    start = nginx if request.param == "nginx" else caddy
    with start(addresses, board.tls, board.scratch / request.param) as server:
        yield server


@contextmanager
def client(proxy: Server, tls: Certificate) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=proxy.url, verify=tls.context(), timeout=60) as opened:
        yield opened


def access(board: Board, marker: str) -> list[dict[str, object]]:
    """The access log lines of both replicas for requests whose path holds `marker`."""
    found = []
    for running in board.replicas:
        for line in running.log.read_text(errors="replace").splitlines():
            if marker in line and line.startswith("{"):
                entry = json.loads(line)
                if marker in str(entry.get("path", "")):
                    found.append(entry)
    return found


def test_tls_with_the_tests_certificate_and_requests_spread_over_both_replicas(board: Board, proxy: Server) -> None:
    marker = f"tls-{uuid.uuid4().hex[:8]}"
    with client(proxy, board.tls) as trusting:
        for _ in range(20):
            assert trusting.get("/healthz", params={"from": marker}).status_code == 200
    with pytest.raises(httpx.ConnectError, match="CERTIFICATE_VERIFY_FAILED"):
        httpx.get(f"{proxy.url}/healthz", verify=ssl.create_default_context())
    served = [entry["path"] for entry in access(board, marker)]
    assert len(served) == 20
    by_replica = [sum(marker in line for line in running.log.read_text().splitlines()) for running in board.replicas]
    assert all(by_replica), by_replica


def test_an_upload_through_the_proxy_stores_every_point_and_image_once(
    board: Board, proxy: Server, tmp_path: Path
) -> None:
    name = f"through-{proxy.url.rsplit(':', 1)[1]}"
    write_training_run(tmp_path / "logs" / "train", range(STEPS))
    experiment = board.store.create_experiment(name)
    assert "upload done" in finished(uploading(proxy.url, name, tmp_path / "logs", board.tls.certificate))
    with client(proxy, board.tls) as trusting:
        assert steps_of(trusting, experiment, "train") == list(range(STEPS))
        assert image_steps(trusting, experiment, "train") == list(range(0, STEPS, IMAGE_EVERY))


def test_live_updates_arrive_through_the_proxy_at_once_and_are_kept_alive(
    board: Board, proxy: Server, tmp_path: Path
) -> None:
    name = f"live-{proxy.url.rsplit(':', 1)[1]}"
    experiment = board.store.create_experiment(name)
    received: list[tuple[float, str]] = []
    opened = time.monotonic()

    def listen() -> None:
        with (
            client(proxy, board.tls) as trusting,
            trusting.stream(
                "GET", f"/experiment/{experiment}/data/trainboard/events", headers={"Accept": "text/event-stream"}
            ) as stream,
        ):
            for line in stream.iter_lines():
                received.append((time.monotonic(), line))
                if line.startswith(":") or time.monotonic() - opened > 60:
                    return

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    while not any(line.startswith("data:") for _, line in received):
        assert time.monotonic() - opened < 10, "no first event through the proxy"
        time.sleep(0.05)
    first = len(received)
    write_training_run(tmp_path / "logs" / "train", range(STEPS))
    process = uploading(proxy.url, name, tmp_path / "logs", board.tls.certificate)
    finished(process)
    done = time.monotonic()
    listener.join(60)
    later = [(at, line) for at, line in received[first:] if line.startswith("data:")]
    assert later, "no event through the proxy after the upload"
    # The upload's commits are seen within a poll of the watcher (and not when a buffer fills or the stream ends).
    assert min(at for at, _ in later) <= done + POLL_SECONDS + 1
    assert received[-1][1].startswith(":"), "no keep-alive comment through the proxy"
    # Sent KEEP_ALIVE_SECONDS after the last event, and passed on as sent.
    assert received[-1][0] - received[-2][0] <= KEEP_ALIVE_SECONDS + 2


def test_x_forwarded_for_is_believed_from_the_proxy_only(board: Board, proxy: Server) -> None:
    if "nginx" not in str(proxy.log):
        pytest.skip("Caddy 2.6 has no setting for its own address towards the replicas: nginx's proxy_bind shows it")
    marker = f"forwarded-{uuid.uuid4().hex[:8]}"
    with client(proxy, board.tls) as trusting:
        trusting.get("/healthz", params={"via": marker}, headers={"X-Forwarded-For": "203.0.113.9"})
    direct = board.replicas[0].url
    httpx.get(f"{direct}/healthz", params={"direct": marker}, headers={"X-Forwarded-For": "203.0.113.9"})
    clients = {str(entry["path"]).split("?")[1].split("=")[0]: str(entry["client"]) for entry in access(board, marker)}
    # Through the proxy: the client the proxy saw (not the proxy's own address, nor what the client claimed).
    assert clients["via"].startswith("127.0.0.1:"), clients
    # Direct: what the connection says, whatever the request claims.
    assert clients["direct"].startswith("127.0.0.1:"), clients


def test_tensorboards_own_ui_under_a_path_prefix(board: Board, tmp_path: Path) -> None:
    """The document's nginx configuration with the prefix in its `location`s, as it says, before a replica with
    `--path_prefix /board --ui tensorboard`."""
    prefixed = TeamStore(
        board.store.db, (*board.store.flags, "--path_prefix=/board", "--ui=tensorboard"), board.store.env
    )
    experiment = board.store.create_experiment("prefixed")
    with replica(prefixed, tmp_path) as running:
        address = urlsplit(running.url).netloc
        with nginx([address, address], board.tls, tmp_path / "nginx", path_prefix="/board") as proxy:
            with client(proxy, board.tls) as trusting:
                page = trusting.get(f"/board/experiment/{experiment}/")
                assert page.status_code == 200
                assert "<title>TensorBoard" in page.text
                listing = trusting.get(f"/board/experiment/{experiment}/data/plugins_listing")
                assert listing.status_code == 200 and "scalars" in listing.json()
                assert trusting.get(f"/experiment/{experiment}/").status_code == 404
