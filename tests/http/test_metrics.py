"""Prometheus metrics of `trainboard serve --metrics_port` (with accounts, on SQLite and PostgreSQL), scraped before
and after real requests: an upload, reads, bad tokens, an event stream. tests/cli/test_operators.py scrapes a real
process."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests import loopback
from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from tests.http.teams import bearer, new_token, store_url
from tests.servers import free_port, in_process

# Builds `trainboard serve`'s app with the flags given, and says whether prometheus-client was imported.
IMPORTS = """
import sys
from trainboard.cli import parse_flags
from trainboard.wiring import store_app

settings, _ = parse_flags(sys.argv[1:], command="serve")
store_app(settings)
print("prometheus_client" in sys.modules)
"""

# A sample: its name and its labels.
Sample = tuple[str, frozenset[tuple[str, str]]]


def scrape(port: int) -> dict[Sample, float]:
    text = loopback.get(f"http://127.0.0.1:{port}/metrics").raise_for_status().text
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def sample(name: str, **labels: str) -> Sample:
    return name, frozenset(labels.items())


def requests(route: str, status: int, method: str = "GET") -> Sample:
    return sample("trainboard_http_request_duration_seconds_count", route=route, method=method, status=str(status))


def eventually(condition: Callable[[], bool], timeout: float = 10) -> bool:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.mark.parametrize("backend", ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def test_counters_move_with_the_requests_and_the_store_is_read_at_each_scrape(
    backend: str, request: pytest.FixtureRequest, tmp_path: Path
) -> None:
    db = store_url(request, backend, tmp_path)
    cli("users", "add", "ada", f"--db={db}")
    token = new_token(db, "ada")
    write_run(tmp_path / "logs" / "train", steps=3)
    port = free_port()
    with in_process("serve", tmp_path / "serve", f"--db={db}", f"--metrics_port={port}") as server:
        before = scrape(port)
        assert before.get(sample("trainboard_upload_chunks_total"), 0) == 0
        cli("upload", f"--server={server.url}", "--experiment=run", f"--logdir={tmp_path / 'logs'}", f"--token={token}")
        uploaded = scrape(port)
        assert uploaded[sample("trainboard_upload_chunks_total")] >= 1
        size = (tmp_path / "logs" / "train" / "events.out.tfevents.1.host").stat().st_size
        assert uploaded[sample("trainboard_upload_bytes_total")] >= size
        listed = loopback.get(f"{server.url}/data/experiments", headers=bearer(token)).raise_for_status().json()
        experiment = listed[0]["id"]
        assert loopback.get(f"{server.url}/data/experiments", headers=bearer("tbk_not_a_token")).status_code == 401
        # Without a token: no failure of authentication, only a request that needs one.
        assert loopback.get(f"{server.url}/data/experiments").status_code == 401
        refused = loopback.post(
            f"{server.url}/auth/session", json={"token": "tbk_nope"}, headers={"Origin": server.url}
        )
        assert refused.status_code == 401

        events = f"{server.url}/experiment/{experiment}/data/trainboard/events"
        headers = {"Accept": "text/event-stream", **bearer(token)}
        with loopback.stream("GET", events, headers=headers, timeout=30) as stream:
            assert stream.status_code == 200
            assert scrape(port)[sample("trainboard_event_streams_open")] == 1
        assert eventually(lambda: scrape(port)[sample("trainboard_event_streams_open")] == 0)

        after = scrape(port)

        def added(counted: Sample) -> float:
            return after.get(counted, 0) - uploaded.get(counted, 0)

        assert added(requests("/data/experiments", 200)) == 1
        assert added(requests("/data/experiments", 401)) == 2
        assert added(requests("/auth/session", 401, "POST")) == 1
        assert added(sample("trainboard_authentication_failures_total")) == 2
        assert after[sample("trainboard_experiment_points", experiment=experiment)] == 3
        # The points were written at wall times 1 to 3: far behind.
        assert after[sample("trainboard_ingest_lag_seconds", experiment=experiment)] > time.time() - 10
        pool = {labels: value for (name, labels), value in after.items() if name == "trainboard_database_pool"}
        if backend == "postgres":
            assert after[sample("trainboard_database_pool", stat="pool_size")] >= 1
        else:
            assert pool == {}


def test_prometheus_client_is_imported_only_with_a_metrics_port(tmp_path: Path) -> None:
    def imported(*flags: str) -> str:
        command = [sys.executable, "-c", IMPORTS, f"--db={tmp_path / 'store.sqlite'}", *flags]
        return subprocess.run(command, capture_output=True, text=True, check=True, timeout=120).stdout.strip()

    assert imported() == "False"
    assert imported(f"--metrics_port={free_port()}") == "True"
