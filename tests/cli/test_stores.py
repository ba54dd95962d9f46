"""`trainboard stores` and `trainboard stores prune`: the local stores that real `trainboard --logdir` processes left
in a cache directory of the test's own (XDG_CACHE_HOME)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from pathlib import Path

from tests.cli.logs import write_run
from tests.cli.process import TIMEOUT, command, trainboard

DAY = 86400


def stores(cache: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    done = subprocess.run(
        command("stores", *flags),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        env={**os.environ, "XDG_CACHE_HOME": str(cache)},
    )
    assert done.returncode == 0, done.stderr
    return done


def listed(cache: Path) -> dict[str, list[str]]:
    """`trainboard stores`'s rows by logdir: whether it exists, size, last used, store."""
    header, *rows = stores(cache).stdout.splitlines()
    assert header.split("\t") == ["logdir", "exists", "size", "last used", "store"]
    return {logdir: rest for logdir, *rest in (row.split("\t") for row in rows)}


def served(scratch: Path, logdir: Path, cache: Path) -> None:
    """`trainboard --logdir LOGDIR` until its first ingest is done: the store it leaves in the cache directory."""
    with trainboard(scratch, f"--logdir={logdir}", "--port=0", env={"XDG_CACHE_HOME": str(cache)}):
        pass


def files_of(store: str) -> list[Path]:
    return sorted(Path(store).parent.glob(Path(store).name + "*"))


def age(files: list[Path], days: float) -> None:
    then = time.time() - days * DAY
    for found in files:
        os.utime(found, (then, then))


def test_stores_lists_the_local_stores_and_prune_removes_those_whose_logdir_is_gone(tmp_path: Path) -> None:
    cache, kept, gone = tmp_path / "cache", tmp_path / "kept", tmp_path / "gone"
    write_run(kept / "run", steps=100)
    write_run(gone / "run", steps=100)
    served(tmp_path / "first", kept, cache)
    served(tmp_path / "second", gone, cache)
    found = listed(cache)
    assert sorted(found) == sorted([str(kept), str(gone)])
    for logdir in (kept, gone):
        exists, size, last_used, store = found[str(logdir)]
        assert exists == "yes" and float(size.removesuffix(" MB")) > 0 and last_used.endswith(" UTC")
        assert Path(store).parent == cache / "trainboard" and Path(store).is_file()
    shutil.rmtree(gone)
    assert listed(cache)[str(gone)][0] == "no"
    gone_files = files_of(found[str(gone)][3])
    assert len(gone_files) >= 2  # the database and its record at least

    pruned = stores(cache, "prune")
    assert f"Removed the store of {gone} (" in pruned.stderr and "its logdir is gone" in pruned.stderr
    assert pruned.stderr.splitlines()[-1].startswith("Removed 1 store, ")
    assert [path for path in gone_files if path.exists()] == []
    assert list(listed(cache)) == [str(kept)]
    # Still there, and read from again as it was: the next start reads no new points.
    with trainboard(tmp_path / "third", f"--logdir={kept}", "--port=0", env={"XDG_CACHE_HOME": str(cache)}) as server:
        assert ", 0 new points" in server.errors()


def test_prune_by_age_removes_a_store_unused_for_that_long_but_never_one_in_use(tmp_path: Path) -> None:
    cache, logdir = tmp_path / "cache", tmp_path / "logs"
    write_run(logdir / "run")
    served(tmp_path / "first", logdir, cache)
    store = listed(cache)[str(logdir)][3]
    age(files_of(store), days=10)
    assert stores(cache, "prune", "--unused_days=30").stderr.splitlines() == ["Removed 0 stores, 0.0 MB"]
    with trainboard(tmp_path / "serving", f"--logdir={logdir}", "--port=0", env={"XDG_CACHE_HOME": str(cache)}):
        age(files_of(store), days=10)
        shutil.rmtree(logdir)
        kept = stores(cache, "prune", "--unused_days=1").stderr
        assert f"Kept the store of {logdir}: its logdir is gone, but a running trainboard has it open" in kept
        assert Path(store).is_file()
    write_run(logdir / "run")
    age(files_of(store), days=10)
    pruned = stores(cache, "prune", "--unused_days=1.5").stderr
    assert f"Removed the store of {logdir} (" in pruned and "unused for 10.0 days" in pruned
    assert files_of(store) == [] and listed(cache) == {}
