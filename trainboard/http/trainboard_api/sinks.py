"""`Chunks`: a file that keeps what is written to it until taken, so that pyarrow's writers can be streamed."""

from __future__ import annotations

from typing import Any


class Chunks:
    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.closed = False

    def write(self, data: Any) -> int:
        self.parts.append(bytes(data))
        return len(self.parts[-1])

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def take(self) -> bytes:
        found, self.parts = b"".join(self.parts), []
        return found
