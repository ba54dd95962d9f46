"""`trainboard serve --read_db`: reads from two hot standbys of a PostgreSQL primary (streaming replication, set up by
`pg_basebackup -R`), writes to the primary. Replay paused on a standby (`pg_wal_replay_pause()`) is lag the test
controls: a client still reads its own writes at once, on either of two replicas; live updates never go back; a
stopped standby's reads go to the other, then to the primary, with no 500. Real PostgreSQL servers, two replicas of
the app in this process (tests.servers.in_process)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

import httpx
import psycopg
import pytest

from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.http.teams import bearer, new_token
from tests.pgserver import PostgresServer, postgres_server, standby_server
from tests.servers import Server, in_process
from trainboard.http.read_after import COOKIE
from trainboard.http.trainboard_api.events import KEEP_ALIVE_SECONDS, POLL_SECONDS
from trainboard.store.errors import StoreUnavailable
from trainboard.store.opening import open_store, redacted
from trainboard.wiring import standby_urls

pytestmark = [pytest.mark.postgres, pytest.mark.xdist_group("team/standbys")]
DEFINITIONS = "/data/trainboard/definitions"
METADATA = "/data/trainboard/run_metadata"
# The longest a read may take while a standby is stopped: it waits for a connection of the stopped one at most
# trainboard.store.postgres.standbys.STANDBY_WAIT_SECONDS, then goes elsewhere.
STOPPED_READ_SECONDS = 2.0
# Generations moved on by the live-update test; reads in the stopped-standby test.
BUMPS = 12
READS = 20


class Cluster:
    def __init__(self, primary: PostgresServer, standbys: list[PostgresServer]) -> None:
        self.primary = primary
        self.standbys = standbys

    def caught_up(self, *standbys: PostgresServer) -> None:
        """Until `standbys` (all by default) have replayed all the primary has written so far."""
        for standby in standbys or self.standbys:
            standby.catch_up(self.primary)

    @contextmanager
    def paused(self, *standbys: PostgresServer) -> Iterator[None]:
        """Replay paused on `standbys` (all by default): they lag from now on, until the end of the block."""
        paused = standbys or tuple(self.standbys)
        for standby in paused:
            _sql(standby.url, "SELECT pg_wal_replay_pause()")
        try:
            yield
        finally:
            for standby in paused:
                _sql(standby.url, "SELECT pg_wal_replay_resume()")


def _sql(url: str, sql: str) -> object:
    with psycopg.connect(url, autocommit=True) as connection:
        row = connection.execute(sql).fetchone()
    return None if row is None else row[0]


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    with ExitStack() as stack:
        primary = stack.enter_context(postgres_server())
        standbys = [stack.enter_context(standby_server(primary)) for _ in range(2)]
        yield Cluster(primary, standbys)


def team(cluster: Cluster, name: str, tmp_path: Path) -> tuple[str, str, str]:
    """A database with experiment `e` (one run, `train`) and a user whose token is admin of it; --db, --read_db and
    the token."""
    db = cluster.primary.create_database(name)
    write_run(tmp_path / "logs" / "train", steps=5)
    cli("ingest", f"--db={db}", "--experiment=e", f"--logdir={tmp_path / 'logs'}")
    cli("users", "add", "ada", f"--db={db}")
    token = new_token(db, "ada", "--experiment=e", "--role=admin")
    read_db = ",".join(standby.database_url(db.rsplit("/", 1)[1]) for standby in cluster.standbys)
    return db, read_db, token


@contextmanager
def replicas(db: str, read_db: str, scratch: Path, *flags: str) -> Iterator[list[Server]]:
    with ExitStack() as stack:
        yield [
            stack.enter_context(
                in_process("serve", scratch / f"replica-{n}", f"--db={db}", f"--read_db={read_db}", *flags)
            )
            for n in range(2)
        ]


def experiment_id(url: str, token: str) -> str:
    listed = httpx.get(f"{url}/data/experiments", headers=bearer(token)).raise_for_status().json()
    return str(next(e["id"] for e in listed if e["name"] == "e"))


def test_reads_come_from_the_standbys_and_a_client_reads_its_own_writes_and_sessions_on_either_replica(
    cluster: Cluster, tmp_path: Path
) -> None:
    db, read_db, token = team(cluster, "own_writes", tmp_path)
    with replicas(db, read_db, tmp_path) as (a, b):
        experiment = experiment_id(a.url, token)
        cluster.caught_up()
        with (
            cluster.paused(),
            httpx.Client(headers=bearer(token)) as writer,
            httpx.Client(headers=bearer(token)) as other,
        ):
            # Written past the app: the standbys, paused, do not have it, so a read that does not list it came from one.
            with psycopg.connect(db, autocommit=True) as connection:
                connection.execute("UPDATE experiments SET description = 'changed on the primary'")
            for replica in (a, b):
                listed = other.get(f"{replica.url}/data/experiments").raise_for_status().json()
                assert [e["description"] for e in listed] == [""], "read from the primary, not a standby"

            base = f"{a.url}/experiment/{experiment}"
            defined = writer.post(f"{base}{DEFINITIONS}", json={"name": "twice", "expression": "loss * 2"})
            assert defined.status_code == 200, defined.text
            assert int(writer.cookies[COOKIE]) > 0
            pin = writer.post(f"{base}/pins").raise_for_status().json()["pin"]
            starred = writer.post(f"{base}{METADATA}", json={"runs": ["train"], "starred": True})
            assert starred.status_code == 200, starred.text
            # Another client on the other replica, whose process has not written: it reads a standby, still paused.
            base = f"{b.url}/experiment/{experiment}"
            assert other.get(f"{base}{DEFINITIONS}").raise_for_status().json()["definitions"] == []
            assert other.get(f"{base}/pins").raise_for_status().json()["pins"] == []
            # The writer, on either replica: its cookie sends its reads where its writes are.
            for replica in (b, a):
                base = f"{replica.url}/experiment/{experiment}"
                names = [d["name"] for d in writer.get(f"{base}{DEFINITIONS}").raise_for_status().json()["definitions"]]
                assert names == ["twice"]
                assert [p["pin"] for p in writer.get(f"{base}/pins").raise_for_status().json()["pins"]] == [pin]
                assert writer.get(f"{base}{METADATA}").json()["runs"]["train"]["starred"] is True
            # A cookie that is no position is no floor: answered as without it.
            for bad in ("", "x' OR 1", "-5", "1" * 40):
                listed = httpx.get(f"{b.url}/data/experiments", headers=bearer(token), cookies={COOKIE: bad})
                assert listed.status_code == 200, listed.text
            # A browser signed in on one replica is signed in on the other (sessions are read from the primary).
            with httpx.Client() as browser:
                signed_in = browser.post(f"{a.url}/auth/session", json={"token": token}, headers={"Origin": a.url})
                assert signed_in.status_code == 200, signed_in.text
                assert [e["name"] for e in browser.get(f"{b.url}/data/experiments").raise_for_status().json()] == ["e"]


def test_live_updates_never_go_back_while_one_standby_lags(cluster: Cluster, tmp_path: Path) -> None:
    """One standby paused, the other replaying: reads spread over both would see the generation go back and forth;
    the events of a stream, and a client's reads on either replica, only move forward."""
    db, read_db, token = team(cluster, "live", tmp_path)
    with replicas(db, read_db, tmp_path) as (a, b):
        experiment = experiment_id(a.url, token)
        cluster.caught_up()
        events: list[int] = []
        stop = threading.Event()

        def follow() -> None:
            url = f"{a.url}/experiment/{experiment}/data/trainboard/events"
            with httpx.stream("GET", url, headers={**bearer(token), "Accept": "text/event-stream"}, timeout=30) as s:
                for line in s.iter_lines():
                    if line.startswith("data: "):
                        events.append(json.loads(line.removeprefix("data: "))["generation"])
                    if stop.is_set():
                        return

        with cluster.paused(cluster.standbys[0]), httpx.Client(headers=bearer(token)) as client:
            start = generation(client, a.url, experiment)
            stream = threading.Thread(target=follow, daemon=True)
            stream.start()
            seen: list[int] = []
            for _ in range(BUMPS):
                with psycopg.connect(db, autocommit=True) as connection:
                    connection.execute("UPDATE experiment_state SET generation = generation + 1")
                for replica in (a, b):
                    seen.append(generation(client, replica.url, experiment))
                time.sleep(0.25)
            cluster.caught_up(cluster.standbys[1])
            seen += [generation(client, replica.url, experiment) for replica in (a, b)]
            time.sleep(POLL_SECONDS * 2)
            stop.set()
            stream.join(KEEP_ALIVE_SECONDS + 5)
        assert seen == sorted(seen), seen
        assert seen[-1] == start + BUMPS
        assert len(events) >= 3 and events == sorted(events) and events[-1] == start + BUMPS, events


