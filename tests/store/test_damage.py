"""A damaged SQLite store never serves a wrong number: garbage written into pages all over a stopped store built from a
real logdir, then the real app (`trainboard --logdir`'s) started on it answers every route as a cold load of the logdir
does, or with a clear 503 while it rebuilds the damaged part from the logdir, and says so in its log."""

from __future__ import annotations

import contextlib
import shutil
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import httpx
import psycopg
import pytest

from tests.logdirs import write_tensorboard_run, write_torch_run
from tests.servers import trainboard_in_process
from tests.stores import TestStore
from trainboard.ingest.loader import Loader
from trainboard.reader.logdir import LogDir
from trainboard.store.errors import StoreDamaged
from trainboard.store.opening import open_store, redacted
from trainboard.store.sqlite.database import SqliteDatabase
from trainboard.store.store import Store

GARBAGE = bytes(range(7, 256, 3)) * 3
# Pages of the store to damage, spread evenly over the file: each costs a start of trainboard's app.
MAX_PAGES = 20
SETTLE_SECONDS = 30


@pytest.fixture(scope="module")
def logdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("damage") / "logs"
    write_tensorboard_run(root)
    write_torch_run(root / "train")
    return root


@pytest.fixture(scope="module")
def clean_store(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The logdir ingested into a store, which is then closed (its write-ahead log folded in)."""
    path = tmp_path_factory.mktemp("clean") / "store.sqlite"
    store = TestStore(path)
    store.loader(LogDir(str(logdir))).poll()
    store.close()
    assert not Path(f"{path}-wal").exists()
    return path


@pytest.fixture(scope="module")
def cold(logdir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Every route's answer from a cold load of the logdir into a new store."""
    with serving(logdir, tmp_path_factory.mktemp("cold")) as (client, _):
        found = answers(client)
    assert all(status == 200 for status, _ in found.values()), found
    return found


@contextmanager
def serving(logdir: Path, scratch: Path) -> Iterator[tuple[httpx.Client, Path]]:
    """The app of `trainboard --logdir LOGDIR --db SCRATCH/store.sqlite` (served in this process: a start of its own
    for each damaged page would cost a second each), its first ingest pass done; a client, and its log."""
    with trainboard_in_process(logdir, scratch) as server, httpx.Client(base_url=server.url, timeout=30) as client:
        yield client, server.log


def wait_for_passes(client: httpx.Client, passes: int) -> None:
    deadline = time.monotonic() + SETTLE_SECONDS
    while ingest_passes(client) < passes:
        assert time.monotonic() < deadline, "ingest did not end its pass"
        time.sleep(0.02)


def ingest_passes(client: httpx.Client) -> int:
    """The ingest passes ended; while the store is being built again the answer may be its 503, asked again."""
    deadline = time.monotonic() + SETTLE_SECONDS
    while True:
        response = client.get("/data/ingest_progress")
        if response.status_code == 200:
            return int(response.json()["passes"])
        assert response.status_code == 503 and "is damaged" in response.text, (response.status_code, response.text)
        assert time.monotonic() < deadline, "the store was not built again"
        time.sleep(0.02)


def answers(client: httpx.Client) -> dict[str, tuple[int, Any]]:
    """Runs, tags and every series of scalars, histograms and images, and every image: (status, body) by URL, up to
    the first that is not a 200."""
    found: dict[str, tuple[int, Any]] = {}

    def get(url: str) -> Any:
        response = client.get(url)
        image = "individualImage" in url
        found[url] = (response.status_code, comparable(url, response) if response.status_code == 200 else response.text)
        if response.status_code != 200:
            raise Refused
        return None if image else response.json()

    with contextlib.suppress(Refused):
        get("/data/runs")
        for plugin in ("scalars", "histograms", "images"):
            for run, tags in get(f"/data/plugin/{plugin}/tags").items():
                for tag in tags:
                    for point in get(f"/data/plugin/{plugin}/{plugin}?{urlencode({'run': run, 'tag': tag})}"):
                        if plugin == "images":
                            get(f"/data/plugin/images/individualImage?{point['query']}")
    return found


def comparable(url: str, response: httpx.Response) -> Any:
    """The answer as a value to compare: JSON objects compare whatever their key order, and the runs whatever the
    order the ingest workers of a load committed them in (tests of ingest order check that)."""
    if "individualImage" in url:
        return response.content
    value = response.json()
    return sorted(value) if url == "/data/runs" else value


class Refused(Exception):
    """An answer other than a 200."""


def page_size(store: Path) -> int:
    """The store's page size, from its header (big-endian at offset 16; 1 means 65536)."""
    with store.open("rb") as file:
        file.seek(16)
        size = int.from_bytes(file.read(2), "big")
    return 65536 if size == 1 else size


def damaged_pages(store: Path) -> dict[int, str]:
    """Up to MAX_PAGES of the pages that hold rows (0-based), spread over the file, with the table or index each is
    of: garbage in an empty table's page is read by nothing, and the schema grows such tables."""
    with contextlib.closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
        holding = sorted(
            (pageno - 1, name) for pageno, name in db.execute("SELECT pageno, name FROM dbstat WHERE ncell > 0")
        )
    return dict(holding[:: max(1, len(holding) // MAX_PAGES)])


def test_a_damaged_store_serves_the_logdir_or_a_clear_error_and_rebuilds_itself(
    logdir: Path, clean_store: Path, cold: dict[str, Any], tmp_path: Path
) -> None:
    pages, page = damaged_pages(clean_store), page_size(clean_store)
    assert len(pages) > 20
    outcomes: dict[int, str] = {}
    for page_number, holder in pages.items():
        db = tmp_path / f"page{page_number}" / "store.sqlite"
        db.parent.mkdir()
        shutil.copy(clean_store, db)
        with db.open("r+b") as file:
            # Near the end of the page, where SQLite keeps the cells (page 0's header: tests/cli/test_store_errors.py).
            file.seek(page_number * page + page - 2 * len(GARBAGE))
            file.write(GARBAGE)
        outcomes[page_number], log = settle(logdir, db.parent, cold, holder)
        if outcomes[page_number] == "rebuilt":
            assert "damaged" in log and "again" in log, log
    # Garbage in a page that nothing reads is harmless; some of it must have been noticed and rebuilt.
    assert list(outcomes.values()).count("rebuilt") >= 2, outcomes


def settle(logdir: Path, scratch: Path, cold: dict[str, Any], holder: str) -> tuple[str, str]:
    """Serve the damaged store in `scratch` until every route answers as the cold load: every answer on the way is
    the cold one or a 503 until damage is found (then the store built again answers as it ingests); "rebuilt" when it
    found damage (at open or on the way), else "unharmed"; and its log."""
    db = scratch / "store.sqlite"
    with serving(logdir, scratch) as (client, log):
        deadline = time.monotonic() + SETTLE_SECONDS
        while True:
            passes = ingest_passes(client)
            found = answers(client)
            rebuilding = "damaged" in log.read_text(errors="replace")
            for url, (status, body) in found.items():
                # Damage found while serving (a write to a damaged index) has the store built again from the logdir,
                # answering as it ingests, as a first load does: its answers are whole once its pass ends.
                if status == 200:
                    assert rebuilding or (status, body) == cold[url], (
                        f"{db} (a page of {holder}): {url} served a wrong answer"
                    )
                else:
                    assert status == 503 and "is damaged" in body, (
                        f"{db} (a page of {holder}): {url} answered {status}: {body}"
                    )
            if found.keys() == cold.keys() and all(status == 200 for status, _ in found.values()):
                printed = log.read_text(errors="replace")
                return ("rebuilt" if "damaged" in printed else "unharmed"), printed
            assert time.monotonic() < deadline, f"{db}: not rebuilt in {SETTLE_SECONDS} s"
            wait_for_passes(client, passes + 1)


def ingested(db: str, logdir: Path, blobs: str | None = None) -> tuple[Store, str]:
    store = open_store(db, blobs)
    experiment_id = store.create_experiment("logs").id
    Loader(LogDir(str(logdir)), store, experiment_id).poll()
    return store, experiment_id


@pytest.mark.postgres
def test_points_damaged_on_postgresql_are_a_clear_error_naming_the_store_and_the_file(
    postgres_url: str, logdir: Path
) -> None:
    store, experiment_id = ingested(postgres_url, logdir)
    try:
        loss = store.series(experiment_id, runs=["train"], tags=["loss"])[0]
        histogram = store.series(experiment_id, plugin_name="histograms")[0]
        # Not read before: this process checks a chunk that it picks points from once (trainboard.store.store).
        with psycopg.connect(postgres_url, autocommit=True) as database:
            # One bit of one value flipped, as a bad disk would: the value is still a number, a wrong one.
            database.execute(
                "UPDATE scalar_chunks SET points = set_byte(points, 20, get_byte(points, 20) # 1)"
                " WHERE experiment_id = %s AND series_id = %s",
                (experiment_id, loss.id),
            )
            database.execute(
                "UPDATE tensor_points SET tensor = set_byte(tensor, 0, get_byte(tensor, 0) # 1)"
                " WHERE experiment_id = %s AND series_id = %s",
                (experiment_id, histogram.id),
            )
        for read in (
            lambda: store.scalars(experiment_id, loss.id),
            lambda: store.scalars(experiment_id, loss.id, downsample=3),
            lambda: store.last_scalars(experiment_id, [loss.id]),
            lambda: store.tensors(experiment_id, histogram.id),
        ):
            with pytest.raises(StoreDamaged, match="fail their checksum") as raised:
                read()
            message = str(raised.value)
            assert redacted(postgres_url) in message and str(logdir) in message and "restore" in message
            assert raised.value.http_code == 503
    finally:
        store.close()


@pytest.mark.s3
def test_a_blob_overwritten_in_s3_is_a_clear_error(s3_blobs_url: str, logdir: Path, tmp_path: Path) -> None:
    store, experiment_id = ingested(str(tmp_path / "store.sqlite"), logdir, s3_blobs_url)
    try:
        images = store.series(experiment_id, plugin_name="images")[0]
        key = store.blob_sequences(experiment_id, images.id)[0].blob_keys[-1]
        original = store.blob(key)
        assert original is not None
        store.blobs.put({key: original[:-1] + bytes([original[-1] ^ 1])})  # the object itself, overwritten
        with pytest.raises(StoreDamaged, match=f"the blob {key.rpartition('/')[2]} read from .*{logdir}"):
            store.blob(key)
    finally:
        store.close()


def test_a_database_found_damaged_answers_every_later_error_as_damage(tmp_path: Path) -> None:
    """A request that took the database before it was moved aside may open its path while the one built in its place
    has no tables yet: "no such table" is then the damage already found (a 503), not an error of its own (a 500)."""
    database = SqliteDatabase(tmp_path / "store.sqlite")
    database.writer.execute("DROP TABLE runs")
    with pytest.raises(sqlite3.OperationalError):
        database.runs("e")
    database.damaged(sqlite3.DatabaseError("database disk image is malformed"))
    with pytest.raises(StoreDamaged, match="is damaged"):
        database.runs("e")
