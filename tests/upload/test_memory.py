"""An upload's body is held in bounded pieces: a real `trainboard serve` (SQLite; PostgreSQL with blobs on S3) takes a
128 MiB body, one chunk of 1 MiB tensor records, with its RSS (psutil, sampled) growing by much less than the
body."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import numpy as np
import psutil

from tests.upload.team import TeamStore, started_server
from trainboard.ingest.upload_protocol import Chunk, chunk_request
from trainboard.reader.logdir import FileStat
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.protos.summary_pb2 import DATA_CLASS_TENSOR
from trainboard.reader.protos.tensor_pb2 import DataType
from trainboard.reader.received import Spool
from trainboard.reader.records import write_record
from trainboard.reader.tail import HEAD_SIZE

BODY_BYTES = 128 << 20
RECORD_VALUES = (1 << 20) // 4


def event_file(records: int) -> bytes:
    """A version record, then `records` records of one 1 MiB float32 tensor each."""
    written = io.BytesIO()
    write_record(written, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
    values = np.random.default_rng(0).normal(size=RECORD_VALUES).astype(np.float32).tobytes()
    for step in range(records):
        event = Event(wall_time=1.0 + step, step=step)
        value = event.summary.value.add(tag="activations")
        value.metadata.data_class = DATA_CLASS_TENSOR
        value.tensor.dtype = DataType.DT_FLOAT
        value.tensor.tensor_shape.dim.add(size=RECORD_VALUES)
        value.tensor.tensor_content = values
        write_record(written, event.SerializeToString())
    return written.getvalue()


def pieces(data: bytes) -> Iterator[bytes]:
    with memoryview(data) as view:
        for start in range(0, len(data), 1 << 20):
            yield bytes(view[start : start + (1 << 20)])


def test_a_large_upload_body_is_held_in_bounded_pieces(team_store: TeamStore, tmp_path: Path) -> None:
    experiment_id = team_store.create_experiment("large")
    records = BODY_BYTES >> 20
    data = event_file(records)
    path = "train/events.out.tfevents.1.host"
    query, _ = chunk_request(Chunk("train", path, 0, FileStat(len(data), 1.0), data[:HEAD_SIZE], b""))
    with Spool.of(data) as whole:
        query["crc32c"] = str(whole.crc32c)
    with started_server(team_store, tmp_path, 0) as (url, process):
        server = psutil.Process(process.pid)
        with httpx.Client(base_url=url, timeout=300) as client:
            # The route's module and the store's first reads, before the idle figure.
            assert client.get(f"/experiment/{experiment_id}/upload/files").status_code == 200
            idle = server.memory_info().rss
            peak, done = idle, threading.Event()

            def sample() -> None:
                nonlocal peak
                while not done.is_set():
                    peak = max(peak, server.memory_info().rss)
                    time.sleep(0.02)

            sampler = threading.Thread(target=sample)
            sampler.start()
            try:
                answer = client.post(f"/experiment/{experiment_id}/upload/file", params=query, content=pieces(data))
            finally:
                done.set()
                sampler.join()
        assert answer.status_code == 200, answer.text
        assert answer.json()["points"] == records
        assert answer.json()["cursor"]["offset"] == len(data)
    assert peak - idle < 100 << 20, (idle >> 20, peak >> 20)
