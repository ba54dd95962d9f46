"""`trainboard upload` as a real process into a real `trainboard serve` (SQLite, and PostgreSQL with its blobs on a
real S3 server): killed at random moments, the client and the server, and run again, every point and image is stored
exactly once; files that grow, are truncated or replaced end as a local logdir's do; two uploads at once."""

from __future__ import annotations

import signal
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests.cli.process import kill_partway
from tests.commands import in_process_command
from tests.logdirs import image_summary, images, png
from tests.s3server import S3Server
from tests.servers import free_port, trainboard_server
from tests.upload.team import TIMEOUT, WITH_CITUS, TeamStore, finished, serving, started_server, upload
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

IMAGE_EVERY = 50


def write_training_run(directory: Path, steps: range, *, name: str = "events.out.tfevents.1.host") -> Path:
    """An event file with `loss` and `weights` scalars and a 2,000-value `activations` tensor at every step, and an
    image every IMAGE_EVERY steps (each image different)."""
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    with path.open("ab") as stream:
        for step in steps:
            event = Event(wall_time=1.0 + step, step=step)
            event.summary.value.add(tag="loss", simple_value=1.0 / (1 + step))
            event.summary.value.add(tag="weights", simple_value=float(step))
            tensor = event.summary.value.add(tag="activations").tensor
            tensor.dtype = 2
            tensor.tensor_shape.dim.add(size=2000)
            tensor.tensor_content = (np.arange(2000, dtype="<f8") + step).tobytes()
            event.summary.value[-1].metadata.plugin_data.plugin_name = "custom"
            write_record(stream, event.SerializeToString())
            if step % IMAGE_EVERY == 0:
                picture = Event(wall_time=1.0 + step, step=step)
                picture.summary.ParseFromString(
                    image_summary("samples", [png(images(step, 1)[0])], 8, 6).SerializeToString()
                )
                write_record(stream, picture.SerializeToString())
    return path


def steps_of(client: httpx.Client, experiment_id: str, run: str) -> list[int]:
    answer = client.get(f"/experiment/{experiment_id}/data/plugin/scalars/scalars", params={"run": run, "tag": "loss"})
    return [step for _, step, _ in answer.raise_for_status().json()]


def image_steps(client: httpx.Client, experiment_id: str, run: str) -> list[int]:
    answer = client.get(
        f"/experiment/{experiment_id}/data/plugin/images/images", params={"run": run, "tag": "samples", "sample": 0}
    )
    return [entry["step"] for entry in answer.raise_for_status().json()]


def committed(client: httpx.Client, experiment_id: str) -> int:
    files = client.get(f"/experiment/{experiment_id}/upload/files").raise_for_status().json()["files"]
    return sum(cursor["offset"] for cursor in files.values())


@pytest.mark.parametrize("team_store", WITH_CITUS, indirect=True)
def test_an_upload_killed_at_random_moments_and_run_again_stores_every_point_and_image_once(
    team_store: TeamStore, tmp_path: Path
) -> None:
    steps = 6000
    path = write_training_run(tmp_path / "logs" / "train", range(steps))
    size = path.stat().st_size
    experiment_id = team_store.create_experiment("killed")
    with serving(team_store, tmp_path) as url, httpx.Client(base_url=url, timeout=60) as client:
        kills = 0
        for _ in range(3):
            process = upload(url, "killed", tmp_path / "logs")
            kills += kill_partway(process, lambda: 0 < committed(client, experiment_id) < size)
            process.communicate()
        assert kills >= 1, "every upload finished before it could be killed"
        assert "upload done" in finished(upload(url, "killed", tmp_path / "logs"))
        assert committed(client, experiment_id) == size
        assert steps_of(client, experiment_id, "train") == list(range(steps))
        assert image_steps(client, experiment_id, "train") == list(range(0, steps, IMAGE_EVERY))
        # Once more: nothing new to send, nothing changes.
        finished(upload(url, "killed", tmp_path / "logs"))
        assert steps_of(client, experiment_id, "train") == list(range(steps))


@pytest.mark.parametrize("team_store", WITH_CITUS, indirect=True)
def test_a_server_killed_during_an_upload_and_started_again_loses_and_doubles_nothing(
    team_store: TeamStore, tmp_path: Path
) -> None:
    steps = 6000
    path = write_training_run(tmp_path / "logs" / "train", range(steps))
    size = path.stat().st_size
    experiment_id = team_store.create_experiment("server-killed")
    port = free_port()
    with started_server(team_store, tmp_path, port) as (url, server), httpx.Client(base_url=url, timeout=60) as client:
        uploading = upload(url, "server-killed", tmp_path / "logs")
        assert kill_partway(server, lambda: 0 < committed(client, experiment_id) < size)
    # The client retries until a server answers on the port again.
    with started_server(team_store, tmp_path, port) as (url, _), httpx.Client(base_url=url, timeout=60) as client:
        assert "upload done" in finished(uploading)
        assert committed(client, experiment_id) == size
        assert steps_of(client, experiment_id, "train") == list(range(steps))
        assert image_steps(client, experiment_id, "train") == list(range(0, steps, IMAGE_EVERY))


