"""Memory and time per request and per record, of real trainboard processes.

    .venv/bin/python -m bench.memory [--mb 200] [--only records|uploads|sparse|chunks]

records: peak RSS (the kernel's VmHWM) on logdirs holding one large record, against the target of 2x the record +
200 MB: `trainboard ingest` of a logdir holding one tensor record of MB megabytes, and of one holding an image of MB
megabytes; `trainboard --logdir` serving the tensor's logdir (its ingest), then each TS-VIS exception view of that
tensor in a fresh server on the ingested store (the box statistics over steps, and the histogram of its one step;
the heat map and outliers of a tensor this large answer 400, as they are limited to 4M values).

uploads: the RSS of `trainboard serve` (psutil, sampled) while four 256 MiB upload bodies arrive at once, each one
whole chunk of an event file of 1 MiB tensor records, and its RSS idle before and after (target: at most 400 MB
during, back to the idle level after).

sparse: the peak RSS of `trainboard ingest` (C framing, then TRAINBOARD_PURE_PYTHON=1) of an event file whose one
record claims 2 GiB over a hole (a sparse file of a few KB on disk), against an empty logdir's (target: flat).

chunks: the time `Uploads.receive` takes for a chunk of a small event file in an experiment of 10 and of 10,000
files (SQLite; target: at most 3 ms at 10,000 files).
"""

from __future__ import annotations

import argparse
import io
import os
import re
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import psutil

from trainboard.ingest.upload import Uploads
from trainboard.ingest.upload_protocol import Chunk, chunk_request, read_chunk
from trainboard.normaliser.points import Batch, RunState
from trainboard.reader.frames import masked_crc
from trainboard.reader.logdir import FileStat
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import DATA_CLASS_BLOB_SEQUENCE, DATA_CLASS_TENSOR
from trainboard.reader.protos.tensor_pb2 import DataType
from trainboard.reader.received import Spool
from trainboard.reader.records import write_record
from trainboard.reader.tail import HEAD_SIZE, FileCursor
from trainboard.store.opening import open_store
from trainboard.store.writer import FileWrite, StoreWriter

BIN = Path(sys.executable).parent
SERVING = re.compile(r"trainboard \S+ at (http://\S+/) ")
BASE_MB = 200


