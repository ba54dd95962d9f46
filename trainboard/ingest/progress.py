"""How far ingest has come: counters the ingest thread updates and anyone may read."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field


@dataclass
class IngestProgress:
    files_total: int = 0
    files_done: int = 0
    bytes_total: int = 0
    bytes_read: int = 0
    points: int = 0
    passes: int = 0
    started_at: float = field(default_factory=time.monotonic)
    finished_at: float | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @classmethod
    def finished(cls) -> IngestProgress:
        """The progress of experiments this process does not ingest: what the store holds is all there is."""
        progress = cls()
        progress.end_pass()
        return progress

    def begin_pass(self, files_total: int, files_done: int, bytes_total: int, bytes_done: int) -> None:
        with self._lock:
            self.files_total = files_total
            self.files_done = files_done
            self.bytes_total = bytes_total
            self.bytes_read = bytes_done

    def add(self, *, bytes_read: int, points: int) -> None:
        with self._lock:
            self.bytes_read += bytes_read
            self.points += points

    def file_done(self) -> None:
        with self._lock:
            self.files_done += 1

    def end_pass(self) -> None:
        with self._lock:
            self.passes += 1
            if self.finished_at is None:
                self.finished_at = time.monotonic()

    @property
    def done(self) -> bool:
        """True once the first full pass over the logdir has been committed."""
        return self.finished_at is not None

    def as_json(self) -> dict[str, object]:
        with self._lock:
            elapsed = (self.finished_at or time.monotonic()) - self.started_at
            return {
                "files_total": self.files_total,
                "files_done": self.files_done,
                "bytes_total": self.bytes_total,
                "bytes_read": self.bytes_read,
                "points": self.points,
                "points_per_second": round(self.points / elapsed, 1) if elapsed > 0 else 0.0,
                "elapsed": round(elapsed, 3),
                "passes": self.passes,
                "done": self.finished_at is not None,
            }