@pytest.mark.postgres
def test_two_uploads_into_two_experiments_at_once(postgres_url: str, tmp_path: Path) -> None:
    store = TeamStore(postgres_url, (), None)
    for name, steps in (("a", 3000), ("b", 2000)):
        write_training_run(tmp_path / name / "train", range(steps))
        write_training_run(tmp_path / name / "eval", range(0, steps, 10))
    ids = {name: store.create_experiment(name) for name in ("a", "b")}
    with serving(store, tmp_path) as url, httpx.Client(base_url=url, timeout=60) as client:
        both = [upload(url, name, tmp_path / name) for name in ("a", "b")]
        for process in both:
            finished(process)
        for name, steps in (("a", 3000), ("b", 2000)):
            assert steps_of(client, ids[name], "train") == list(range(steps))
            assert steps_of(client, ids[name], "eval") == list(range(0, steps, 10))


def test_growing_truncated_and_replaced_files_end_as_a_local_logdirs(team_store: TeamStore, tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_training_run(logdir / "grows", range(100))
    truncated = write_training_run(logdir / "truncated", range(300))
    replaced = write_training_run(logdir / "replaced", range(200))
    experiment_id = team_store.create_experiment("changes")
    with serving(team_store, tmp_path) as url, httpx.Client(base_url=url, timeout=60) as client:
        finished(upload(url, "changes", logdir))
        write_training_run(logdir / "grows", range(100, 250))
        truncated.write_bytes(truncated.read_bytes()[: truncated.stat().st_size // 3])
        replaced.unlink()
        write_training_run(logdir / "replaced", range(1000, 1050))
        finished(upload(url, "changes", logdir))
        with (
            trainboard_server(logdir, tmp_path / "local") as local,
            httpx.Client(base_url=local.url, timeout=60) as local_client,
        ):
            for run in ("grows", "truncated", "replaced"):
                expected = local_client.get("/data/plugin/scalars/scalars", params={"run": run, "tag": "loss"})
                uploaded = client.get(
                    f"/experiment/{experiment_id}/data/plugin/scalars/scalars", params={"run": run, "tag": "loss"}
                )
                assert uploaded.json() == expected.raise_for_status().json(), run
                assert image_steps(client, experiment_id, run) == [
                    entry["step"]
                    for entry in local_client.get(
                        "/data/plugin/images/images", params={"run": run, "tag": "samples", "sample": 0}
                    ).json()
                ]
        assert steps_of(client, experiment_id, "replaced") == list(range(1000, 1050))


def test_forget_deleted_removes_a_deleted_runs_points_and_only_then(team_store: TeamStore, tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_training_run(logdir / "kept", range(50))
    gone = write_training_run(logdir / "gone", range(50))
    with serving(team_store, tmp_path) as url, httpx.Client(base_url=url, timeout=60) as client:
        # A server without tokens: the upload creates the experiment.
        finished(upload(url, "deleted", logdir))
        (experiment_id,) = [e["id"] for e in client.get("/data/experiments").json() if e["name"] == "deleted"]
        gone.unlink()
        finished(upload(url, "deleted", logdir))
        runs = client.get(f"/experiment/{experiment_id}/data/runs").json()
        assert sorted(runs) == ["gone", "kept"]
        finished(upload(url, "deleted", logdir, "--forget_deleted"))
        assert client.get(f"/experiment/{experiment_id}/data/runs").json() == ["kept"]


def test_watch_streams_what_training_adds_and_stops_cleanly_on_interrupt(team_store: TeamStore, tmp_path: Path) -> None:
    logdir = tmp_path / "logs"
    write_training_run(logdir / "train", range(100))
    experiment_id = team_store.create_experiment("watched")
    with serving(team_store, tmp_path) as url, httpx.Client(base_url=url, timeout=60) as client:
        watching = upload(url, "watched", logdir, "--watch", "--reload_interval=0.2")
        try:
            deadline = time.monotonic() + TIMEOUT
            while steps_of_or_none(client, experiment_id) != list(range(100)) and time.monotonic() < deadline:
                time.sleep(0.1)
            write_training_run(logdir / "train", range(100, 180))
            while steps_of_or_none(client, experiment_id) != list(range(180)) and time.monotonic() < deadline:
                time.sleep(0.1)
            assert steps_of(client, experiment_id, "train") == list(range(180))
        finally:
            watching.send_signal(signal.SIGINT)
        _, errors = watching.communicate(timeout=TIMEOUT)
        assert watching.returncode == 0, errors.decode(errors="replace")
        assert "upload done" in errors.decode()


def steps_of_or_none(client: httpx.Client, experiment_id: str) -> list[int] | None:
    try:
        return steps_of(client, experiment_id, "train")
    except httpx.HTTPStatusError:
        return None


@pytest.mark.postgres
def test_two_uploads_of_one_logdir_through_two_replicas_at_once_store_every_point_once(
    postgres_url: str, s3: S3Server, tmp_path: Path
) -> None:
    store = TeamStore(postgres_url, (f"--blobs=s3://{s3.bucket}/{tmp_path.name}",), s3.environment(tmp_path))
    steps = 4000
    path = write_training_run(tmp_path / "logs" / "train", range(steps))
    experiment_id = store.create_experiment("twice")
    with (
        serving(store, tmp_path / "one") as first,
        serving(store, tmp_path / "two") as second,
        httpx.Client(base_url=second, timeout=60) as client,
    ):
        both = [upload(url, "twice", tmp_path / "logs") for url in (first, second)]
        for process in both:
            finished(process)
        assert committed(client, experiment_id) == path.stat().st_size
        assert steps_of(client, experiment_id, "train") == list(range(steps))
        assert image_steps(client, experiment_id, "train") == list(range(0, steps, IMAGE_EVERY))


def test_with_tokens_an_upload_creates_the_experiment_its_user_owns_and_needs_the_write_role(
    team_store: TeamStore, tmp_path: Path
) -> None:
    logdir = tmp_path / "logs"
    write_training_run(logdir / "train", range(120))
    # Users and tokens made in the test process: what the commands store matters here, not their processes.
    for user in ("ada", "bob", "cy"):
        in_process_command("users", "add", user, f"--db={team_store.db}")
    ada, bob, cy = (
        in_process_command("tokens", "create", f"--db={team_store.db}", f"--user={name}").strip()
        for name in ("ada", "bob", "cy")
    )
    with serving(team_store, tmp_path, tokens=True) as url, httpx.Client(base_url=url, timeout=60) as client:
        refused = upload(url, "mnist", logdir)
        assert refused.wait(TIMEOUT) == 1 and b"valid token" in refused.communicate()[1]
        finished(upload(url, "mnist", logdir, token=ada))
        headers = {"Authorization": f"Bearer {ada}"}
        (listed,) = client.get("/data/experiments", headers=headers).json()
        assert (listed["name"], listed["role"], listed["owned"]) == ("mnist", "admin", True)
        answer = client.get(
            f"/experiment/{listed['id']}/data/plugin/scalars/scalars?run=train&tag=loss", headers=headers
        )
        assert [step for _, step, _ in answer.json()] == list(range(120))
        # Names are unique per owner: bob's upload of "mnist" makes an experiment of his own.
        finished(upload(url, "mnist", logdir, token=bob))
        (bobs,) = client.get("/data/experiments", headers={"Authorization": f"Bearer {bob}"}).json()
        assert (bobs["name"], bobs["owned"], bobs["runCount"]) == ("mnist", True, 1) and bobs["id"] != listed["id"]
        # Shared with bob as a reader: no upload into it, by its id; as a writer: his upload adds nothing twice, and
        # the name still finds his own first.
        share = client.post(
            f"/experiment/{listed['id']}/admin/share", headers=headers, json={"user": "bob", "role": "read"}
        )
        assert share.status_code == 200, share.text
        reader = upload(url, listed["id"], logdir, token=bob)
        assert reader.wait(TIMEOUT) == 1 and b"not found" in reader.communicate()[1]
        client.post(f"/experiment/{listed['id']}/admin/share", headers=headers, json={"user": "bob", "role": "write"})
        write_training_run(logdir / "train", range(120, 130))
        finished(upload(url, listed["id"], logdir, token=bob))
        finished(upload(url, "mnist", logdir, token=bob))
        answer = client.get(
            f"/experiment/{listed['id']}/data/plugin/scalars/scalars?run=train&tag=loss", headers=headers
        )
        assert [step for _, step, _ in answer.json()] == list(range(130))
        # Cy may write both and owns neither: the name is refused with both ids, and nothing is created.
        for owner, experiment_id in ((ada, listed["id"]), (bob, bobs["id"])):
            shared = client.post(
                f"/experiment/{experiment_id}/admin/share",
                headers={"Authorization": f"Bearer {owner}"},
                json={"user": "cy", "role": "write"},
            )
            assert shared.status_code == 200, shared.text
        ambiguous = upload(url, "mnist", logdir, token=cy)
        assert ambiguous.wait(TIMEOUT) == 1
        ids = ", ".join(sorted([listed["id"], bobs["id"]]))
        assert f"2 experiments are named 'mnist', none of them yours: give one's id instead ({ids})" in (
            ambiguous.communicate()[1].decode()
        )
        assert not any(
            e["owned"] for e in client.get("/data/experiments", headers={"Authorization": f"Bearer {cy}"}).json()
        )
