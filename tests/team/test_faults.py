"""A team at work (50 clients reading through two replicas, two uploads running) while PostgreSQL restarts, fails over
to its standby, the S3 server stops, or a replica is killed: 503s with Retry-After during the outage and never a 500
or a traceback, answers again soon after, every upload finished with every point exactly once. Real processes
throughout."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import httpx
import pytest

from tests.pgserver import USER, PostgresServer, postgres_server, standby_server
from tests.s3server import S3Server, restartable_s3_server, s3_server
from tests.servers import stop
from tests.team.faults import first_success, reading, replicas, unhandled, uploading
from tests.team.proxies import certificate, nginx
from tests.upload.team import TeamStore, finished
from tests.upload.test_upload import IMAGE_EVERY, committed, image_steps, steps_of, write_training_run
from trainboard.store.errors import RETRY_AFTER_SECONDS

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("team/faults")]
UPLOAD_STEPS = 3000
SEED_STEPS = 200
# Longer than a request's wait for a connection (trainboard.store.postgres.pool.WAIT_SECONDS): requests in the gap
# answer 503 rather than wait it out.
POSTGRES_DOWN_SECONDS = 8
# Longer than s3fs's own retries of a request (about 2 s): blob reads in the gap answer 503.
S3_DOWN_SECONDS = 10
BACK_WITHIN_SECONDS = 5


@pytest.fixture(scope="module")
def restartable() -> Iterator[PostgresServer]:
    with postgres_server() as server:
        yield server


@pytest.fixture
def own_s3(tmp_path: Path) -> Iterator[S3Server]:
    """An S3 server of this test's own, since the test stops it."""
    with s3_server(tmp_path / "s3") as server:
        yield server


@pytest.fixture
def uploads() -> Iterator[list[subprocess.Popen[bytes]]]:
    """The upload processes a test starts: stopped and their pipes closed when it ends, however it ends."""
    started: list[subprocess.Popen[bytes]] = []
    yield started
    for process in started:
        stop(process)
        process.communicate()


def team(db: str, s3: S3Server, scratch: Path, *flags: str) -> TeamStore:
    return TeamStore(db, (f"--blobs=s3://{s3.bucket}/{scratch.name}", *flags), s3.environment(scratch))


def seeded(store: TeamStore, url: str, scratch: Path) -> tuple[str, list[str]]:
    """An experiment uploaded before the fault; the paths the readers ask of it (a scalar series, an image's list
    and the image itself, which is read from the blob store)."""
    write_training_run(scratch / "seed" / "train", range(SEED_STEPS))
    experiment = store.create_experiment("seed")
    finished(uploading(url, "seed", scratch / "seed"))
    with httpx.Client(base_url=url, timeout=30) as client:
        images = client.get(
            f"/experiment/{experiment}/data/plugin/images/images",
            params={"run": "train", "tag": "samples", "sample": 0},
        ).raise_for_status()
    base = f"/experiment/{experiment}/data/plugin"
    return experiment, [
        f"{base}/scalars/scalars?run=train&tag=loss",
        f"{base}/images/images?run=train&tag=samples&sample=0",
        f"{base}/images/individualImage?{images.json()[-1]['query']}",
    ]


def uploads_started(
    store: TeamStore, urls: list[str], scratch: Path, uploads: list[subprocess.Popen[bytes]], trust: Path | None = None
) -> list[tuple[str, Path, subprocess.Popen[bytes]]]:
    """Two uploads of UPLOAD_STEPS steps, through the servers at `urls` in turn, each into an experiment of its own;
    trusting the certificate `trust` (a proxy's) if given."""
    started = []
    for index in range(2):
        name = f"upload-{index}"
        path = write_training_run(scratch / name / "train", range(UPLOAD_STEPS))
        experiment = store.create_experiment(name)
        uploads.append(uploading(urls[index % len(urls)], name, scratch / name, trust))
        started.append((experiment, path, uploads[-1]))
    return started


def wait_for_progress(url: str, experiments: list[str]) -> None:
    """Until each upload has committed something (and not everything, checked by the callers' assertions after)."""
    with httpx.Client(base_url=url, timeout=30) as client:
        deadline = time.monotonic() + 120
        while not all(committed(client, experiment) > 0 for experiment in experiments):
            assert time.monotonic() < deadline, "the uploads did not start"
            time.sleep(0.1)