def generation(client: httpx.Client, url: str, experiment: str) -> int:
    return int(
        client.get(f"{url}/experiment/{experiment}/data/ingest_progress").raise_for_status().json()["generation"]
    )


def test_a_stopped_standby_sends_its_reads_to_the_other_then_both_stopped_to_the_primary(
    cluster: Cluster, tmp_path: Path
) -> None:
    db, read_db, token = team(cluster, "stopped", tmp_path)
    first, second = cluster.standbys
    with replicas(db, read_db, tmp_path) as (a, _), httpx.Client(headers=bearer(token)) as client:
        cluster.caught_up()

        def descriptions() -> set[str]:
            """What fresh clients are answered, read after read, for a while: each within STOPPED_READ_SECONDS."""
            found = set()
            for _ in range(READS):
                began = time.monotonic()
                listed = httpx.get(f"{a.url}/data/experiments", headers=bearer(token))
                assert listed.status_code == 200, listed.text
                assert time.monotonic() - began < STOPPED_READ_SECONDS
                found |= {e["description"] for e in listed.json()}
                time.sleep(0.1)
            return found

        try:
            first.stop()
            # The second paused, and a change it does not have: answers without it come from the second.
            with cluster.paused(second):
                with psycopg.connect(db, autocommit=True) as connection:
                    connection.execute("UPDATE experiments SET description = 'new'")
                assert descriptions() == {""}
            second.stop()
            assert descriptions() == {"new"}
        finally:
            for standby in (first, second):
                standby.start()
        cluster.caught_up()
        assert client.get(f"{a.url}/data/experiments").status_code == 200
    for replica in range(2):
        log = (tmp_path / f"replica-{replica}" / "serve-in-process.log").read_text()
        assert "Traceback" not in log and " 500" not in log, log[-3000:]


