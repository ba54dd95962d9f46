"""The upload routes spoken directly over HTTP to a real `trainboard serve` (docs/upload.md): a chunk commits once
however often it is sent, a damaged or misplaced one commits nothing, and hostile parameters get a 4xx naming the
problem, never a 500."""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import google_crc32c
import httpx
import pytest

from tests.cli.logs import write_run
from tests.upload.team import TeamStore, serving

PATH = "train/events.out.tfevents.1.host"


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[httpx.Client, str, bytes]]:
    """A client of a store server with an empty experiment, its id, and a 50-step event file's bytes."""
    store = TeamStore(f"sqlite:{tmp_path / 'team.sqlite'}", (), None)
    experiment_id = store.create_experiment("protocol")
    write_run(tmp_path / "logs" / "train", steps=50)
    data = (tmp_path / "logs" / "train" / "events.out.tfevents.1.host").read_bytes()
    with serving(store, tmp_path) as url, httpx.Client(base_url=url, timeout=30) as client:
        yield client, experiment_id, data


def send(
    client: httpx.Client, experiment_id: str, data: bytes, at: int, file_head: bytes | None = None, **changes: object
) -> httpx.Response:
    """`data` as the file's bytes from offset `at`; the file's first bytes are `file_head` (by default, data's); the
    query's parameters as `changes` say."""
    query: dict[str, object] = {
        "run": "train",
        "path": PATH,
        "offset": at,
        "size": at + len(data),
        "mtime": 1700000000.5,
        "head": base64.urlsafe_b64encode(data[:64] if file_head is None else file_head).decode(),
        "crc32c": google_crc32c.value(data),
    }
    query.update(changes)
    return client.post(f"/experiment/{experiment_id}/upload/file", params=query, content=data)


def loss_steps(client: httpx.Client, experiment_id: str) -> list[int]:
    answer = client.get(f"/experiment/{experiment_id}/data/plugin/scalars/scalars?run=train&tag=loss")
    return [step for _, step, _ in answer.raise_for_status().json()]


def test_a_chunk_sent_twice_commits_once_and_the_second_is_told_where_to_go_on(
    server: tuple[httpx.Client, str, bytes],
) -> None:
    client, experiment_id, data = server
    first = send(client, experiment_id, data, 0)
    assert first.status_code == 200, first.text
    assert first.json()["cursor"]["offset"] == len(data) and first.json()["points"] == 50
    again = send(client, experiment_id, data, 0)
    assert again.status_code == 409
    assert again.json()["expected"] == len(data)
    assert loss_steps(client, experiment_id) == list(range(50))
    files = client.get(f"/experiment/{experiment_id}/upload/files").json()["files"]
    assert files[PATH]["offset"] == len(data)


def test_a_file_sent_in_two_pieces_cut_inside_a_record_commits_every_record_once(
    server: tuple[httpx.Client, str, bytes],
) -> None:
    client, experiment_id, data = server
    cut = len(data) // 2 + 3
    first = send(client, experiment_id, data[:cut], 0, size=len(data)).json()
    committed = first["cursor"]["offset"]
    assert 0 < committed < cut
    rest = send(client, experiment_id, data[committed:], committed, data[:64], size=len(data))
    assert rest.status_code == 200, rest.text
    assert rest.json()["cursor"]["offset"] == len(data)
    assert first["points"] + rest.json()["points"] == 50
    assert loss_steps(client, experiment_id) == list(range(50))


def test_a_damaged_chunk_or_one_at_the_wrong_offset_commits_nothing(server: tuple[httpx.Client, str, bytes]) -> None:
    client, experiment_id, data = server
    damaged = send(client, experiment_id, data, 0, crc32c=google_crc32c.value(data) ^ 1)
    assert damaged.status_code == 400 and "CRC-32C" in damaged.text
    misplaced = send(client, experiment_id, data, 100)
    assert misplaced.status_code == 409 and misplaced.json()["expected"] == 0
    assert client.get(f"/experiment/{experiment_id}/upload/files").json()["files"] == {}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"path": "../outside/events.out.tfevents.1.host"}, "inside the logdir"),
        ({"path": "/etc/events.out.tfevents.1.host"}, "inside the logdir"),
        ({"path": "train/./events.out.tfevents.1.host"}, "inside the logdir"),
        ({"path": "train\\..\\events.out.tfevents.1.host"}, "inside the logdir"),
        ({"path": "train/notes.txt"}, "no event file"),
        ({"run": "../x"}, "inside the logdir"),
        ({"run": "inj\nERROR: Exception in ASGI application FORGED"}, "control character"),
        ({"path": "train/\x1b[31mevents.out.tfevents.1.host"}, "control character"),
        ({"path": "train/\x85events.out.tfevents.1.host"}, "control character"),
        ({"run": "other"}, "does not lie in the directory of run 'other'"),
        ({"run": "train/deeper"}, "does not lie in the directory of run"),
        ({"parts": '[["other/a.tsv", 0]]', "path": "train/projector_config.pbtxt"}, "does not lie in the directory"),
        ({"offset": 2**64}, "too large"),
        ({"offset": -1}, "at least 0"),
        ({"size": "many"}, "integer"),
        ({"mtime": "nan"}, "epoch"),
        ({"mtime": "1e400"}, "epoch"),
        ({"head": "!!!"}, "base64"),
        ({"head": base64.urlsafe_b64encode(bytes(65)).decode()}, "more than 64"),
        ({"place": 7}, "place"),
        ({"parts": "[[1, 2]]"}, "parts"),
        ({"parts": '[["train/b.tsv", 999999]]'}, "parts"),
        ({"parts": "[" * 5000}, "parts"),
    ],
)
def test_hostile_parameters_get_a_400_naming_the_problem(
    server: tuple[httpx.Client, str, bytes], changes: dict[str, object], problem: str
) -> None:
    client, experiment_id, data = server
    answer = send(client, experiment_id, data, 0, **changes)
    assert answer.status_code == 400, answer.text
    assert problem in answer.text
    assert client.get(f"/experiment/{experiment_id}/upload/files").json()["files"] == {}


@pytest.mark.parametrize("body", [b"", b"[]", b"{", b'{"paths": "x"}', b'{"paths": [1]}', b"[" * 10000])
def test_forget_takes_only_a_list_of_paths(server: tuple[httpx.Client, str, bytes], body: bytes) -> None:
    client, experiment_id, _ = server
    answer = client.post(f"/experiment/{experiment_id}/upload/forget", content=body)
    assert answer.status_code == 400, answer.text


def test_an_unknown_experiment_is_404_and_a_huge_declared_body_413(server: tuple[httpx.Client, str, bytes]) -> None:
    client, _, data = server
    assert send(client, "nope", data, 0).status_code == 404
    assert client.get("/experiment/nope/upload/files").status_code == 404
    # Refused by its Content-Length, before any of it is read.
    address = urlsplit(str(client.base_url))
    with socket.create_connection((address.hostname, address.port), timeout=10) as connection:
        connection.sendall(
            b"POST /experiment/nope/upload/file HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 999999999999\r\n\r\n"
        )
        assert connection.recv(100).startswith(b"HTTP/1.1 413")
