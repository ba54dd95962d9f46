"""The upload wire format, written once (`trainboard.ingest.upload_protocol`): what the client writes the server reads
back as it was sent; a request as today's clients send it stays byte for byte what the client writes and what the
server reads; the OpenAPI document names every parameter the client sends, and a value past the bounds it documents
is refused by the real app with a 400 naming the parameter."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from starlette.datastructures import QueryParams
from starlette.testclient import TestClient

from tests.cli.logs import write_run
from trainboard.http.app import create_app
from trainboard.http.context import Experiments
from trainboard.ingest.progress import IngestProgress
from trainboard.ingest.upload import Uploads
from trainboard.ingest.upload_protocol import CHUNK_PARAMETERS, MAX_MTIME, Chunk, chunk_request, read_chunk
from trainboard.normaliser.projector import AT_ROOT, IN_RUN
from trainboard.provider.provider import DataProvider
from trainboard.reader.logdir import FileStat
from trainboard.reader.received import Spool
from trainboard.reader.tail import HEAD_SIZE
from trainboard.settings import Settings
from trainboard.store.opening import open_store

FILE_ROUTE = "/experiment/{experiment_id}/upload/file"


def sent(chunk: Chunk) -> tuple[str, bytes]:
    """The query string and body that `trainboard upload` puts on the wire for `chunk`."""
    query, body = chunk_request(chunk)
    return httpx.Request("POST", "http://board/upload/file", params=query, content=body).url.query.decode(), body


def received(query: str, body: bytes) -> Chunk:
    """The chunk the server reads from a query string, parsed as Starlette parses it, with the bytes of its data."""
    with Spool.of(body) as spool:
        chunk = read_chunk(QueryParams(query), spool)
        return replace(chunk, data=chunk.data[:])


# Control characters are refused (tests/upload/test_upload_names.py).
names = st.text(
    st.characters(codec="utf-8", exclude_categories=["Cc"], exclude_characters="/\\"), min_size=1, max_size=12
)
relative_paths = st.lists(names.filter(lambda name: name not in (".", "..")), min_size=1, max_size=4).map("/".join)


def below(run: str, paths: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    """Paths in the run's directory, as every file of a run lies."""
    return paths if run == "." else paths.map(lambda path: f"{run}/{path}")


chunks = st.one_of(st.just("."), relative_paths).flatmap(
    lambda run: st.builds(
        Chunk,
        run=st.just(run),
        path=st.one_of(
            below(run, relative_paths).map(lambda path: path + "/events.out.tfevents.1.host"),
            below(run, relative_paths).map(lambda path: path + "/projector_config.pbtxt"),
            st.just(f"{run}/events.out.tfevents.1.host".removeprefix("./")),
        ),
        offset=st.integers(0, 2**63 - 1),
        stat=st.builds(FileStat, size=st.integers(0, 2**63 - 1), mtime=st.floats(0, MAX_MTIME, exclude_max=True)),
        head=st.binary(max_size=HEAD_SIZE),
        data=st.binary(max_size=300),
        position=st.integers(0, 10_000),
        place=st.integers(IN_RUN, AT_ROOT),
        named=st.dictionaries(below(run, relative_paths), st.binary(max_size=50), max_size=4),
    )
)


@given(chunks)
@settings(max_examples=300, deadline=None)
def test_what_the_client_writes_the_server_reads_back_as_it_was(chunk: Chunk) -> None:
    assert received(*sent(chunk)) == chunk


# Requests as the client wrote them before the wire format was written once (captured from it).
EVENT_QUERY = (
    "run=run%2Fa&path=run%2Fa%2Fevents.out.tfevents.1.h&offset=10&size=100&mtime=1700000000.1234567"
    "&head=AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_wD_AP8A_w%3D%3D"
    "&crc32c=3381945770&position=3&place=0"
)
EVENT_CHUNK = Chunk(
    "run/a",
    "run/a/events.out.tfevents.1.h",
    10,
    FileStat(100, 1700000000.1234567),
    b"\x00\xff" * 32,
    b"hello world",
    3,
    0,
)
CONFIG_QUERY = (
    "run=.&path=plugins%2Fprojector%2Fprojector_config.pbtxt&offset=0&size=11&mtime=0.1&head=Y2Zn&crc32c=566909844"
    "&position=0&place=1&parts=%5B%5B%22plugins%2Fprojector%2Fa.tsv%22%2C4%5D%2C%5B%22b%2Fmeta.tsv%22%2C0%5D%5D"
)
CONFIG_CHUNK = Chunk(
    ".",
    "plugins/projector/projector_config.pbtxt",
    0,
    FileStat(11, 0.1),
    b"cfg",
    b"config text",
    0,
    1,
    {"plugins/projector/a.tsv": b"x\ty\n", "b/meta.tsv": b""},
)


