"""The oldest protobuf that pyproject.toml admits, in .venv-floor: scripts/test makes that venv with only protobuf in
it, and a .pth file that adds .venv's packages after it, so trainboard runs there on the floor version of protobuf
and on the same versions of everything else."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path
from typing import Any

from google.protobuf import text_format
from google.protobuf.message import Message

from trainboard.reader.protos.graph_pb2 import GraphDef
from trainboard.reader.protos.run_metadata_pb2 import RunMetadata

ROOT = Path(__file__).resolve().parents[1]


def floor_version() -> str:
    """The `protobuf>=X.Y` of pyproject.toml's dependencies: X.Y."""
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (floor,) = (found.group(1) for line in dependencies if (found := re.fullmatch(r"protobuf>=([\d.]+)", line)))
    return floor


def floor_python() -> Path:
    """.venv-floor's python, checked to import the floor version of protobuf."""
    python = ROOT / ".venv-floor" / "bin" / "python"
    assert python.exists(), f"{python} is missing: scripts/test makes it"
    version = subprocess.run(
        [str(python), "-c", "import google.protobuf; print(google.protobuf.__version__)"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert version.startswith(floor_version() + "."), f"{python} has protobuf {version}, not {floor_version()}.*"
    return python


# Routes that answer a message as text, whose map entries each protobuf prints in its own order: upb (TensorBoard's,
# and trainboard's on the newest protobuf) in its hash tables' order, pure-Python protobuf (the floor's, on Python 3.11)
# sorted by key. Against the floor they are compared as the messages they print.
TEXT_MESSAGES: dict[str, type[Message]] = {
    "/data/plugin/graphs/graph": GraphDef,
    "/data/graph": GraphDef,
    "/data/plugin/graphs/run_metadata": RunMetadata,
    "/data/run_metadata": RunMetadata,
}


def printed_alike(path: str, body: Any) -> Any:
    """A text message of `path` printed by this process's protobuf, map entries sorted; any other body as it is."""
    kind = TEXT_MESSAGES.get(path)
    if kind is None or not isinstance(body, str):
        return body
    try:
        message = text_format.Parse(body, kind())
    except text_format.ParseError:
        return body
    return text_format.MessageToString(message)
