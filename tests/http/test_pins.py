"""Pins and deletion over HTTP, on real servers and stores: `trainboard serve` of a store that `trainboard ingest`
fills from logs written by tensorboardX (SQLite; PostgreSQL with blobs in S3), and `trainboard --logdir`.

A pin is taken, more points, images, tags and runs are written and ingested, and then every route of the experiment
below /at/<pin>/ answers as it did when the pin was made, while the same routes without it show the new data."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import numpy as np
import pytest
import tensorboardX

from tests import loopback
from tests.commands import in_process_command as cli
from tests.logdirs import images, write_tensorboardx_run
from tests.servers import in_process, trainboard_in_process
from trainboard.errors import NoSuchExperiment
from trainboard.normaliser.points import DataClass
from trainboard.store.opening import open_store

TIMEOUT = 120.0
RUN, LATER_RUN = "train", "eval"
# Requests of every plugin the tensorboardX run writes: (method, path, parameters or JSON body).
REQUESTS: list[tuple[str, str, dict[str, object]]] = [
    ("GET", "/data/runs", {}),
    ("GET", "/data/runs_by_type", {}),
    ("GET", "/data/plugins_listing", {}),
    ("GET", "/data/environment", {}),
    ("GET", "/data/plugin/scalars/tags", {}),
    ("GET", "/data/plugin/scalars/scalars", {"run": RUN, "tag": "accuracy"}),
    ("GET", "/data/plugin/histograms/tags", {}),
    ("GET", "/data/plugin/histograms/histograms", {"run": RUN, "tag": "activations"}),
    ("GET", "/data/plugin/distributions/distributions", {"run": RUN, "tag": "activations"}),
    ("GET", "/data/plugin/images/tags", {}),
    ("GET", "/data/plugin/images/images", {"run": RUN, "tag": "inputs"}),
    ("GET", "/data/plugin/audio/tags", {}),
    ("GET", "/data/plugin/audio/audio", {"run": RUN, "tag": "speech"}),
    ("GET", "/data/plugin/text/tags", {}),
    ("GET", "/data/plugin/text/text", {"run": RUN, "tag": "log"}),
    ("GET", "/data/plugin/pr_curves/tags", {}),
    ("GET", "/data/plugin/pr_curves/pr_curves", {"run": RUN, "tag": "precision_recall"}),
    ("GET", "/data/plugin/custom_scalars/layout", {}),
    ("GET", "/data/plugin/timeseries/tags", {}),
    ("POST", "/data/plugin/hparams/experiment", {"experimentName": ""}),
    ("POST", "/data/plugin/hparams/session_groups", {"experimentName": "", "startIndex": 0, "sliceSize": 100}),
    ("GET", "/data/trainboard/runs", {"filter": "accuracy > 0.5 or lr > 0"}),
    ("GET", "/data/trainboard/groups/scalars", {"tag": "accuracy", "by": "dir:0", "band": "minmax"}),
    ("GET", "/api/getCategory", {}),
    ("GET", "/api/scalar", {"run": RUN, "tag": "accuracy"}),
    ("GET", "/api/image", {"run": RUN, "tag": "inputs"}),
]
TIME_SERIES = [{"plugin": "scalars", "tag": "accuracy"}, {"plugin": "images", "tag": "inputs", "run": RUN}]


def bearer(token: str | None) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"} if token else {}


def answers(client: httpx.Client, base: str, live: str | None = None) -> dict[str, object]:
    """What the experiment's routes below `base` answer, the bytes of every image they name included; where an answer
    names URLs of its own (the plugins listing), `base` in them is written as `live`."""
    found: dict[str, object] = {}
    for method, path, values in REQUESTS:
        if method == "POST":
            response = client.post(base + path, content=json.dumps(values))
        else:
            response = client.get(base + path, params={k: str(v) for k, v in values.items()})
        assert response.status_code == 200, f"{method} {base}{path}: {response.status_code} {response.text[:200]}"
        found[path + str(values)] = json.loads(
            response.text.replace(f"{base}/", f"{live}/") if live is not None else response.text
        )
    series = client.post(f"{base}/data/plugin/timeseries/timeSeries", data={"requests": json.dumps(TIME_SERIES)})
    found["timeSeries"] = series.raise_for_status().json()
    for image in found["/data/plugin/images/images" + str({"run": RUN, "tag": "inputs"})]:  # type: ignore[attr-defined]
        blob = client.get(f"{base}/data/plugin/images/individualImage?{image['query']}")
        found[image["query"]] = blob.raise_for_status().content
    return found


def write_more(logdir: Path) -> None:
    """After the pin: more steps of the run's tags in a second file, a new tag, and a new run."""
    with tensorboardX.SummaryWriter(str(logdir / RUN), filename_suffix=".later") as writer:
        for step in range(10, 15):
            writer.add_scalar("accuracy", step / 100, step)
            writer.add_histogram("activations", np.random.default_rng(step).normal(size=100), step)
            writer.add_images("inputs", images(step + 20, 3), step, dataformats="NHWC")
            writer.add_text("log", f"line {step}", step)
        writer.add_scalar("learning_rate", 0.01, 14)
    with tensorboardX.SummaryWriter(str(logdir / LATER_RUN)) as writer:
        writer.add_scalar("accuracy", 0.5, 0)
        writer.add_images("inputs", images(99, 2), 0, dataformats="NHWC")


