"""The `trainboard` command as users run it: a real process on loopback."""

from __future__ import annotations

import os
import re
import socket
import subprocess
from pathlib import Path

import httpx
import pytest

from tests import loopback
from tests.cli.logs import write_run
from tests.cli.process import command, trainboard


def test_without_a_logdir_it_writes_and_serves_the_demo(tmp_path: Path) -> None:
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    with (
        trainboard(tmp_path / "first", "--port=0", "--reload_interval=0", env=cache) as server,
        httpx.Client(base_url=server.url) as client,
    ):
        runs = client.get("/data/runs").json()
        assert len(runs) == 12 and {".", "eval", "tsvis", "sweep/lr-0.1/seed-0"} <= set(runs)
        tags = client.get("/data/plugin/scalars/tags").json()
        assert set(tags["sweep/lr-0.1/seed-0"]) == {"loss", "accuracy", "learning_rate"}
        series = client.get("/data/scalars", params={"run": "sweep/lr-0.1/seed-0", "tag": "loss"}).json()
        # The restart at step 120 dropped the first life's steps 120..149: each step is there once.
        assert [step for _, step, _ in series] == list(range(200))
        for plugin in ("images", "audio", "histograms", "text"):
            assert client.get(f"/data/plugin/{plugin}/tags").json()["sweep/lr-0.01/seed-0"], plugin
        first = server.errors()
    demo = tmp_path / "cache" / "trainboard" / "demo-v3"
    assert f"No --logdir given: serving a demo logdir that trainboard wrote to {demo}" in first
    # 12 event files and the projector config.
    assert "ingest done: 13/13 files" in first
    assert sorted(path.name for path in demo.parent.iterdir() if path.name.startswith(".demo")) == []
    written = {path: path.stat().st_mtime_ns for path in demo.rglob("*tfevents*")}
    # Started again, it serves the same demo from its store without writing it again.
    with trainboard(tmp_path / "second", "--port=0", "--reload_interval=0", env=cache) as server:
        assert len(loopback.get(f"{server.url}data/runs").json()) == 12
        assert "ingest done: 13/13 files, 0.3/0.3 MB, 0 new points" in server.errors()
    assert {path: path.stat().st_mtime_ns for path in demo.rglob("*tfevents*")} == written


def test_progress_goes_to_stderr_as_lines_in_a_log_and_as_a_bar_on_a_terminal(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "run", steps=1000)
    flags = (f"--logdir={tmp_path / 'logs'}", "--port=0", "--reload_interval=0")
    with trainboard(tmp_path / "log", *flags, f"--db={tmp_path / 'log.sqlite'}") as server:
        progress = loopback.get(f"{server.url}data/ingest_progress").json()
    assert server.stdout.read_text() == ""
    summary = f"ingest done: 1/1 files, 0.0/0.0 MB, {progress['points']:,} new points in "
    assert progress["points"] == 1000
    assert summary in server.errors()
    assert "\r" not in server.errors()
    with trainboard(tmp_path / "tty", *flags, f"--db={tmp_path / 'tty.sqlite'}", tty=True) as server:
        pass
    drawn = server.errors()
    # tqdm redraws the bar in place: bytes, files and points, their rates, then the summary on a line of its own.
    assert re.search(r"\ringest: 100%\|█+\| [\d.]+k/[\d.]+k \[.*B/s, 1/1 files, 1,000 points, [\d,]+ points/s\]", drawn)
    assert re.search(r"\r\ningest done: 1/1 files, 0.0/0.0 MB, 1,000 new points in [\d.]+ s \([\d,]+ points/s\)", drawn)


def test_logdir_spec_names_runs_by_group(tmp_path: Path) -> None:
    write_run(tmp_path / "a" / "x")
    write_run(tmp_path / "b")
    write_run(tmp_path / "c" / "y")
    spec = f"first:{tmp_path / 'a'},second:{tmp_path / 'b'},{tmp_path / 'c'}"
    flags = (f"--logdir_spec={spec}", "--port=0", f"--db={tmp_path / 's.sqlite'}")
    with trainboard(tmp_path / "spec", *flags) as server:
        assert sorted(loopback.get(f"{server.url}data/runs").json()) == ["first/x", "second/.", "y"]
        assert loopback.get(f"{server.url}data/environment").json()["data_location"] == spec


