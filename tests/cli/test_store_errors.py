"""A store that cannot be used stops every command before it serves: one line on stderr naming the store and the fix,
exit status 1, no URL, no traceback; a local logdir's store damaged beyond opening is built again instead."""

from __future__ import annotations

import sqlite3
import subprocess
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.cli.logs import write_run
from tests.cli.process import command, trainboard
from tests.servers import free_port
from trainboard.store.opening import open_store


def not_a_database(path: Path) -> str:
    path.write_bytes(b"no database here" * 256)
    return str(path)


def under_a_file(path: Path) -> str:
    path.write_text("a file, not a directory")
    return str(path / "store.sqlite")


def unwritable_directory(path: Path) -> str:
    return "/proc/trainboard-test/store.sqlite"  # no one may create a directory there, not even root


def migrated_by_a_newer_trainboard(path: Path) -> str:
    open_store(str(path)).close()
    with sqlite3.connect(path) as database:
        database.execute("INSERT INTO migrations (name, applied_at) VALUES ('0999_from_the_future', 0)")
    database.close()
    return str(path)


STORES: dict[str, tuple[Callable[[Path], str], str]] = {
    "not-a-database": (not_a_database, "is not a trainboard store (not a SQLite database): give another --db"),
    "under-a-file": (under_a_file, "cannot open the store"),
    "unwritable-directory": (unwritable_directory, "is not writable (give another --db)"),
    "newer": (migrated_by_a_newer_trainboard, "was migrated by a newer trainboard (0999_from_the_future): upgrade"),
}


@pytest.mark.parametrize("name", STORES)
@pytest.mark.parametrize("verb", ["trainboard", "serve", "ingest"])
def test_a_store_that_cannot_be_used_is_one_line_before_any_url(tmp_path: Path, name: str, verb: str) -> None:
    make, expected = STORES[name]
    db = make(tmp_path / "store.sqlite")
    logdir = tmp_path / "logs"
    write_run(logdir / "train")
    flags = {
        "trainboard": [f"--logdir={logdir}", f"--db={db}", "--port=0"],
        "serve": ["serve", f"--db={db}", "--port=0"],
        "ingest": ["ingest", f"--db={db}", "--experiment=x", f"--logdir={logdir}"],
    }[verb]
    finished = subprocess.run(command(*flags), capture_output=True, timeout=60, stdin=subprocess.DEVNULL)
    errors = finished.stderr.decode()
    assert finished.returncode == 1, errors
    assert errors.count("\n") == 1 and errors.startswith("trainboard: error: "), errors
    assert expected in errors and db in errors
    assert "http://" not in errors and "Traceback" not in errors


def test_an_export_of_a_store_that_is_not_there_is_one_line(tmp_path: Path) -> None:
    missing = tmp_path / "missing.sqlite"
    flags = ("export", f"--db={missing}", f"--out={tmp_path / 'out'}")
    finished = subprocess.run(command(*flags), capture_output=True, text=True, timeout=60)
    assert finished.returncode == 1, finished.stderr
    assert finished.stderr.splitlines() == [f"trainboard: error: no logdir or store at {missing}"]


def test_an_unreachable_postgresql_is_one_line_without_its_password(tmp_path: Path) -> None:
    db = f"postgresql://trainboard:hunter2@127.0.0.1:{free_port()}/store"
    finished = subprocess.run(command("serve", f"--db={db}", "--port=0"), capture_output=True, timeout=60)
    errors = finished.stderr.decode()
    assert finished.returncode == 1 and errors.count("\n") == 1, errors
    assert "cannot reach the database postgresql://trainboard:***@127.0.0.1:" in errors and "hunter2" not in errors


def test_a_local_logdirs_store_damaged_at_its_header_is_moved_aside_and_built_again(tmp_path: Path) -> None:
    cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    logdir = tmp_path / "logs"
    write_run(logdir / "train", steps=50)
    flags = (f"--logdir={logdir}", "--port=0", "--reload_interval=0")
    with trainboard(tmp_path / "first", *flags, env=cache):
        pass
    (store,) = (tmp_path / "cache" / "trainboard").glob("*.sqlite")
    with store.open("r+b") as file:
        file.write(b"\xff" * 64)  # SQLite's header gone: not a database any more
    with trainboard(tmp_path / "second", *flags, env=cache) as server, httpx.Client(base_url=server.url) as client:
        assert [step for _, step, _ in client.get("/data/scalars", params={"run": "train", "tag": "loss"}).json()] == (
            list(range(50))
        )
        errors = server.errors()
    assert f"the store {store} was damaged (file is not a database): moved it aside to {store}.damaged-" in errors
    assert "ingest done: 1/1 files" in errors
    assert len(list(store.parent.glob(f"{store.name}.damaged-*"))) == 1


def test_a_store_locked_by_another_process_is_one_line_after_a_short_wait(tmp_path: Path) -> None:
    db = tmp_path / "store.sqlite"
    open_store(str(db)).close()
    holder = sqlite3.connect(db, isolation_level=None)
    try:
        holder.execute("BEGIN EXCLUSIVE")  # held, as by a process stuck inside a write
        finished = subprocess.run(command("serve", f"--db={db}", "--port=0"), capture_output=True, timeout=60)
    finally:
        holder.close()
    errors = finished.stderr.decode()
    assert finished.returncode == 1 and errors.count("\n") == 1, errors
    assert f"the store {db} is locked by another process: stop it, or give another --db" in errors