def has_the_new_data(client: httpx.Client, base: str) -> bool:
    scalars = client.get(f"{base}/data/plugin/scalars/scalars", params={"run": RUN, "tag": "accuracy"}).json()
    shown = client.get(f"{base}/data/plugin/images/images", params={"run": RUN, "tag": "inputs"}).json()
    return (
        LATER_RUN in client.get(f"{base}/data/runs").json()
        and [step for _, step, _ in scalars][-1] == 14
        and "learning_rate" in client.get(f"{base}/data/plugin/scalars/tags").json()[RUN]
        and 14 in {image["step"] for image in shown}
    )


MAX_PINS = 3


@dataclass(frozen=True, slots=True)
class Team:
    url: str
    db: str
    blobs: str
    logdir: Path
    experiment: str
    admin: str
    reader: str

    def ingest(self) -> None:
        cli("ingest", f"--db={self.db}", f"--blobs={self.blobs}", "--experiment=shared", f"--logdir={self.logdir}")


@pytest.fixture(params=["sqlite", pytest.param("postgres+s3", marks=[pytest.mark.postgres, pytest.mark.s3])])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Team]:
    """`trainboard serve` (with accounts) of a store holding one experiment ingested from a tensorboardX run; ada is
    its admin, bob may read it."""
    db, blobs = f"sqlite:{tmp_path / 'team.sqlite'}", ""
    if request.param == "postgres+s3":
        db, blobs = request.getfixturevalue("postgres_url"), request.getfixturevalue("s3_blobs_url")
    logdir = tmp_path / "logs"
    write_tensorboardx_run(logdir / RUN)
    cli("ingest", f"--db={db}", f"--blobs={blobs}", "--experiment=shared", f"--logdir={logdir}")
    for user in ("ada", "bob"):
        cli("users", "add", user, f"--db={db}")
    admin = cli("tokens", "create", f"--db={db}", "--user=ada", "--experiment=shared", "--role=admin").strip()
    reader = cli("tokens", "create", f"--db={db}", "--user=bob", "--experiment=shared", "--role=read").strip()
    flags = (f"--db={db}", f"--blobs={blobs}", f"--max_pins_per_user={MAX_PINS}")
    with in_process("serve", tmp_path / "serve", *flags) as server:
        url = server.url
        (listed,) = loopback.get(f"{url}/data/experiments", headers=bearer(admin)).raise_for_status().json()
        yield Team(url, db, blobs, logdir, listed["id"], admin, reader)


