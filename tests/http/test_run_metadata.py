"""Run metadata and saved views over HTTP, on real servers and stores: `trainboard --logdir` (whose local writes need
no role, as pins do) and `trainboard serve` with accounts on SQLite and PostgreSQL (read with the read role, write with
the write role, each write in the audit log). Metadata outlives a server's restart and a run's files going and coming
back; notes are served as text and as sanitised HTML; bad input is a 4xx in trainboard's JSON error shape."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests import loopback
from tests.cli.logs import write_run
from tests.http.teams import Team, bearer, denial
from tests.servers import trainboard_in_process
from trainboard.store.run_metadata import MAX_LABELS_PER_RUN, MAX_NOTES, MAX_VIEW_STATE_BYTES

METADATA = "/data/trainboard/run_metadata"
VIEWS = "/data/trainboard/views"
SCRIPT = "<script>alert(1)</script> **bold** <img src=x onerror=alert(2)>"


def logdir_of(root: Path, runs: tuple[str, ...] = ("train", "eval")) -> Path:
    for run in runs:
        write_run(root / "logs" / run, steps=3)
    return root / "logs"


def test_local_metadata_outlives_restarts_and_the_runs_files_going_and_coming_back(tmp_path: Path) -> None:
    logdir = logdir_of(tmp_path)
    with trainboard_in_process(logdir, tmp_path / "first") as server, httpx.Client(base_url=server.url) as client:
        assert client.get(METADATA).json()["runs"] == {}
        changed = client.post(
            METADATA,
            json={"runs": ["train"], "notes": SCRIPT, "display_name": "base", "starred": True, "color": "#FF8800"},
        )
        assert changed.status_code == 200, changed.text
        labelled = client.post(METADATA, json={"runs": ["train", "eval"], "add_labels": ["sweep", "best"]})
        assert labelled.json()["runs"]["eval"]["labels"] == ["best", "sweep"]
        saved = client.post(VIEWS, json={"name": "mine", "state": {"dashboard": "scalars", "smoothing": 0.6}}).json()
        before = client.get(METADATA).json()
        train = client.get(METADATA, params={"run": "train", "html": "true"}).json()["runs"]["train"]
    assert "notes_html" not in before["runs"]["train"]
    assert (train["display_name"], train["starred"], train["color"], train["notes"]) == (
        "base",
        True,
        "#ff8800",
        SCRIPT,
    )
    # The notes' markup is text: the script and the image's handler are not served as markup.
    assert "<script" not in train["notes_html"] and "&lt;script&gt;" in train["notes_html"]
    assert "onerror" not in train["notes_html"] and "<strong>bold</strong>" in train["notes_html"]
    assert before["bounds"]["notes_chars"] == MAX_NOTES

    shutil.move(logdir / "train", tmp_path / "train")
    scratch = tmp_path / "first"  # the same store, by its own --db
    with trainboard_in_process(logdir, scratch) as server, httpx.Client(base_url=server.url) as client:
        assert client.get("/data/runs").json() == ["eval"]
        assert list(client.get(METADATA).json()["runs"]) == ["eval"]
        assert client.post(METADATA, json={"runs": ["train"], "starred": False}).status_code == 404
    shutil.move(tmp_path / "train", logdir / "train")
    with trainboard_in_process(logdir, scratch) as server, httpx.Client(base_url=server.url) as client:
        assert client.get(METADATA).json() == before
        assert client.get(f"{VIEWS}/mine").json()["state"] == {"dashboard": "scalars", "smoothing": 0.6}
        assert client.get(f"{VIEWS}/{saved['id']}").json()["name"] == "mine"


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"runs": ["train"], "notes": "x" * (MAX_NOTES + 1)}, 400, f"at most {MAX_NOTES} characters"),
        ({"runs": ["train"], "color": "red"}, 400, "#rrggbb"),
        ({"runs": ["nope"], "starred": True}, 404, "no run named 'nope'"),
        ({"runs": ["train"], "add_labels": [f"l{i}" for i in range(40)]}, 400, f"at most {MAX_LABELS_PER_RUN}"),
        ({"runs": ["train"], "labels": ["x"]}, 400, "unknown keys 'labels'"),
        ({"runs": "train", "starred": True}, 400, "runs must be a list"),
        ({"runs": ["train"]}, 400, "nothing to change"),
        ([1], 400, "a JSON object"),
    ],
)
def test_bad_changes_are_4xx_in_trainboards_json(local: httpx.Client, body: object, status: int, message: str) -> None:
    response = local.post(METADATA, json=body)
    assert response.status_code == status, response.text
    assert response.json()["ok"] is False and message in response.json()["error"]
    assert local.get(METADATA).json()["runs"] == {}


def test_views_over_http_and_their_bounds(local: httpx.Client) -> None:
    first = local.post(VIEWS, json={"name": "a", "state": {"x": 1}}).json()
    local.post(VIEWS, json={"name": "b", "state": {"x": 2}}).raise_for_status()
    assert [view["name"] for view in local.get(VIEWS).json()["views"]] == ["a", "b"]
    taken = local.post(f"{VIEWS}/a/rename", json={"name": "b"})
    assert taken.status_code == 409 and "another view" in taken.json()["error"]
    assert local.post(f"{VIEWS}/{first['id']}/rename", json={"name": "c"}).json()["name"] == "c"
    too_big = local.post(VIEWS, json={"name": "big", "state": {"x": "y" * MAX_VIEW_STATE_BYTES}})
    assert too_big.status_code == 400 and "bytes" in too_big.json()["error"]
    assert local.post(VIEWS, json={"name": "list", "state": [1]}).status_code == 400
    assert local.delete(f"{VIEWS}/c").json() == {"ok": True}
    assert local.delete(f"{VIEWS}/c").status_code == 404
    assert local.get(f"{VIEWS}/c").status_code == 404
    assert [view["name"] for view in local.get(VIEWS).json()["views"]] == ["b"]


@pytest.fixture
def local(tmp_path: Path) -> Iterator[httpx.Client]:
    logdir = logdir_of(tmp_path)
    with trainboard_in_process(logdir, tmp_path / "serve") as server, httpx.Client(base_url=server.url) as client:
        yield client


def test_below_a_pin_metadata_and_views_are_read_but_not_written(local: httpx.Client) -> None:
    local.post(METADATA, json={"runs": ["train"], "starred": True}).raise_for_status()
    local.post(VIEWS, json={"name": "v", "state": {}}).raise_for_status()
    pin = local.post("/pins").json()["pin"]
    assert local.get(f"/at/{pin}{METADATA}").json()["runs"]["train"]["starred"] is True
    assert [view["name"] for view in local.get(f"/at/{pin}{VIEWS}").json()["views"]] == ["v"]
    assert local.post(f"/at/{pin}{METADATA}", json={"runs": ["train"], "starred": False}).status_code == 405
    assert local.delete(f"/at/{pin}{VIEWS}/v").status_code == 405
    assert local.get(f"/at/nope{METADATA}").status_code == 404


def test_on_a_team_server_readers_read_writers_write_and_writes_are_audited(team: Team) -> None:
    base = f"{team.url}/experiment/{team.private}"
    change = {"runs": ["train"], "notes": "seen", "add_labels": ["x"]}
    assert loopback.post(base + METADATA, json=change, headers=bearer(team.reader)).text == denial(team.private)
    assert loopback.post(base + VIEWS, json={"name": "v", "state": {}}, headers=bearer(team.reader)).status_code == 404
    assert loopback.post(base + METADATA, json=change).status_code == 401
    assert loopback.post(base + METADATA, json=change, headers=bearer(team.admin)).status_code == 200
    saved = loopback.post(base + VIEWS, json={"name": "v", "state": {"a": 1}}, headers=bearer(team.admin)).json()
    renamed = loopback.post(f"{base}{VIEWS}/v/rename", json={"name": "w"}, headers=bearer(team.admin))
    assert renamed.status_code == 200
    # The reader reads them; the stranger is told the experiment does not exist.
    read = loopback.get(base + METADATA, headers=bearer(team.reader)).json()["runs"]
    assert read["train"]["notes"] == "seen" and read["train"]["labels"] == ["x"]
    assert loopback.get(f"{base}{VIEWS}/w", headers=bearer(team.reader)).json()["state"] == {"a": 1}
    assert loopback.get(base + VIEWS, headers=bearer(team.stranger)).text == denial(team.private)
    assert loopback.delete(f"{base}{VIEWS}/w", headers=bearer(team.reader)).status_code == 404
    assert loopback.delete(f"{base}{VIEWS}/w", headers=bearer(team.admin)).json() == {"ok": True}
    events = loopback.get(f"{base}/admin/audit", headers=bearer(team.admin)).json()["events"]
    found = [(e["event"], e["user"], e["detail"]) for e in events if e["event"].startswith(("run_", "view_"))]
    assert found == [
        ("view_delete", "ada", {"view": saved["id"], "name": "w"}),
        ("view_rename", "ada", {"view": saved["id"], "name": "w"}),
        ("view_save", "ada", {"view": saved["id"], "name": "v"}),
        ("run_metadata", "ada", {"runs": 1, "run": "train", "changed": ["notes", "labels"]}),
    ]
