"""/data/trainboard/events on real `trainboard --logdir` and `trainboard serve` processes: a writer appends points and
the stream announces them within seconds; Ctrl+C ends either server with streams open. In process
(tests.servers.in_process): a pinned view has no stream; past MAX_STREAMS open streams a new one is a 503 (until one
closes)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import threading
import time
from contextlib import AsyncExitStack
from pathlib import Path

import httpx

from tests import loopback
from tests.cli.process import command, trainboard
from tests.servers import SERVING, in_process, stop
from trainboard.http.trainboard_api.events import MAX_STREAMS
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record


def _append(path: Path, steps: range) -> None:
    with path.open("ab") as stream:
        for step in steps:
            event = Event(wall_time=1.0 + step, step=step)
            event.summary.value.add(tag="loss", simple_value=0.5)
            write_record(stream, event.SerializeToString())


def test_the_stream_announces_appended_points_and_ends_at_shutdown(tmp_path: Path) -> None:
    events_file = tmp_path / "logs" / "run" / "events.out.tfevents.1.host"
    events_file.parent.mkdir(parents=True)
    _append(events_file, range(10))
    flags = (f"--logdir={tmp_path / 'logs'}", "--port=0", f"--db={tmp_path / 'store.sqlite'}", "--reload_interval=1")
    with trainboard(tmp_path / "server", *flags) as server:
        seen: list[tuple[float, dict[str, object]]] = []
        accept = {"Accept": "text/event-stream"}
        once = loopback.get(f"{server.url}data/trainboard/events")
        assert once.text.startswith("event: progress\ndata: {")
        with loopback.stream("GET", f"{server.url}data/trainboard/events", headers=accept, timeout=30) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            lines = response.iter_lines()
            appended = 0.0
            scalars: list[object] = []
            for line in lines:
                if not line.startswith("data: "):
                    continue
                seen.append((time.monotonic(), json.loads(line[6:])))
                if len(seen) == 1:
                    appended = time.monotonic()
                    _append(events_file, range(10, 20))
                elif seen[-1][1]["generation"] != seen[-2][1]["generation"]:
                    # Ingest may land the appended records in more than one pass: each is announced.
                    scalars = loopback.get(f"{server.url}data/scalars", params={"run": "run", "tag": "loss"}).json()
                    if len(scalars) == 20:
                        break
            assert len(scalars) == 20
            assert seen[-1][0] - appended < 10
            # With a stream open, SIGINT still ends the server at once, cleanly.
            started = time.monotonic()
            closed = threading.Event()
            threading.Thread(target=lambda: (list(lines), closed.set()), daemon=True).start()
            os.killpg(server.process.pid, signal.SIGINT)
            assert server.process.wait(30) == 0
            assert time.monotonic() - started < 10
            assert closed.wait(10)
        assert "Traceback" not in server.errors()


def test_a_pinned_view_has_no_stream(tmp_path: Path) -> None:
    events_file = tmp_path / "logs" / "run" / "events.out.tfevents.1.host"
    events_file.parent.mkdir(parents=True)
    _append(events_file, range(3))
    with in_process("trainboard", tmp_path / "server", f"--logdir={tmp_path / 'logs'}") as server:
        pin = loopback.post(f"{server.url}/pins").raise_for_status().json()["pin"]
        assert loopback.get(f"{server.url}/at/{pin}/data/trainboard/events").status_code == 204
        assert loopback.get(f"{server.url}/data/trainboard/capabilities").json()["events"] is True
        assert loopback.get(f"{server.url}/at/{pin}/data/trainboard/capabilities").json()["events"] is False


def test_past_the_bound_a_stream_is_a_503_until_one_closes(tmp_path: Path) -> None:
    events_file = tmp_path / "logs" / "run" / "events.out.tfevents.1.host"
    events_file.parent.mkdir(parents=True)
    _append(events_file, range(3))
    with in_process("trainboard", tmp_path / "server", f"--logdir={tmp_path / 'logs'}") as server:
        asyncio.run(asyncio.wait_for(_fill_the_streams(f"{server.url}/data/trainboard/events"), 60))
        assert loopback.get(f"{server.url}/data/ingest_progress").status_code == 200
    assert "Traceback" not in server.output()


async def _fill_the_streams(url: str) -> None:
    accept = {"Accept": "text/event-stream"}
    limits = httpx.Limits(max_connections=MAX_STREAMS + 20)
    async with httpx.AsyncClient(limits=limits, timeout=30) as client, AsyncExitStack() as streams:

        async def open_stream() -> httpx.Response:
            response = await client.send(client.build_request("GET", url, headers=accept), stream=True)
            streams.push_async_callback(response.aclose)
            return response

        # Asked for all at once: exactly MAX_STREAMS get in, however the requests interleave.
        answers = await asyncio.gather(*(open_stream() for _ in range(MAX_STREAMS + 8)))
        opened = [response for response in answers if response.status_code == 200]
        refused = [response for response in answers if response.status_code != 200]
        assert len(opened) == MAX_STREAMS and {response.status_code for response in refused} == {503}
        # Each is a stream that has begun (its first bytes arrived), not a request still waiting. The readers are
        # kept: one dropped half-read closes its connection.
        readers = [response.aiter_raw() for response in opened]
        firsts = await asyncio.gather(*(anext(reader) for reader in readers))
        assert all(first.startswith(b"retry: ") for first in firsts)
        again = await open_stream()
        assert again.status_code == 503
        told = f"{MAX_STREAMS} event streams are open: poll /data/ingest_progress instead"
        assert told in (await again.aread()).decode()
        # Polling still answers, and a stream that closes makes room for another.
        assert (await client.get(url.replace("trainboard/events", "ingest_progress"))).status_code == 200
        await opened[0].aclose()
        deadline = time.monotonic() + 10
        while (again := await open_stream()).status_code == 503 and time.monotonic() < deadline:
            await asyncio.sleep(0.2)
        assert again.status_code == 200


def test_trainboard_serve_exits_at_once_on_ctrl_c_with_a_stream_open(tmp_path: Path) -> None:
    events_file = tmp_path / "logs" / "run" / "events.out.tfevents.1.host"
    events_file.parent.mkdir(parents=True)
    _append(events_file, range(3))
    db = f"sqlite:{tmp_path / 'store.sqlite'}"
    ingest = command("ingest", f"--db={db}", "--experiment=live", f"--logdir={tmp_path / 'logs'}")
    subprocess.run(ingest, check=True, capture_output=True, timeout=120)
    stderr = tmp_path / "serve.stderr"
    with stderr.open("wb") as errors:
        process = subprocess.Popen(
            command("serve", f"--db={db}", "--port=0", "--no_auth"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=errors,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while not (serving := SERVING.search(stderr.read_text(errors="replace"))):
            assert process.poll() is None and time.monotonic() < deadline, stderr.read_text(errors="replace")
            time.sleep(0.1)
        url = serving.group(1)
        (found,) = loopback.get(f"{url}data/experiments").json()
        accept = {"Accept": "text/event-stream"}
        events = f"{url}experiment/{found['id']}/data/trainboard/events"
        with loopback.stream("GET", events, headers=accept, timeout=30) as response:
            assert response.status_code == 200
            lines = response.iter_lines()
            assert next(line for line in lines if line.startswith("data: "))
            started = time.monotonic()
            closed = threading.Event()
            threading.Thread(target=lambda: (list(lines), closed.set()), daemon=True).start()
            os.killpg(process.pid, signal.SIGINT)
            assert process.wait(30) == 0
            assert time.monotonic() - started < 10
            assert closed.wait(10)
        assert "Traceback" not in stderr.read_text(errors="replace")
    finally:
        stop(process)
