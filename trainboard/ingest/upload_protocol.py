"""The upload protocol (docs/upload.md), written once for both of its ends: `trainboard upload`
(`trainboard.uploader.client`) writes requests and reads answers with it, `trainboard serve` (`trainboard.http.upload`
over `trainboard.ingest.upload`) reads requests and writes answers with it.

A chunk travels as query parameters and a body. Each parameter is declared once (`CHUNK_PARAMETERS`): its name, its
JSON Schema (the OpenAPI document shows it) and how its value is written and read, by the bounds of that schema; so
what is documented is what is parsed, and what the client sends is what the server reads.

It sits in ingest, below both ends, and needs only the reader's values: the client imports no server code for it.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

import google_crc32c
import orjson

from trainboard.errors import InvalidArgumentError
from trainboard.names import check_name, loggable
from trainboard.normaliser.projector import AT_ROOT, IN_RUN
from trainboard.reader.dialect import file_dialect, is_projector_config, is_structure_graph_file
from trainboard.reader.logdir import FileStat
from trainboard.reader.received import Bytes, Spool
from trainboard.reader.tail import HEAD_SIZE, FileCursor, is_restarted

Schema = Mapping[str, Any]
T = TypeVar("T")

MAX_PATH_LENGTH = 4096
MAX_FORGET_PATHS = 100_000
# `parts` lists a projector config's files; no config names so many that their list is longer.
MAX_PARTS_LENGTH = 32 * 1024
MAX_INT64 = 2**63 - 1
# Seconds since the epoch, and not 1e12 of them (about the year 33658).
MAX_MTIME = 1e12
# The length of a head in base64.
MAX_HEAD_TEXT = 4 * -(-HEAD_SIZE // 3)


@dataclass(frozen=True, slots=True)
class Chunk:
    """Bytes of one file of a run, from `offset`, with the file's size, modification time and first bytes as the
    client saw them. A structure graph or projector config comes whole, a config with the files it names (`named`,
    by path, in the order they follow it in the body). `position` is the run's place in the client's logdir walk,
    `place` where a config lies in its run (`ingest.files.config_place`). The client's `data` are bytes, the server's
    a span of the body it spooled."""

    run: str
    path: str
    offset: int
    stat: FileStat
    head: bytes
    data: Bytes
    position: int = 0
    place: int = IN_RUN
    named: Mapping[str, bytes] = field(default_factory=dict)

    @property
    def whole(self) -> bool:
        return is_structure_graph_file(self.path) or is_projector_config(self.path)


def expected_offset(cursor: FileCursor | None, stat: FileStat, head: bytes, *, whole: bool) -> int:
    """Where the next bytes of a file must start: where it was read to, or 0 when it is new, truncated or replaced
    (and always 0 for a file read whole). The client sends from there, the server takes only that."""
    if whole or cursor is None or is_restarted(cursor, stat, head):
        return 0
    return cursor.offset


# The chunk's query parameters.


@dataclass(frozen=True, slots=True)
class QueryParameter(Generic[T]):
    """A query parameter: `schema` documents it, `write` gives its text and `read` its value back (an
    `InvalidArgumentError` naming it when the text is not of the schema). Without a default it is required."""

    name: str
    schema: Schema
    write: Callable[[T], str]
    read: Callable[[str, str], T]
    default: T | None = None
    # The text is a JSON document of the schema.
    json: bool = False
    max_length: int | None = None
    # An empty text counts as none (integers, as `trainboard.http.params` reads them).
    blank_is_absent: bool = False

    @property
    def required(self) -> bool:
        return self.default is None

    def item(self, value: T) -> tuple[str, str]:
        return self.name, self.write(value)

    def value(self, query: Mapping[str, str]) -> T:
        text = query.get(self.name)
        if text is None or (text == "" and self.blank_is_absent):
            if self.default is None:
                raise InvalidArgumentError(f"missing required query parameter {self.name!r}")
            return self.default
        check_name(text, f"query parameter {self.name!r}:")
        if self.max_length is not None and len(text) > self.max_length:
            raise InvalidArgumentError(f"query parameter {self.name!r} is longer than {self.max_length} characters")
        return self.read(self.name, text)


def _text(name: str, read: Callable[[str, str], str], *, max_length: int) -> QueryParameter[str]:
    return QueryParameter(name, {"type": "string", "maxLength": max_length}, str, read, max_length=max_length)


def _integer(name: str, *, maximum: int = MAX_INT64, default: int | None = None) -> QueryParameter[int]:
    def read(name: str, text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise InvalidArgumentError(f"query parameter {name!r} must be an integer, not {text[:100]!r}") from None
        if value < 0:
            raise InvalidArgumentError(f"query parameter {name!r} must be at least 0, not {value}")
        if value > maximum:
            raise InvalidArgumentError(f"query parameter {name!r} is too large (at most {maximum})")
        return value

    schema = {"type": "integer", "minimum": 0, "maximum": maximum}
    return QueryParameter(name, schema, str, read, default, blank_is_absent=True)


def _read_mtime(name: str, text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InvalidArgumentError(f"query parameter {name!r} must be a number, not {text[:100]!r}") from None
    if not 0 <= value < MAX_MTIME:
        raise InvalidArgumentError(f"query parameter {name!r} must be seconds since the epoch")
    return value


def _relative_path(value: str, name: str) -> str:
    """A '/'-separated path inside the client's logdir, as it is: no '..', '.', empty or absolute parts."""
    parts = value.split("/")
    if len(value) > MAX_PATH_LENGTH or any(part in ("", ".", "..") for part in parts) or "\\" in value:
        raise InvalidArgumentError(f"{name} '{loggable(value[:200])}' must be a '/'-separated path inside the logdir")
    return check_name(value, name)


