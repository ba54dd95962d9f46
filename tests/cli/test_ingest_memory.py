"""A record's claimed length costs no memory beyond the bytes at hand: `trainboard ingest` of an event file whose one
record claims 2 GiB over a hole (a sparse file of a few KB on disk) stays as flat as on an empty logdir, by the C
framing and the pure-Python one."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.process import command
from trainboard.reader.frames import masked_crc
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record
from trainboard.store.opening import open_store

CLAIM = 2 * 1024 * 1024 * 1024 - 1
# Linux hands a process the peak RSS of the children it waited for: a small Python runs the command and prints its
# peak in KiB, so that the test's own memory never counts.
MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if done.returncode:
    sys.exit(done.stderr.decode(errors="replace")[-2000:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_megabytes(logdir: Path, db: Path, pure_python: str) -> float:
    flags = ("ingest", f"--logdir={logdir}", f"--db={db}", "--experiment=memory")
    done = subprocess.run(
        [sys.executable, "-c", MEASURED, *command(*flags)],
        capture_output=True,
        text=True,
        env={**os.environ, "TRAINBOARD_PURE_PYTHON": pure_python},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return int(done.stdout) / 1024


def sparse_event_file(path: Path) -> None:
    """A version record, then a valid header claiming CLAIM bytes, and the file as long as the claim: a hole."""
    path.parent.mkdir(parents=True)
    length = struct.pack("<Q", CLAIM)
    with path.open("wb") as stream:
        write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
        stream.write(length + struct.pack("<I", masked_crc(length)))
        stream.truncate(stream.tell() + CLAIM + 4)


@pytest.mark.parametrize("pure_python", ["0", "1"], ids=["c-framing", "pure-python"])
def test_a_record_claiming_2_gib_over_a_hole_keeps_ingest_flat(tmp_path: Path, pure_python: str) -> None:
    (tmp_path / "empty" / "run").mkdir(parents=True)
    sparse = tmp_path / "sparse" / "run" / "events.out.tfevents.1.host"
    sparse_event_file(sparse)
    assert sparse.stat().st_size > CLAIM and sparse.stat().st_blocks * 512 < 1 << 20
    empty = peak_megabytes(tmp_path / "empty", tmp_path / "empty.sqlite", pure_python)
    found = peak_megabytes(tmp_path / "sparse", tmp_path / "sparse.sqlite", pure_python)
    assert found - empty < 100, (empty, found)
    # The record was judged corrupt (its checksum fails) and skipped: the file is read to its end.
    store = open_store(f"sqlite:{tmp_path / 'sparse.sqlite'}")
    try:
        cursors = store.file_cursors(store.create_experiment("memory").id)
    finally:
        store.close()
    (cursor,) = cursors.values()
    assert cursor.offset == sparse.stat().st_size