def assert_uploaded_once(url: str, started: list[tuple[str, Path, subprocess.Popen[bytes]]]) -> None:
    with httpx.Client(base_url=url, timeout=60) as client:
        for experiment, path, process in started:
            assert "upload done" in finished(process)
            assert committed(client, experiment) == path.stat().st_size
            assert steps_of(client, experiment, "train") == list(range(UPLOAD_STEPS))
            assert image_steps(client, experiment, "train") == list(range(0, UPLOAD_STEPS, IMAGE_EVERY))


def test_postgres_restarted_answers_503_with_retry_after_then_serves_again_and_uploads_finish_once(
    restartable: PostgresServer, uploads: list[subprocess.Popen[bytes]], own_s3: S3Server, tmp_path: Path
) -> None:
    store = team(restartable.create_database("restarted"), own_s3, tmp_path)
    with replicas(store, tmp_path) as running:
        urls = [replica.url for replica in running]
        _, paths = seeded(store, urls[0], tmp_path)
        with reading(urls, paths) as readers:
            started = uploads_started(store, urls, tmp_path, uploads)
            wait_for_progress(urls[0], [experiment for experiment, _, _ in started])
            stopped = time.monotonic()
            restartable.stop()
            assert all(process.poll() is None for _, _, process in started), "an upload finished before the fault"
            time.sleep(POSTGRES_DOWN_SECONDS)
            restartable.start()
            back = time.monotonic()
            recovery = [first_success(url + paths[0]) for url in urls]
            time.sleep(1)
        gap = readers.between(stopped, back)
        assert {answer.status for answer in readers.answers} <= {200, 503}, {
            answer.status: answer.text for answer in readers.answers
        }
        unavailable = [answer for answer in gap if answer.status == 503]
        assert unavailable, "no 503 while PostgreSQL was down"
        assert {answer.retry_after for answer in unavailable} == {str(RETRY_AFTER_SECONDS)}
        assert not [answer.text for answer in readers.answers if "Traceback" in answer.text]
        assert max(recovery) <= BACK_WITHIN_SECONDS, recovery
        assert not readers.failures[:5]
        assert_uploaded_once(urls[0], started)
        for replica in running:
            assert not unhandled(replica.log), unhandled(replica.log)[:20]


def test_failover_to_the_standby_answers_503_with_retry_after_then_writes_again_and_uploads_finish_once(
    uploads: list[subprocess.Popen[bytes]], own_s3: S3Server, tmp_path: Path
) -> None:
    """--db names the primary and its standby, with target_session_attrs=read-write (libpq's own multi-host URL):
    the replicas write to whichever takes writes, so they need not be told of the failover. The primary stops, and
    the standby is promoted POSTGRES_DOWN_SECONDS later: meanwhile writes answer 503 and reads are served by the
    standby (--read_db); within BACK_WITHIN_SECONDS of the promotion, writes are taken again."""
    with postgres_server() as primary, standby_server(primary) as standby:
        name = primary.create_database("failover").rsplit("/", 1)[1]
        hosts = f"{primary.address},{standby.address}"
        db = f"postgresql://{USER}@{hosts}/{name}?target_session_attrs=read-write"
        store = team(db, own_s3, tmp_path, f"--read_db={standby.database_url(name)}")
        with replicas(store, tmp_path) as running:
            urls = [replica.url for replica in running]
            seed, paths = seeded(store, urls[0], tmp_path)
            star = f"/experiment/{seed}/data/trainboard/run_metadata"
            with reading(urls, paths) as readers, httpx.Client(timeout=30) as writer:
                started = uploads_started(store, urls, tmp_path, uploads)
                wait_for_progress(urls[0], [experiment for experiment, _, _ in started])
                stopped = time.monotonic()
                primary.stop()
                assert all(process.poll() is None for _, _, process in started), "an upload finished before the fault"
                refused = [writer.post(url + star, json={"runs": ["train"], "starred": True}) for url in urls]
                time.sleep(max(0.0, POSTGRES_DOWN_SECONDS - (time.monotonic() - stopped)))
                standby.promote()
                promoted = time.monotonic()
                recovery = [first_write(writer, url + star) for url in urls]
                time.sleep(1)
            gap = readers.between(stopped, promoted)
            assert [(answer.status_code, answer.headers.get("retry-after")) for answer in refused] == [
                (503, str(RETRY_AFTER_SECONDS))
            ] * len(urls), [answer.text for answer in refused]
            assert {answer.status for answer in readers.answers} <= {200, 503}, {
                answer.status: answer.text for answer in readers.answers
            }
            assert [answer for answer in gap if answer.status == 200], "the standby served no reads during the failover"
            assert {answer.retry_after for answer in readers.answers if answer.status == 503} <= {
                str(RETRY_AFTER_SECONDS)
            }
            assert not [answer.text for answer in readers.answers if "Traceback" in answer.text]
            assert max(recovery) <= BACK_WITHIN_SECONDS, recovery
            assert not readers.failures[:5]
            assert_uploaded_once(urls[0], started)
            for replica in running:
                assert not unhandled(replica.log), unhandled(replica.log)[:20]