def run_directory(run: str) -> str:
    """The directory of a run's files, relative to the logdir ("" for the root's run ".")."""
    return "" if run == "." else run


def in_run(run: str, path: str) -> bool:
    """Whether the file lies in the run's directory: beside its event files, or below them (its projector assets,
    the files a projector config names)."""
    directory = run_directory(run)
    return directory == "" or path.startswith(directory + "/")


def _read_run(name: str, text: str) -> str:
    return text if text == "." else _relative_path(text, name)


def _read_file_path(name: str, text: str) -> str:
    path = _relative_path(text, name)
    if not (file_dialect(path) or is_structure_graph_file(path) or is_projector_config(path)):
        raise InvalidArgumentError(f"{path!r} is no event file, structure graph or projector config")
    return path


def _write_head(head: bytes) -> str:
    return base64.urlsafe_b64encode(head).decode()


def _read_head(name: str, text: str) -> bytes:
    try:
        head = base64.b64decode(text + "=" * (-len(text) % 4), altchars=b"-_", validate=True)
    except (binascii.Error, ValueError):
        raise InvalidArgumentError(f"query parameter {name!r} must be base64url") from None
    if len(head) > HEAD_SIZE:
        raise InvalidArgumentError(f"query parameter {name!r} holds more than {HEAD_SIZE} bytes")
    return head


# A projector config's named files, by path, with the length of each in the body after the config.
Parts = tuple[tuple[str, int], ...]
PARTS_SCHEMA: Schema = {
    "type": "array",
    "items": {"type": "array", "prefixItems": [{"type": "string"}, {"type": "integer", "minimum": 0}]},
}


def _write_parts(parts: Parts) -> str:
    return orjson.dumps([[path, length] for path, length in parts]).decode()


def _read_parts(name: str, text: str) -> Parts:
    problem = f"query parameter {name!r} must be a JSON list of [path, length]"
    try:
        listed = orjson.loads(text)
    except orjson.JSONDecodeError:
        raise InvalidArgumentError(problem) from None
    if not isinstance(listed, list) or not all(
        isinstance(item, list)
        and len(item) == 2
        and isinstance(item[0], str)
        and isinstance(item[1], int)
        and not isinstance(item[1], bool)
        and item[1] >= 0
        for item in listed
    ):
        raise InvalidArgumentError(problem)
    return tuple((_relative_path(path, "part"), length) for path, length in listed)