def test_read_db_names_each_standby_once_though_a_url_may_name_several_hosts() -> None:
    one, two = "postgresql://u@db2:5432/t", "postgres://u@db3:5432,db4:5432/t?target_session_attrs=any"
    assert standby_urls(f"{one},{two}") == [one, two]
    assert standby_urls(f" {one} , {two} ,") == [one, two]
    assert standby_urls("") == []


def test_standbys_are_refused_for_a_sqlite_store(tmp_path: Path) -> None:
    with pytest.raises(StoreUnavailable, match=r"standbys \(--read_db\) are for a PostgreSQL store"):
        open_store(str(tmp_path / "store.sqlite"), standbys=["postgresql://u@db2/t"])
    assert not (tmp_path / "store.sqlite").exists()


def test_a_url_naming_several_hosts_is_named_without_its_password() -> None:
    """A failover --db names the primary and its standbys in one URL; messages and logs name it without the password
    (urllib refuses the port of such a URL: `redacted` raised ValueError on it)."""
    url = "postgresql://trainboard:secret@db1:5432,db2:5432/board?target_session_attrs=read-write"
    assert redacted(url) == "postgresql://trainboard:***@db1:5432,db2:5432/board?target_session_attrs=read-write"
    assert redacted("postgresql://trainboard:secret@db1/board") == "postgresql://trainboard:***@db1/board"
