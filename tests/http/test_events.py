"""/data/trainboard/events on a real `trainboard --logdir` process: a writer appends points and the stream announces
them within seconds; a pinned view has no stream; Ctrl+C ends the server with streams open."""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from pathlib import Path

import httpx

from tests.cli.process import trainboard
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
        once = httpx.get(f"{server.url}data/trainboard/events")
        assert once.text.startswith("event: progress\ndata: {")
        with httpx.stream("GET", f"{server.url}data/trainboard/events", headers=accept, timeout=30) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            lines = response.iter_lines()
            appended = 0.0
            for line in lines:
                if not line.startswith("data: "):
                    continue
                seen.append((time.monotonic(), json.loads(line[6:])))
                if len(seen) == 1:
                    appended = time.monotonic()
                    _append(events_file, range(10, 20))
                elif seen[-1][1]["generation"] != seen[0][1]["generation"]:
                    break
            assert seen[-1][0] - appended < 5
            scalars = httpx.get(f"{server.url}data/scalars", params={"run": "run", "tag": "loss"}).json()
            assert len(scalars) == 20
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
    with trainboard(tmp_path / "server", f"--logdir={tmp_path / 'logs'}", "--port=0") as server:
        pin = httpx.post(f"{server.url}pins").raise_for_status().json()["pin"]
        assert httpx.get(f"{server.url}at/{pin}/data/trainboard/events").status_code == 204
        assert httpx.get(f"{server.url}data/trainboard/capabilities").json()["events"] is True
        assert httpx.get(f"{server.url}at/{pin}/data/trainboard/capabilities").json()["events"] is False