@pytest.mark.parametrize(
    ("query", "body", "chunk"),
    [
        (EVENT_QUERY, b"hello world", EVENT_CHUNK),
        (CONFIG_QUERY, b"config textx\ty\n", CONFIG_CHUNK),
    ],
)
def test_a_request_as_todays_clients_send_it_is_still_written_and_read_byte_for_byte(
    query: str, body: bytes, chunk: Chunk
) -> None:
    assert sent(chunk) == (query, body)
    assert received(query, body) == chunk


@pytest.fixture
def app_client(tmp_path: Path) -> Iterator[tuple[TestClient, str]]:
    """The app `trainboard serve --no_auth` runs, in this process on a SQLite store with one experiment, and its id."""
    store = open_store(f"sqlite:{tmp_path / 'store.sqlite'}")
    experiment_id = store.create_experiment("wire").id
    experiments = Experiments(DataProvider(store), store, progress={}, elsewhere=IngestProgress.finished())
    app = create_app(experiments, Settings(), uploads=Uploads(store))
    try:
        with TestClient(app, base_url="http://127.0.0.1") as client:
            yield client, experiment_id
    finally:
        store.close()


def documented(client: TestClient) -> list[dict[str, Any]]:
    operation = client.get("/openapi.json").json()["paths"][FILE_ROUTE]["post"]
    return [parameter for parameter in operation["parameters"] if parameter["in"] == "query"]


def test_the_document_names_every_parameter_the_client_sends_and_which_it_must(
    app_client: tuple[TestClient, str],
) -> None:
    client, _ = app_client
    parameters = documented(client)
    assert [p["name"] for p in parameters] == list(chunk_request(CONFIG_CHUNK)[0])
    assert {p["name"] for p in parameters if p["required"]} == set(chunk_request(EVENT_CHUNK)[0]) - {
        "position",
        "place",
    }
    assert [p.name for p in CHUNK_PARAMETERS] == [p["name"] for p in parameters]


def beyond(schema: dict[str, Any]) -> list[str]:
    """Values just past the bounds a parameter's schema states."""
    found = []
    if "maxLength" in schema:
        found.append("a" * (schema["maxLength"] + 1))
    if "minimum" in schema:
        found.append(str(schema["minimum"] - 1))
    if "maximum" in schema:
        found.append(str(schema["maximum"] + 1))
    if "exclusiveMaximum" in schema:
        found.append(repr(schema["exclusiveMaximum"]))
    return found


def test_a_value_past_a_documented_bound_is_refused_naming_its_parameter(
    app_client: tuple[TestClient, str], tmp_path: Path
) -> None:
    client, experiment_id = app_client
    write_run(tmp_path / "logs" / "train", steps=5)
    data = (tmp_path / "logs" / "train" / "events.out.tfevents.1.host").read_bytes()
    chunk = Chunk("train", "train/events.out.tfevents.1.host", 0, FileStat(len(data), 1.5), data[:HEAD_SIZE], data)
    query, body = chunk_request(chunk)
    url = f"/experiment/{experiment_id}/upload/file"
    checked = 0
    for parameter in documented(client):
        for value in beyond(parameter.get("schema", {})):
            answer = client.post(url, params={**query, parameter["name"]: value}, content=body)
            assert answer.status_code == 400, (parameter["name"], value, answer.text)
            assert repr(parameter["name"]) in answer.text
            checked += 1
    assert checked >= 12
    # Within the bounds, the same chunk commits.
    answer = client.post(url, params=query, content=body)
    assert answer.status_code == 200, answer.text
    assert answer.json()["points"] == 5
