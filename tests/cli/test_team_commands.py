"""`trainboard ingest` and `trainboard serve` as real processes on one store: several ingests at once, an ingest
killed in the middle of a file and run again, two serve replicas answering alike."""

from __future__ import annotations

import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import numpy as np
import pytest

from tests.cli.logs import write_run
from tests.cli.process import command, kill_partway, trainboard
from tests.servers import store_serving
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.tensor_pb2 import TensorProto
from trainboard.reader.records import READ_LIMIT, write_record
from trainboard.store.opening import open_store
from trainboard.store.store import Store

TIMEOUT = 120.0


@pytest.fixture(
    params=[
        "sqlite",
        pytest.param("postgres", marks=pytest.mark.postgres),
        pytest.param("citus", marks=[pytest.mark.citus, pytest.mark.xdist_group("citus")]),
    ]
)
def store_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A fresh database of each backend, as `--db` takes it."""
    if request.param in ("postgres", "citus"):
        url: str = request.getfixturevalue(f"{request.param}_url")
        return url
    return f"sqlite:{tmp_path / 'team.sqlite'}"


def ingest(store_url: str, experiment: str, logdir: Path, *flags: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        command("ingest", f"--db={store_url}", f"--experiment={experiment}", f"--logdir={logdir}", *flags),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )


def finished(process: subprocess.Popen[bytes]) -> str:
    _, errors = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, errors.decode(errors="replace")
    return errors.decode(errors="replace")


@contextmanager
def serve(store_url: str, scratch: Path) -> Iterator[httpx.Client]:
    with store_serving(store_url, scratch, "--no_auth") as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client


def experiment_ids(client: httpx.Client) -> dict[str, str]:
    return {e["name"]: e["id"] for e in client.get("/data/experiments").raise_for_status().json()}


def test_two_ingests_fill_one_store_and_two_replicas_serve_it_alike(store_url: str, tmp_path: Path) -> None:
    for name, steps in (("a", 300), ("b", 500)):
        write_run(tmp_path / name / "train", steps=steps)
        write_run(tmp_path / name / "eval", steps=steps // 10)
    both = [ingest(store_url, name, tmp_path / name) for name in ("a", "b")]
    for process in both:
        assert "ingest done" in finished(process)
    with serve(store_url, tmp_path / "one") as first, serve(store_url, tmp_path / "two") as second:
        ids = experiment_ids(first)
        assert ids == experiment_ids(second) and set(ids) == {"a", "b"}
        for name, steps in (("a", 300), ("b", 500)):
            prefix = f"/experiment/{ids[name]}"
            answers = [
                [
                    client.get(f"{prefix}/data/runs").raise_for_status().json(),
                    client.get(f"{prefix}/data/plugin/scalars/tags").raise_for_status().json(),
                    client.get(f"{prefix}/data/plugin/scalars/scalars?run=train&tag=loss").raise_for_status().json(),
                    client.get(f"{prefix}/api/getCategory").raise_for_status().json(),
                ]
                for client in (first, second)
            ]
            assert answers[0] == answers[1]
            runs, _, points, _ = answers[0]
            assert sorted(runs) == ["eval", "train"]
            assert [step for _, step, _ in points] == list(range(steps))
        # Served at /experiment/<id>/ only: a store server has no experiment at /.
        assert first.get("/data/runs").status_code == 404
        assert first.get("/experiment/nope/data/runs").status_code == 404


def write_big_file(run: Path, records: int) -> None:
    """One event file larger than one read (READ_LIMIT), of tensors at steps 0..records-1."""
    run.mkdir(parents=True)
    values = np.arange(1024, dtype="<f8")
    with (run / "events.out.tfevents.1.host").open("wb") as stream:
        for step in range(records):
            tensor = TensorProto(dtype=2, tensor_content=(values + step).tobytes())
            tensor.tensor_shape.dim.add(size=1024)
            event = Event(wall_time=1.0 + step, step=step)
            value = event.summary.value.add(tag="weights", tensor=tensor)
            value.metadata.plugin_data.plugin_name = "custom"
            write_record(stream, event.SerializeToString())


def test_an_ingest_killed_in_the_middle_of_a_file_and_run_again_keeps_every_point_once(
    store_url: str, tmp_path: Path
) -> None:
    records = 3 * READ_LIMIT // 8300  # about three reads' worth
    write_big_file(tmp_path / "logs" / "run", records)
    size = (tmp_path / "logs" / "run" / "events.out.tfevents.1.host").stat().st_size
    store = open_store(store_url)
    try:
        experiment_id = store.create_experiment("big").id
        kills = 0
        for _ in range(3):
            process = ingest(store_url, "big", tmp_path / "logs")
            kills += kill_partway(process, lambda: 0 < _offset(store, experiment_id) < size)
            process.communicate()
        assert kills >= 1, "every ingest finished before it could be killed"
        finished(ingest(store_url, "big", tmp_path / "logs"))
        assert _offset(store, experiment_id) == size
        (row,) = store.series(experiment_id)
        steps = [point.step for point in store.tensors(experiment_id, row.id)]
        assert steps == list(range(records)) and row.point_count == records
    finally:
        store.close()


def _offset(store: Store, experiment_id: str) -> int:
    cursors = store.file_cursors(experiment_id)
    return max((cursor.offset for cursor in cursors.values()), default=0)


def test_a_store_that_cannot_be_opened_is_one_line_and_status_1(tmp_path: Path) -> None:
    (tmp_path / "not-a-store").write_bytes(b"garbage that is no SQLite database" * 100)
    write_run(tmp_path / "logs" / "run")
    cases = [
        ("serve", f"--db={tmp_path / 'not-a-store'}", "--port=0"),
        ("ingest", f"--db=sqlite:{tmp_path / 'not-a-store'}", "--experiment=x", f"--logdir={tmp_path / 'logs'}"),
        ("serve", "--db=postgresql://nobody@127.0.0.1:1/none", "--port=0"),
        ("serve", "--db=mysql://somewhere/db", "--port=0"),
        ("serve", f"--db={tmp_path / 'no' / 'such' / 'dir' / 'x.db'}", "--blobs=ftp://x", "--port=0"),
    ]
    for flags in cases:
        done = subprocess.run(command(*flags), capture_output=True, timeout=TIMEOUT, check=False)
        errors = done.stderr.decode()
        assert done.returncode == 1, (flags, errors)
        assert "Traceback" not in errors and errors.startswith("trainboard: error: "), (flags, errors)
        assert len(errors.strip().splitlines()) == 1, errors


def test_one_writer_per_experiment(store_url: str, tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "train", steps=100)
    watching = ingest(store_url, "one", tmp_path / "logs", "--watch", "--reload_interval=0.2")
    try:
        store = open_store(store_url)
        try:
            deadline = time.monotonic() + TIMEOUT
            while not store.experiments() or not store.runs(store.experiments()[0].id):
                assert time.monotonic() < deadline and watching.poll() is None
                time.sleep(0.05)
        finally:
            store.close()
        second = ingest(store_url, "one", tmp_path / "logs")
        _, errors = second.communicate(timeout=TIMEOUT)
        assert second.returncode == 1 and "one writer per experiment" in errors.decode(), errors
        other = ingest(store_url, "another", tmp_path / "logs")  # another experiment has a writer of its own
        assert "ingest done" in finished(other)
    finally:
        watching.kill()
        watching.communicate()
    with serve(store_url, tmp_path / "serve") as client:
        for experiment_id in experiment_ids(client).values():
            points = client.get(f"/experiment/{experiment_id}/data/plugin/scalars/scalars?run=train&tag=loss")
            assert [step for _, step, _ in points.raise_for_status().json()] == list(range(100))


def test_two_servers_on_one_logdir_and_store_keep_every_point_once(tmp_path: Path) -> None:
    write_run(tmp_path / "logs" / "train", steps=100)
    flags = (f"--logdir={tmp_path / 'logs'}", "--port=0", f"--db={tmp_path / 'one.sqlite'}")
    with trainboard(tmp_path / "first", *flags) as first, trainboard(tmp_path / "second", *flags) as second:
        assert "another process is ingesting" in second.errors()
        write_run(tmp_path / "logs" / "eval", steps=7)
        for server in (first, second):
            with httpx.Client(base_url=server.url, timeout=30) as client:
                deadline = time.monotonic() + TIMEOUT
                while "eval" not in client.get("data/runs").json():  # the first writes, both serve it
                    assert time.monotonic() < deadline
                    time.sleep(0.2)
                points = client.get("data/plugin/scalars/scalars?run=train&tag=loss").raise_for_status().json()
                assert [step for _, step, _ in points] == list(range(100))
    with trainboard(tmp_path / "again", *flags) as again, httpx.Client(base_url=again.url) as client:
        points = client.get("data/plugin/scalars/scalars?run=train&tag=loss").raise_for_status().json()
        assert [step for _, step, _ in points] == list(range(100))


def test_a_bad_role_is_a_usage_error_before_the_store_opens(tmp_path: Path) -> None:
    store = tmp_path / "store.sqlite"
    flags = (f"--db={store}", "--user=ada", "--experiment=runs", "--role=boss")
    done = subprocess.run(command("tokens", "create", *flags), capture_output=True, text=True, timeout=TIMEOUT)
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines() == [
        "trainboard: error: argument --role: unknown role 'boss': expected one of read, write, admin"
    ]
    assert not store.exists()
