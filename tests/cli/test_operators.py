"""A real `trainboard serve` as an operator runs it: warned at start (and its visitors by a banner) when others can
reach it, more so with --no_auth; probed and scraped (--metrics_port); logging JSON lines (--log_format json)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx

from tests import loopback
from tests.servers import BIN, free_port, running

TLS_WARNING = "WARNING: this server listens on every interface over plain HTTP"
NO_AUTH_WARNING = "WARNING: --no_auth on an address others can reach"


def _serve(tmp_path: Path, *flags: str) -> tuple[list[str], int]:
    port = free_port()
    command = [str(BIN / "trainboard"), "serve", f"--db={tmp_path / 'store.sqlite'}", f"--port={port}", *flags]
    return command, port


def _answers(client: httpx.Client) -> bool:
    return client.get("/healthz").status_code == 200


def test_a_reachable_server_without_tokens_warns_at_start_and_in_its_page(tmp_path: Path) -> None:
    command, port = _serve(tmp_path, "--bind_all", "--no_auth")
    with running(command, port, tmp_path / "serve.log", _answers) as server:
        printed = server.output()
        assert TLS_WARNING in printed and NO_AUTH_WARNING in printed, printed
        page = loopback.get(f"{server.url}/").text
        banner = re.search(r"<style>body::before\{content:\"([^\"]*)\"", page)
        assert banner is not None and "Warning: this server listens on every interface" in banner.group(1)
        assert "Warning: --no_auth on an address others can reach" in banner.group(1)


def test_on_loopback_no_warning_and_no_banner(tmp_path: Path) -> None:
    command, port = _serve(tmp_path, "--no_auth")
    with running(command, port, tmp_path / "serve.log", _answers) as server:
        assert "WARNING" not in server.output()
        assert "body::before" not in loopback.get(f"{server.url}/").text


def test_metrics_are_scraped_from_their_own_port_and_move_with_the_requests(tmp_path: Path) -> None:
    metrics = free_port()
    command, port = _serve(tmp_path, f"--metrics_port={metrics}")
    with running(command, port, tmp_path / "serve.log", _answers) as server:
        assert f"Metrics at http://127.0.0.1:{metrics}/metrics" in server.output()

        def healthz_count() -> float:
            text = loopback.get(f"http://127.0.0.1:{metrics}/metrics").raise_for_status().text
            found = re.search(
                r'^trainboard_http_request_duration_seconds_count\{method="GET",route="/healthz",status="200"\} (\S+)$',
                text,
                re.MULTILINE,
            )
            return float(found.group(1)) if found else 0.0

        before = healthz_count()
        for _ in range(3):
            assert loopback.get(f"{server.url}/healthz").text == "ok"
        assert healthz_count() == before + 3
        # Not on the app's own port.
        assert loopback.get(f"{server.url}/metrics").status_code != 200


def test_json_logs_are_one_object_per_line_and_a_newline_cannot_forge_one(tmp_path: Path) -> None:
    # A store whose path has a line break, named in the log when it is gone.
    directory = tmp_path / "store\nERROR: Exception in ASGI application FORGED"
    directory.mkdir()
    port = free_port()
    command = [str(BIN / "trainboard"), "serve", f"--db={directory / 'store.sqlite'}", f"--port={port}"]
    with running([*command, "--log_format=json"], port, tmp_path / "serve.log", _answers) as server:
        directory.rename(tmp_path / "moved")
        assert loopback.get(f"{server.url}/readyz").status_code == 503
        lines = server.log.read_text().splitlines()
    records = [json.loads(line) for line in lines]
    assert all({"time", "level", "logger", "message"} <= set(record) for record in records)
    assert any(record["message"].startswith("trainboard ") for record in records)
    not_ready = [record for record in records if record["message"].startswith("not ready: ")]
    assert not_ready and "store\nERROR: Exception in ASGI application FORGED" in not_ready[0]["message"]
    assert not_ready[0]["level"] == "warning" and not_ready[0]["logger"] == "trainboard.http"
    access = [record for record in records if record["logger"] == "uvicorn.access"]
    assert {"client", "method", "path", "http_version", "status"} <= set(access[-1])
    assert (access[-1]["path"], access[-1]["status"]) == ("/readyz", 503)
