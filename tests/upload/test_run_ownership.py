"""A file belongs to its run: a chunk's path lies in its run's directory, a chunk naming another run's file is a 409
naming both runs, and nothing of another run changes (the probe's `run=attacker, path=victim/...` once replaced the
victim run's points). Names with control characters are refused and never reach the log as a line of their own.
Real `trainboard upload` and `trainboard serve` processes, on SQLite and on PostgreSQL with blobs on S3."""

from __future__ import annotations

import base64
from pathlib import Path

import google_crc32c
import httpx

from tests.cli.logs import write_run
from tests.upload.team import TeamStore, finished, serving, upload

VICTIM = "victim/events.out.tfevents.1.host"
FORGED = "ERROR: Exception in ASGI application FORGED"


def chunk(client: httpx.Client, experiment_id: str, run: str, path: str, data: bytes) -> httpx.Response:
    query = {
        "run": run,
        "path": path,
        "offset": 0,
        "size": len(data),
        "mtime": 1800000000.5,  # a newer file: the store would read it again from 0, replacing what it holds
        "head": base64.urlsafe_b64encode(data[:64]).decode(),
        "crc32c": google_crc32c.value(data),
    }
    return client.post(f"/experiment/{experiment_id}/upload/file", params=query, content=data)


def steps(client: httpx.Client, experiment_id: str, run: str) -> list[int]:
    answer = client.get(f"/experiment/{experiment_id}/data/plugin/scalars/scalars?run={run}&tag=loss")
    return [step for _, step, _ in answer.raise_for_status().json()]


def test_a_chunk_cannot_change_another_runs_file(team_store: TeamStore, tmp_path: Path) -> None:
    experiment_id = team_store.create_experiment("shared")
    write_run(tmp_path / "logs" / "victim", steps=20)
    write_run(tmp_path / "attack" / "attacker", steps=3)
    forged = (tmp_path / "attack" / "attacker" / "events.out.tfevents.1.host").read_bytes()
    with serving(team_store, tmp_path / "serve") as url, httpx.Client(base_url=url, timeout=60) as client:
        finished(upload(url, "shared", tmp_path / "logs", "--reload_interval=0"))
        before = client.get(f"/experiment/{experiment_id}/upload/files").json()["files"]
        assert steps(client, experiment_id, "victim") == list(range(20))

        outside = chunk(client, experiment_id, "attacker", VICTIM, forged)
        assert outside.status_code == 400, outside.text
        assert "does not lie in the directory of run 'attacker'" in outside.text
        # The root's run "." holds every directory: the path lies in it, but the file is the victim run's.
        other = chunk(client, experiment_id, ".", VICTIM, forged)
        assert other.status_code == 409, other.text
        assert other.json()["run"] == "." and other.json()["owner"] == "victim"
        assert "run 'victim'" in other.json()["error"] and "run '.'" in other.json()["error"]

        assert client.get(f"/experiment/{experiment_id}/upload/files").json()["files"] == before
        assert steps(client, experiment_id, "victim") == list(range(20))
        assert client.get(f"/experiment/{experiment_id}/data/runs").json() == ["victim"]


def test_a_name_with_a_control_character_is_refused_and_never_logged_as_two_lines(
    team_store: TeamStore, tmp_path: Path
) -> None:
    experiment_id = team_store.create_experiment("names")
    write_run(tmp_path / "logs" / "train", steps=3)
    data = (tmp_path / "logs" / "train" / "events.out.tfevents.1.host").read_bytes()
    scratch = tmp_path / "serve"
    with serving(team_store, scratch) as url, httpx.Client(base_url=url, timeout=60) as client:
        for run, path in (
            (f"inj\n{FORGED}", f"inj\n{FORGED}/events.out.tfevents.1.host"),
            ("train", f"train/\r{FORGED}/events.out.tfevents.1.host"),
            ("\x1b[2Jtrain", "\x1b[2Jtrain/events.out.tfevents.1.host"),
        ):
            refused = chunk(client, experiment_id, run, path, data)
            assert refused.status_code == 400, refused.text
            assert "control character" in refused.text and "\n" not in refused.text
        assert client.get(f"/experiment/{experiment_id}/upload/files").json()["files"] == {}
        assert client.get(f"/experiment/{experiment_id}/data/runs").json() == []
    (log,) = scratch.glob("serve-*.log")
    lines = log.read_text(errors="replace").splitlines()
    assert not [line for line in lines if line.startswith(FORGED) or "\x1b" in line or "\r" in line]