def tensor_logdir(root: Path, megabytes: int) -> None:
    """One run with one float32 tensor of `megabytes` MB: a TensorBoard tensor summary of no plugin, which the TS-VIS
    exception views show."""
    event = Event(wall_time=1.0, step=0)
    value = event.summary.value.add(tag="activations")
    value.metadata.data_class = DATA_CLASS_TENSOR
    value.tensor.dtype = DataType.DT_FLOAT
    count = megabytes * (1 << 20) // 4
    for size in (count // 1024, 1024):
        value.tensor.tensor_shape.dim.add(size=size)
    values = np.random.default_rng(0).normal(size=count // 1024 * 1024).astype(np.float32)
    value.tensor.tensor_content = values.tobytes()
    del values
    _write(root / "tensor", event)


def image_logdir(root: Path, megabytes: int) -> None:
    """One run with one image of `megabytes` MB (its encoded bytes as TensorBoard's image summary keeps them)."""
    event = Event(wall_time=1.0, step=0)
    value = event.summary.value.add(tag="picture")
    value.metadata.plugin_data.plugin_name = "images"
    value.metadata.data_class = DATA_CLASS_BLOB_SEQUENCE
    value.tensor.dtype = DataType.DT_STRING
    value.tensor.tensor_shape.dim.add(size=3)
    value.tensor.string_val.extend([b"4096", b"4096", np.random.default_rng(1).bytes(megabytes << 20)])
    _write(root / "image", event)


def _write(run: Path, event: Event) -> None:
    run.mkdir(parents=True)
    with (run / "events.out.tfevents.1.bench").open("wb") as stream:
        write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
        write_record(stream, event.SerializeToString())


# Linux hands a process the peak RSS of the one that started it, up to its exec: a small Python starts the command
# and reports its child's own peak, so that the bench's memory (the record it wrote) never counts.
MEASURED = """
import resource, subprocess, sys
done = subprocess.run(sys.argv[1:], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
if done.returncode:
    sys.exit(done.stderr.decode(errors="replace")[-2000:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def ingest_peak(logdir: Path, db: Path, environment: dict[str, str] | None = None) -> float:
    """Peak RSS in MB of `trainboard ingest` reading the logdir once."""
    command = [str(BIN / "trainboard"), "ingest", f"--logdir={logdir}", f"--db={db}", "--experiment=bench"]
    done = subprocess.run([sys.executable, "-c", MEASURED, *command], capture_output=True, text=True, env=environment)
    if done.returncode:
        raise RuntimeError(f"trainboard ingest failed: {done.stderr}")
    return int(done.stdout) / 1024


def served_peak(logdir: Path, db: Path, path: str | None, scratch: Path) -> float:
    """Peak RSS in MB of `trainboard --logdir` after its first ingest pass and, when `path` is given, after answering
    that one request."""
    log = scratch / "server.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(BIN / "trainboard"), f"--logdir={logdir}", f"--db={db}", "--port=0", "--host=127.0.0.1"],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
        )
    try:
        url = _wait(process, log)
        with httpx.Client(base_url=url, timeout=600) as client:
            while client.get("data/ingest_progress").json()["done"] is not True:
                time.sleep(0.2)
            if path is not None:
                answer = client.get(path)
                if answer.status_code != 200:
                    print(f"  {path}: {answer.status_code} {answer.text[:200]}")
        return _hwm(process.pid)
    finally:
        process.terminate()
        process.wait(30)


def _wait(process: subprocess.Popen[bytes], log: Path) -> str:
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline:
        found = SERVING.search(log.read_text(errors="replace"))
        if found:
            return found.group(1)
        if process.poll() is not None:
            raise RuntimeError(f"trainboard exited: {log.read_text(errors='replace')[-2000:]}")
        time.sleep(0.1)
    raise RuntimeError("trainboard printed no URL")


def _hwm(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM")


def report(name: str, peak: float, megabytes: int) -> None:
    target = 2 * megabytes + BASE_MB
    print(
        f"{name:<44} peak RSS {peak:7.0f} MB  ({peak / megabytes:4.1f}x the record; target {target} MB: "
        f"{'ok' if peak <= target else 'over'})",
        flush=True,
    )


# Uploads.


UPLOAD_BYTES = 256 << 20
UPLOADS = 4
RECORD_BYTES = 1 << 20
RSS_TARGET_MB = 400


def tensor_records(total: int) -> bytes:
    """An event file of `total` bytes or a little less: a version record, then 1 MiB float32 tensor records."""
    stream = io.BytesIO()
    write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
    values = np.random.default_rng(2).normal(size=RECORD_BYTES // 4).astype(np.float32).tobytes()
    step = 0
    while stream.tell() + RECORD_BYTES + 200 <= total:
        event = Event(wall_time=1.0 + step, step=step)
        value = event.summary.value.add(tag="activations")
        value.metadata.data_class = DATA_CLASS_TENSOR
        value.tensor.dtype = DataType.DT_FLOAT
        value.tensor.tensor_shape.dim.add(size=RECORD_BYTES // 4)
        value.tensor.tensor_content = values
        write_record(stream, event.SerializeToString())
        step += 1
    return stream.getvalue()


def _pieces(data: bytes, size: int = 1 << 20) -> Iterator[bytes]:
    with memoryview(data) as view:
        for start in range(0, len(data), size):
            yield bytes(view[start : start + size])


def upload_rss(scratch: Path) -> None:
    """Four 256 MiB upload bodies at once to a real `trainboard serve` (SQLite, without tokens): its RSS idle, at its
    peak while they arrive and are committed, and idle again after."""
    db = scratch / "uploads.sqlite"
    store = open_store(f"sqlite:{db}")
    experiment_id = store.create_experiment("bench").id
    store.close()
    data = tensor_records(UPLOAD_BYTES)
    log = scratch / "serve.log"
    with log.open("wb") as output:
        process = subprocess.Popen(
            [str(BIN / "trainboard"), "serve", f"--db={db}", "--port=0", "--no_auth"],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
        )
    try:
        url = _wait(process, log)
        server = psutil.Process(process.pid)
        time.sleep(1.0)
        idle = server.memory_info().rss / 1e6
        peak, done = idle, threading.Event()

        def sample() -> None:
            nonlocal peak
            while not done.is_set():
                peak = max(peak, server.memory_info().rss / 1e6)
                time.sleep(0.02)

        def send(index: int) -> None:
            path = f"run{index}/events.out.tfevents.1.bench"
            stat = FileStat(size=len(data), mtime=1.0)
            query, _ = chunk_request(Chunk(f"run{index}", path, 0, stat, data[:HEAD_SIZE], b""))
            with Spool.of(data) as whole:
                query["crc32c"] = str(whole.crc32c)
            with httpx.Client(base_url=url, timeout=3600) as client:
                answer = client.post(f"experiment/{experiment_id}/upload/file", params=query, content=_pieces(data))
            answer.raise_for_status()

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.perf_counter()
        senders = [threading.Thread(target=send, args=(index,)) for index in range(UPLOADS)]
        for sender in senders:
            sender.start()
        for sender in senders:
            sender.join()
        elapsed = time.perf_counter() - started
        done.set()
        sampler.join()
        time.sleep(2.0)
        memory = server.memory_info()
        after, after_file = memory.rss / 1e6, memory.shared / 1e6
    finally:
        process.terminate()
        process.wait(30)
    verdict = "ok" if peak <= RSS_TARGET_MB else "over"
    print(
        f"trainboard serve, {UPLOADS} x {UPLOAD_BYTES >> 20} MiB uploads at once ({elapsed:.0f} s): RSS idle "
        f"{idle:.0f} MB, peak {peak:.0f} MB (target {RSS_TARGET_MB} MB: {verdict}), after {after:.0f} MB (of which "
        f"{after_file:.0f} MB file-backed: the store's pages, memory-mapped)",
        flush=True,
    )


# A record that claims 2 GiB over a hole.

SPARSE_CLAIM = 2 * 1024 * 1024 * 1024 - 1


def sparse_logdir(root: Path) -> None:
    """An event file with one valid header claiming SPARSE_CLAIM bytes, and the file as long as the claim: a hole,
    a few KB on disk."""
    run = root / "run"
    run.mkdir(parents=True)
    length = struct.pack("<Q", SPARSE_CLAIM)
    with (run / "events.out.tfevents.1.bench").open("wb") as stream:
        write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
        stream.write(length + struct.pack("<I", masked_crc(length)))
        stream.truncate(stream.tell() + SPARSE_CLAIM + 4)


def sparse_peaks(root: Path) -> None:
    (root / "empty" / "run").mkdir(parents=True)
    sparse_logdir(root / "sparse")
    for name, pure in (("C framing", "0"), ("pure Python", "1")):
        environment = {**os.environ, "TRAINBOARD_PURE_PYTHON": pure}
        empty = ingest_peak(root / "empty", root / f"empty-{pure}.sqlite", environment)
        sparse = ingest_peak(root / "sparse", root / f"sparse-{pure}.sqlite", environment)
        print(
            f"trainboard ingest, a record claiming 2 GiB over a hole ({name}): peak RSS {sparse:.0f} MB "
            f"(empty logdir {empty:.0f} MB: +{sparse - empty:.0f} MB)",
            flush=True,
        )


# Chunk time by the experiment's files.

SMALL_FILE_STEPS = 10
TIMED_CHUNKS = 50


def chunk_times(root: Path) -> None:
    small = io.BytesIO()
    for step in range(SMALL_FILE_STEPS):
        event = Event(wall_time=1.0 + step, step=step)
        event.summary.value.add(tag="loss", simple_value=0.5)
        write_record(small, event.SerializeToString())
    data = small.getvalue()
    for files in (10, 10_000):
        store = open_store(f"sqlite:{root / f'chunks-{files}.sqlite'}")
        try:
            experiment_id = store.create_experiment("bench").id
            _seed_files(store, experiment_id, files)
            uploads = Uploads(store)
            times = []
            for index in range(TIMED_CHUNKS):
                path = f"train/events.out.tfevents.{index}.timed"
                chunk = Chunk("train", path, 0, FileStat(len(data), 1.0), data[:HEAD_SIZE], data)
                query, body = chunk_request(chunk)
                with Spool.of(body) as spool:
                    received = read_chunk(query, spool)
                    started = time.perf_counter()
                    uploads.receive(experiment_id, received)
                    times.append(time.perf_counter() - started)
        finally:
            store.close()
        print(
            f"Uploads.receive, a {len(data)}-byte chunk in an experiment of {files} files: median "
            f"{statistics.median(times) * 1e3:.1f} ms (target at 10,000 files: 3 ms)",
            flush=True,
        )


def _seed_files(store: StoreWriter, experiment_id: str, count: int) -> None:
    writes = [
        FileWrite(
            "train",
            FileCursor(f"train/events.out.tfevents.{index}.seed", 0, 0, 1.0, b""),
            RunState(),
            Batch(),
            restarted=False,
            previous=None,
        )
        for index in range(count)
    ]
    for start in range(0, count, 1000):
        store.write_batches(experiment_id, writes[start : start + 1000])


def records(scratch: Path, megabytes: int) -> None:
    root = scratch / "records"
    (root / "empty" / "run").mkdir(parents=True)
    print(f"trainboard ingest, empty logdir: peak RSS {ingest_peak(root / 'empty', root / 'e.sqlite'):.0f} MB")
    tensor_logdir(root / "tensors", megabytes)
    image_logdir(root / "images", megabytes)
    report("trainboard ingest, tensor record", ingest_peak(root / "tensors", root / "t.sqlite"), megabytes)
    report("trainboard ingest, image record", ingest_peak(root / "images", root / "i.sqlite"), megabytes)
    report(
        "trainboard --logdir, tensor record",
        served_peak(root / "tensors", root / "served.sqlite", None, root),
        megabytes,
    )
    query = "run=tensor&tag=activations"
    for name, path in (
        ("exception (box statistics)", f"api/exception?{query}"),
        ("exception_hist", f"api/exception_hist?{query}&step=0"),
    ):
        # On the store the server above filled: nothing left to ingest.
        report(f"TS-VIS {name}", served_peak(root / "tensors", root / "served.sqlite", path, root), megabytes)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=200, help="size of the large record in MB")
    parser.add_argument("--only", choices=("records", "uploads", "sparse", "chunks"), help="run one part")
    arguments = parser.parse_args()
    parts = {"uploads": upload_rss, "sparse": sparse_peaks, "chunks": chunk_times}
    with tempfile.TemporaryDirectory() as scratch:
        if arguments.only == "records":
            records(Path(scratch), arguments.mb)
            return
        if arguments.only is not None:
            parts[arguments.only](Path(scratch))
            return
        for part in parts.values():
            part(Path(scratch))
        records(Path(scratch), arguments.mb)


if __name__ == "__main__":
    main()