RUN = _text("run", _read_run, max_length=MAX_PATH_LENGTH)
PATH = _text("path", _read_file_path, max_length=MAX_PATH_LENGTH)
OFFSET = _integer("offset")
SIZE = _integer("size")
MTIME: QueryParameter[float] = QueryParameter(
    "mtime", {"type": "number", "minimum": 0, "exclusiveMaximum": MAX_MTIME}, repr, _read_mtime
)
HEAD: QueryParameter[bytes] = QueryParameter(
    "head", {"type": "string", "maxLength": MAX_HEAD_TEXT}, _write_head, _read_head, max_length=MAX_HEAD_TEXT
)
CRC32C = _integer("crc32c", maximum=2**32 - 1)
POSITION = _integer("position", default=0)
# IN_RUN, IN_ASSETS or AT_ROOT.
PLACE = _integer("place", maximum=AT_ROOT, default=IN_RUN)
PARTS: QueryParameter[Parts] = QueryParameter(
    "parts", PARTS_SCHEMA, _write_parts, _read_parts, (), json=True, max_length=MAX_PARTS_LENGTH
)
# In the order the client sends them.
CHUNK_PARAMETERS: tuple[QueryParameter[Any], ...] = (
    RUN,
    PATH,
    OFFSET,
    SIZE,
    MTIME,
    HEAD,
    CRC32C,
    POSITION,
    PLACE,
    PARTS,
)


def chunk_request(chunk: Chunk) -> tuple[dict[str, str], bytes]:
    """The query and body that send `chunk`: the file's bytes, then the files a projector config names."""
    body = b"".join([chunk.data[:], *chunk.named.values()])
    query = dict(
        [
            RUN.item(chunk.run),
            PATH.item(chunk.path),
            OFFSET.item(chunk.offset),
            SIZE.item(chunk.stat.size),
            MTIME.item(chunk.stat.mtime),
            HEAD.item(chunk.head),
            CRC32C.item(google_crc32c.value(body)),
            POSITION.item(chunk.position),
            PLACE.item(chunk.place),
        ]
    )
    if chunk.named:
        query[PARTS.name] = PARTS.write(tuple((path, len(data)) for path, data in chunk.named.items()))
    return query, body


def read_chunk(query: Mapping[str, str], body: Spool) -> Chunk:
    """The chunk a request sends, its data a span of the body; an `InvalidArgumentError` naming what is wrong with
    it."""
    path = PATH.value(query)
    run = RUN.value(query)
    head = HEAD.value(query)
    stat = FileStat(size=SIZE.value(query), mtime=MTIME.value(query))
    if body.crc32c != CRC32C.value(query):
        raise InvalidArgumentError("the body's CRC-32C is not the crc32c parameter: it was damaged on the way")
    outside = [name for name in (path, *(part for part, _ in PARTS.value(query))) if not in_run(run, name)]
    if outside:
        raise InvalidArgumentError(
            f"path '{loggable(outside[0][:200])}' does not lie in the directory of run '{loggable(run)}'"
        )
    data, named = _split(body, PARTS.value(query))
    return Chunk(
        run=run,
        path=path,
        offset=OFFSET.value(query),
        stat=stat,
        head=head,
        data=data,
        position=POSITION.value(query),
        place=PLACE.value(query),
        named=named,
    )


def _split(body: Spool, parts: Parts) -> tuple[Bytes, dict[str, bytes]]:
    """The file's own bytes, and the named files that follow them at the end of the body (read whole, as the reader
    reads them)."""
    start = body.length - sum(length for _, length in parts)
    if start < 0:
        raise InvalidArgumentError(f"query parameter {PARTS.name!r} names more bytes than the body holds")
    named: dict[str, bytes] = {}
    position = start
    for path, length in parts:
        named[path] = body.read(position, length)
        position += length
    return body.span(0, start), named