def test_a_pinned_link_answers_as_at_the_pin_and_the_live_one_moves_on(team: Team) -> None:
    with httpx.Client(base_url=team.url, headers=bearer(team.reader), timeout=60) as client:
        live = f"/experiment/{team.experiment}"
        before = answers(client, live)
        # A pin is stored: a reader may not make one, a writer (here the admin) may.
        refused = client.post(f"{live}/pins")
        assert (refused.status_code, refused.text) == (404, str(NoSuchExperiment()))
        created = client.post(f"{live}/pins", headers=bearer(team.admin))
        assert created.status_code == 200, created.text
        pin = created.json()
        assert set(pin) == {"pin", "created"} and abs(pin["created"] - time.time()) < 60
        pinned = f"{live}/at/{pin['pin']}"
        assert answers(client, pinned, live) == before

        write_more(team.logdir)
        team.ingest()
        assert has_the_new_data(client, live)
        assert answers(client, pinned, live) == before
        # The UI's pages under the pinned path, the same under any pin (they tell nobody which pins exist), and no data
        # under a pin the experiment does not have.
        page = client.get(f"{pinned}/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        for path in ("/", "/index.html"):
            assert client.get(f"{live}/at/nope{path}").content == client.get(f"{pinned}{path}").content
        for path in ("/data/runs", "/data/plugin/scalars/tags", "/api/getCategory"):
            missing = client.get(f"{live}/at/nope{path}")
            assert (missing.status_code, missing.text) == (404, str(NoSuchExperiment()))
        assert client.post(f"{live}/at/{pin['pin']}/pins").status_code == 404
        # Without a token, a pinned link is as private as the live one.
        assert loopback.get(f"{team.url}{pinned}/data/runs").status_code == 401


def test_an_admin_deletes_the_experiment_and_everything_of_it(team: Team) -> None:
    store = open_store(team.db, team.blobs or None)
    try:
        keys = [
            key
            for row in store.series(team.experiment, data_class=DataClass.BLOB_SEQUENCE)
            for point in store.blob_sequences(team.experiment, row.id)
            for key in point.blob_keys
        ]
        assert keys and all(store.blob(key) is not None for key in keys)
        everywhere = cli("tokens", "create", f"--db={team.db}", "--user=ada").strip()
        with httpx.Client(base_url=team.url, timeout=60) as client:
            live = f"/experiment/{team.experiment}"
            pin = client.post(f"{live}/pins", headers=bearer(team.admin)).raise_for_status().json()["pin"]
            refused = client.post(f"{live}/admin/delete", headers=bearer(team.reader))
            assert refused.status_code == 404
            # While a process writes the experiment (here, this one holds its writer claim), it is not deleted.
            writer = open_store(team.db, team.blobs or None)
            assert writer.claim_writer(team.experiment)
            busy = client.post(f"{live}/admin/delete", headers=bearer(team.admin))
            assert busy.status_code == 409 and busy.json()["ok"] is False
            writer.close()

            deleted = client.post(f"{live}/admin/delete", headers=bearer(team.admin))
            assert (deleted.status_code, deleted.json()) == (200, {"ok": True})
            # The tokens limited to it are revoked; ada's others find nothing there.
            assert client.get("/data/experiments", headers=bearer(team.admin)).status_code == 401
            for path in (f"{live}/data/runs", f"{live}/at/{pin}/data/runs"):
                assert client.get(path, headers=bearer(everywhere)).status_code == 404, path
            # trainboard's page is open to anyone, for any id (so it tells nobody which exist): it says there is no
            # experiment to read there.
            for path in (f"{live}/", f"{live}/at/{pin}/"):
                page = client.get(path, headers=bearer(everywhere))
                assert page.status_code == 200 and '<meta name="trainboard-experiment" content="" />' in page.text
            assert client.post(f"{live}/pins", headers=bearer(everywhere)).status_code == 404
            assert client.get("/data/experiments", headers=bearer(everywhere)).json() == []
        assert store.experiments() == []
        assert all(store.blob(key) is None for key in keys)
    finally:
        store.close()


def test_pins_of_the_one_logdir_of_trainboard_at_the_root(tmp_path: Path) -> None:
    """`trainboard --logdir` serves its experiment at / and ingests as the logdir grows: /pins and /at/<pin>/ there."""
    logdir = tmp_path / "logs"
    write_tensorboardx_run(logdir / RUN)
    with (
        trainboard_in_process(logdir, tmp_path, "--reload_interval=1") as server,
        httpx.Client(base_url=server.url, timeout=60) as client,
    ):
        before = answers(client, "")
        pin = client.post("/pins").raise_for_status().json()["pin"]
        write_more(logdir)
        deadline = time.monotonic() + TIMEOUT
        while not has_the_new_data(client, ""):
            assert time.monotonic() < deadline, "the new data was not ingested"
            time.sleep(0.2)
        assert answers(client, f"/at/{pin}", "") == before
        experiment = client.get("/data/experiments").json()[0]["id"]
        assert answers(client, f"/experiment/{experiment}/at/{pin}", "") == before
        assert client.get("/at/nope/data/runs").status_code == 404


def test_writers_make_pins_within_their_quota_and_list_and_delete_their_own(team: Team) -> None:
    cli("users", "add", "cat", f"--db={team.db}")
    writer = cli("tokens", "create", f"--db={team.db}", "--user=cat", "--experiment=shared", "--role=write").strip()
    live = f"/experiment/{team.experiment}"
    refused = (404, str(NoSuchExperiment()))
    with httpx.Client(base_url=team.url, timeout=60) as client:

        def pin(token: str) -> httpx.Response:
            return client.post(f"{live}/pins", headers=bearer(token))

        def listed(token: str) -> list[str]:
            answer = client.get(f"{live}/pins", headers=bearer(token)).raise_for_status().json()
            return [found["pin"] for found in answer["pins"]]

        def deleted(token: str, pin_id: str) -> tuple[int, str]:
            answer = client.delete(f"{live}/pins/{pin_id}", headers=bearer(token))
            return answer.status_code, answer.text

        assert (pin(team.reader).status_code, pin(team.reader).text) == refused
        mine = [pin(writer).raise_for_status().json()["pin"] for _ in range(MAX_PINS)]
        over = pin(writer)
        assert over.status_code == 409 and "--max_pins_per_user" in over.json()["error"]
        admins = pin(team.admin).raise_for_status().json()["pin"]

        assert listed(writer) == mine
        assert listed(team.admin) == [*mine, admins]
        reading = client.get(f"{live}/pins", headers=bearer(team.reader))
        assert (reading.status_code, reading.text) == refused
        # Another's pin is answered as one that does not exist.
        assert deleted(writer, admins) == deleted(writer, "nope") == refused
        assert deleted(team.reader, mine[0]) == refused
        assert deleted(writer, mine[0]) == (200, '{"ok":true}')
        assert client.get(f"{live}/at/{mine[0]}/data/runs", headers=bearer(writer)).status_code == 404
        assert pin(writer).status_code == 200  # room for one more
        assert deleted(team.admin, mine[1]) == (200, '{"ok":true}')
        assert mine[1] not in listed(writer) and admins in listed(team.admin)
