"""Peak memory per record: peak RSS (the kernel's VmHWM) of real trainboard processes on logdirs holding one large
record, against the target of 2x the record + 200 MB.

    .venv/bin/python -m bench.memory [--mb 200]

Figures: `trainboard ingest` of a logdir holding one tensor record of MB megabytes, and of one holding an image of
MB megabytes; `trainboard --logdir` serving the tensor's logdir (its ingest), then each TS-VIS exception view of that
tensor in a fresh server on the ingested store (the box statistics over steps, and the histogram of its one step;
the heat map and outliers of a tensor this large answer 400, as they are limited to 4M values).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
import numpy as np

from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import DATA_CLASS_BLOB_SEQUENCE, DATA_CLASS_TENSOR
from trainboard.reader.records import write_record

BIN = Path(sys.executable).parent
SERVING = re.compile(r"trainboard \S+ at (http://\S+/) ")
BASE_MB = 200


def tensor_logdir(root: Path, megabytes: int) -> None:
    """One run with one float32 tensor of `megabytes` MB: a TensorBoard tensor summary of no plugin, which the TS-VIS
    exception views show."""
    event = Event(wall_time=1.0, step=0)
    value = event.summary.value.add(tag="activations")
    value.metadata.data_class = DATA_CLASS_TENSOR
    value.tensor.dtype = 1  # DT_FLOAT
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
    value.tensor.dtype = 7  # DT_STRING
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


def ingest_peak(logdir: Path, db: Path) -> float:
    """Peak RSS in MB of `trainboard ingest` reading the logdir once."""
    command = [str(BIN / "trainboard"), "ingest", f"--logdir={logdir}", f"--db={db}", "--experiment=bench"]
    done = subprocess.run([sys.executable, "-c", MEASURED, *command], capture_output=True, text=True)
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=int, default=200, help="size of the large record in MB")
    arguments = parser.parse_args()
    megabytes = arguments.mb
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
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


if __name__ == "__main__":
    main()