def first_write(client: httpx.Client, url: str, timeout: float = 30) -> float:
    """Seconds until a run-metadata write to `url` answers 200."""
    start = time.monotonic()
    while time.monotonic() - start < timeout:
        if client.post(url, json={"runs": ["train"], "starred": True}).status_code == 200:
            return time.monotonic() - start
        time.sleep(0.05)
    raise AssertionError(f"{url} took no write within {timeout} s")


def test_s3_stopped_blob_reads_answer_503_then_serve_again_and_uploads_retry_and_finish_once(
    restartable: PostgresServer, uploads: list[subprocess.Popen[bytes]], tmp_path: Path
) -> None:
    with restartable_s3_server(tmp_path / "s3") as s3:
        store = team(restartable.create_database("s3_stopped"), s3.server, tmp_path)
        with replicas(store, tmp_path) as running:
            urls = [replica.url for replica in running]
            _, paths = seeded(store, urls[0], tmp_path)
            blob = paths[-1]
            with reading(urls, paths) as readers:
                started = uploads_started(store, urls, tmp_path, uploads)
                wait_for_progress(urls[0], [experiment for experiment, _, _ in started])
                stopped = time.monotonic()
                s3.stop()
                assert all(process.poll() is None for _, _, process in started), "an upload finished before the fault"
                time.sleep(S3_DOWN_SECONDS)
                s3.start()
                back = time.monotonic()
                recovery = [first_success(url + blob) for url in urls]
                time.sleep(1)
            gap = readers.between(stopped, back)
            assert {answer.status for answer in readers.answers} <= {200, 503}, {
                answer.status: answer.text for answer in readers.answers
            }
            unavailable = [answer for answer in gap if answer.status == 503]
            assert {answer.path for answer in unavailable} == {blob}, "only blob reads need the blob store"
            assert {answer.retry_after for answer in unavailable} == {str(RETRY_AFTER_SECONDS)}
            assert max(recovery) <= BACK_WITHIN_SECONDS, recovery
            assert not readers.failures[:5]
            assert_uploaded_once(urls[0], started)
            for replica in running:
                assert not unhandled(replica.log), unhandled(replica.log)[:20]


def test_a_replica_killed_mid_request_behind_nginx_the_upload_retries_on_the_other_and_finishes_once(
    restartable: PostgresServer, uploads: list[subprocess.Popen[bytes]], own_s3: S3Server, tmp_path: Path
) -> None:
    """Through the document's nginx configuration: reads in flight on the killed replica are passed to the other by
    nginx (GETs are retried there); the upload's POST in flight is not (nginx does not repeat a request it has sent
    part of), its client gets a 502 and tries again, which nginx sends to the replica still running."""
    store = team(restartable.create_database("replica_killed"), own_s3, tmp_path)
    tls = certificate(tmp_path / "tls")
    with replicas(store, tmp_path) as running:
        addresses = [urlsplit(replica.url).netloc for replica in running]
        with nginx(addresses, tls, tmp_path / "nginx") as proxy:
            _, paths = seeded(store, running[0].url, tmp_path)
            with reading([proxy.url], paths, verify=tls.context()) as readers:
                started = uploads_started(store, [proxy.url], tmp_path, uploads, trust=tls.certificate)
                wait_for_progress(running[1].url, [experiment for experiment, _, _ in started])
                killed = time.monotonic()
                running[0].process.send_signal(signal.SIGKILL)
                assert all(process.poll() is None for _, _, process in started), "the upload finished before the kill"
                assert_uploaded_once(running[1].url, started)
                time.sleep(1)
            after = readers.between(killed, time.monotonic())
            assert after, "no reads after the kill"
            assert {answer.status for answer in readers.answers} == {200}, {
                answer.status: answer.text for answer in readers.answers
            }
            assert not readers.failures[:5]