def test_port_is_6006_or_the_next_free_one_unless_given(tmp_path: Path) -> None:
    logdir = f"--logdir={tmp_path / 'logs'}"
    with socket.socket() as holder:
        try:
            holder.bind(("127.0.0.1", 6006))
            holder.listen()
        except OSError:
            pass  # someone else holds 6006: trainboard must pass it all the same
        with trainboard(tmp_path / "scan", logdir, f"--db={tmp_path / 'scan.sqlite'}") as server:
            port = httpx.URL(server.url).port
            assert port is not None and 6006 < port < 6106
            assert "Serving on 127.0.0.1 only; to expose to the network, use a proxy or pass --bind_all" in (
                server.errors()
            )
        taken = subprocess.run(command(logdir, "--port=6006"), capture_output=True, text=True, timeout=60)
    assert taken.returncode == 1
    assert taken.stderr.splitlines()[-1] == (
        "trainboard: error: could not bind to port 6006: it is already in use (pick another with --port, or 0 for any)"
    )


def test_host_may_be_ipv6_and_the_url_has_the_path_prefix(tmp_path: Path) -> None:
    flags = (f"--logdir={tmp_path}", "--host=::1", "--port=0", "--path_prefix=/board/", f"--db={tmp_path / 'db'}")
    with trainboard(tmp_path / "v6", *flags) as server:
        assert re.fullmatch(r"http://\[::1\]:\d+/board/", server.url)
        assert loopback.get(f"{server.url}data/runs").json() == []
        assert "--bind_all" not in server.errors()


@pytest.mark.parametrize(
    ("flags", "environment", "message"),
    [
        (["--port=notanumber"], {}, "argument --port: invalid port 'notanumber': expected a number or 'default'"),
        (["--port=70000"], {}, "argument --port: invalid port 70000: must be between 0 and 65535"),
        (["--reload_interval=-1"], {}, "argument --reload_interval: must be non-negative: '-1'"),
        (["--path_prefix=board"], {}, "argument --path_prefix: must start with a slash, but got 'board'"),
        (["--logdir=a", "--logdir_spec=b:c"], {}, "may not give both --logdir and --logdir_spec"),
        (["--host=127.0.0.1", "--bind_all"], {}, "may not give both --host and --bind_all"),
        (["--bind_all"], {"TRAINBOARD_HOST": "::1"}, "may not give both --host and --bind_all"),
        (
            [],
            {"TRAINBOARD_PORT": "x"},
            "environment variable TRAINBOARD_PORT='x': invalid port 'x': expected a number or 'default'",
        ),
        (
            [],
            {"TRAINBOARD_BIND_ALL": "maybe"},
            "environment variable TRAINBOARD_BIND_ALL='maybe': expected 1/true/yes/on or 0/false/no/off",
        ),
        (
            ["--samples_per_plugin=scalars"],
            {},
            "argument --samples_per_plugin: expected name=count pairs, not 'scalars'",
        ),
        (["--ui=web"], {}, "argument --ui: must be one of trainboard, tensorboard, tsvis, not 'web'"),
        (
            ["--ui=tsvis", "--path_prefix=/board"],
            {},
            "--ui tsvis cannot be served under --path_prefix: TS-VIS's UI names its files from the root",
        ),
        (["--nope"], {}, "unrecognized arguments: --nope"),
    ],
)
def test_bad_flags_exit_with_a_message(flags: list[str], environment: dict[str, str], message: str) -> None:
    result = subprocess.run(
        command(*flags), capture_output=True, text=True, timeout=60, env={**os.environ, **environment}
    )
    assert result.returncode == 2, result
    assert result.stderr.splitlines()[0].startswith("usage: trainboard ")
    assert result.stderr.splitlines()[-1] == f"trainboard: error: {message}"