# The answers to a chunk and to `GET files`.


def cursor_json(cursor: FileCursor | None) -> dict[str, object] | None:
    if cursor is None:
        return None
    return {"offset": cursor.offset, "size": cursor.size, "mtime": cursor.mtime, "head": _write_head(cursor.head)}


def read_cursor(path: str, found: Mapping[str, Any]) -> FileCursor:
    head = base64.urlsafe_b64decode(found["head"])
    return FileCursor(path=path, offset=found["offset"], size=found["size"], mtime=found["mtime"], head=head)


def files_json(cursors: Mapping[str, FileCursor]) -> dict[str, object]:
    """The answer to `GET files`: each file's committed cursor."""
    return {"files": {path: cursor_json(cursor) for path, cursor in cursors.items()}}


def read_files(answer: Mapping[str, Any]) -> dict[str, FileCursor]:
    files: Mapping[str, Mapping[str, Any]] = answer["files"]
    return {path: read_cursor(path, found) for path, found in files.items()}


@dataclass(frozen=True, slots=True)
class Receipt:
    """Where the file stands after a chunk: its committed cursor, and the points the chunk added."""

    cursor: FileCursor | None
    points: int

    def as_json(self) -> dict[str, object]:
        return {"cursor": cursor_json(self.cursor), "points": self.points}

    @classmethod
    def of_json(cls, path: str, answer: Mapping[str, Any]) -> Receipt:
        cursor = answer["cursor"]
        return cls(None if cursor is None else read_cursor(path, cursor), int(answer["points"]))


class OffsetMismatch(Exception):
    """The chunk does not start where the store would read the file from: send from `expected` (whole files: 0).
    Answered with 409."""

    def __init__(self, path: str, expected: int, cursor: FileCursor | None) -> None:
        super().__init__(f"{path}: the store reads this file from offset {expected}")
        self.expected = expected
        self.cursor = cursor

    def as_json(self) -> dict[str, object]:
        return {"error": str(self), "expected": self.expected, "cursor": cursor_json(self.cursor)}

    @classmethod
    def of_json(cls, path: str, answer: Mapping[str, Any]) -> OffsetMismatch:
        cursor = answer["cursor"]
        return cls(path, int(answer["expected"]), None if cursor is None else read_cursor(path, cursor))


class OtherRunsFile(Exception):
    """The chunk names a file that another run of the experiment holds: nothing is written. Answered with 409."""

    def __init__(self, path: str, run: str, owner: str) -> None:
        super().__init__(
            f"{loggable(path)}: a file of run '{loggable(owner)}', not of run '{loggable(run)}'; nothing was written"
        )
        self.run = run
        self.owner = owner

    def as_json(self) -> dict[str, object]:
        return {"error": str(self), "run": self.run, "owner": self.owner}


# `POST forget`.

FORGET_SCHEMA: Schema = {
    "type": "object",
    "properties": {"paths": {"type": "array", "maxItems": MAX_FORGET_PATHS, "items": {"type": "string"}}},
    "required": ["paths"],
}


def forget_body(paths: Collection[str]) -> bytes:
    return orjson.dumps({"paths": list(paths)})


def read_forget(body: bytes) -> list[str]:
    """The paths a `POST forget` names; an `InvalidArgumentError` for any other body."""
    try:
        found = orjson.loads(body)
    except orjson.JSONDecodeError:
        raise InvalidArgumentError('expected {"paths": [PATH, ...]}') from None
    paths = found.get("paths") if isinstance(found, dict) else None
    if not isinstance(paths, list) or len(paths) > MAX_FORGET_PATHS or not all(isinstance(p, str) for p in paths):
        raise InvalidArgumentError(f'expected {{"paths": [PATH, ...]}}, at most {MAX_FORGET_PATHS} paths')
    return paths
