"""/healthz and /readyz of `trainboard serve` with accounts, on SQLite and PostgreSQL: both answer without a token;
/readyz is 503 once the database is gone or its migrations are not this trainboard's, and names nothing of the store
to the anonymous caller (the server's log says why); and once its S3 bucket is gone."""

from __future__ import annotations

import sqlite3
import uuid
from pathlib import Path

import httpx
import psycopg
import pytest
import s3fs

from tests import loopback
from tests.http.teams import Team
from tests.pgserver import PostgresServer
from tests.s3server import S3Server
from tests.servers import in_process


def _probe(team: Team, path: str) -> httpx.Response:
    response = loopback.get(f"{team.url}{path}", timeout=30)
    assert response.headers["cache-control"] == "no-store"
    return response


def _execute(db: str, sql: str) -> None:
    if db.startswith("sqlite:"):
        with sqlite3.connect(db.removeprefix("sqlite:")) as connection:
            connection.execute(sql)
        return
    with psycopg.connect(db, autocommit=True) as connection:
        connection.execute(sql)


def test_both_answer_without_a_token_while_the_store_answers(team: Team) -> None:
    assert (_probe(team, "/healthz").status_code, _probe(team, "/healthz").text) == (200, "ok")
    assert (_probe(team, "/readyz").status_code, _probe(team, "/readyz").text) == (200, "ready")
    # Where every data route asks for a token.
    assert loopback.get(f"{team.url}/data/experiments").status_code == 401


def test_not_ready_once_the_database_is_gone_but_still_healthy(
    team: Team, request: pytest.FixtureRequest, caplog: pytest.LogCaptureFixture
) -> None:
    if team.db.startswith("sqlite:"):
        path = Path(team.db.removeprefix("sqlite:"))
        path.rename(path.with_name("moved.sqlite"))
    else:
        postgres: PostgresServer = request.getfixturevalue("postgres")
        postgres.drop_database(team.db)
    readiness = _probe(team, "/readyz")
    assert readiness.status_code == 503
    assert readiness.text == "not ready: the store does not answer (the server's log says why)"
    assert _probe(team, "/healthz").status_code == 200
    assert "not ready: " in caplog.text


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ("DELETE FROM migrations WHERE name = (SELECT MAX(name) FROM migrations)", "migrations not applied: "),
        ("INSERT INTO migrations (name, applied_at) VALUES ('9999_from_the_future', 0)", "of a newer trainboard: "),
    ],
    ids=["behind", "ahead"],
)
def test_not_ready_when_the_migrations_are_not_this_trainboards(
    team: Team, change: str, why: str, caplog: pytest.LogCaptureFixture
) -> None:
    _execute(team.db, change)
    assert _probe(team, "/readyz").status_code == 503
    assert why in caplog.text


@pytest.mark.postgres
@pytest.mark.s3
def test_not_ready_once_the_blob_store_is_gone(
    postgres_url: str, s3: S3Server, s3_blobs_url: str, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    # A bucket of this test's own (the environment of s3_blobs_url reaches the server), removed while it serves.
    bucket = f"readyz-{uuid.uuid4().hex[:12]}"
    s3_files = s3fs.S3FileSystem(skip_instance_cache=True, **s3.storage_options())
    s3_files.mkdir(bucket)
    with in_process("serve", tmp_path / "serve", f"--db={postgres_url}", f"--blobs=s3://{bucket}/blobs") as server:
        assert loopback.get(f"{server.url}/readyz", timeout=30).status_code == 200
        s3_files.rmdir(bucket)
        assert loopback.get(f"{server.url}/readyz", timeout=30).status_code == 503
    assert f"cannot reach the blob store s3://{bucket}/blobs: no such bucket" in caplog.text
