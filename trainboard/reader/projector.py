"""TensorBoard's projector files: a run's `projector_config.pbtxt` and the tensor, metadata, bookmarks and sprite files
its embeddings name. The config is read whole again whenever its size, modification time or first bytes change, and
with it every file it names that resolves inside the config's own directory. A path that leaves that directory (by
`..`, an absolute path or a symbolic link) is recorded as refused and never read, so a store never holds it."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from google.protobuf import text_format

from trainboard.names import loggable
from trainboard.reader.logdir import RunSource
from trainboard.reader.protos.projector_config_pb2 import ProjectorConfig
from trainboard.reader.tail import HEAD_SIZE, FileCursor

logger = logging.getLogger("trainboard.reader")

# A larger config is some other file: a config names files, it does not hold data.
MAX_CONFIG_SIZE = 16 << 20


@dataclass(frozen=True, slots=True)
class NamedFile:
    """A file a config names: `name` as the config spells it, `path` where it resolves (None: outside the config's
    directory, refused), `data` its bytes (None when refused, missing or unreadable)."""

    name: str
    path: str | None
    data: bytes | None


@dataclass(frozen=True, slots=True)
class ProjectorFiles:
    path: str
    config: bytes
    # Read one at a time, as the writer takes them.
    files: Iterator[NamedFile]


class TensorShapeError(ValueError):
    """A binary tensor file without a 2-D shape in its config."""


def read_projector_files(
    logdir: RunSource, cursor: FileCursor | None, path: str
) -> tuple[ProjectorFiles | None, FileCursor]:
    """The config and the files it names when the config changed since `cursor` (else None), and its new cursor."""
    try:
        found = logdir.stat(path)
        with logdir.open(path) as stream:
            head = stream.read(HEAD_SIZE)
            if cursor is not None and (cursor.size, cursor.mtime, cursor.head) == (found.size, found.mtime, head):
                return None, cursor
            done = FileCursor(path=path, offset=found.size, size=found.size, mtime=found.mtime, head=head)
            if found.size > MAX_CONFIG_SIZE:
                logger.warning("%s: %d bytes, more than a projector config holds; skipped", loggable(path), found.size)
                return None, done
            config = head + stream.read()
    except FileNotFoundError:
        # A config that vanished keeps what was read with it until the file is forgotten.
        return None, cursor or FileCursor(path=path, offset=0, size=0, mtime=0.0, head=b"")
    return ProjectorFiles(path, config, _named_files(logdir, path, config)), done


def named_paths(config: bytes) -> list[str]:
    """The paths a config's embeddings name, each once, in order; none when it is no projector config."""
    paths = [
        name
        for embedding in _parsed(config).embeddings
        for name in (
            embedding.tensor_path,
            embedding.metadata_path,
            embedding.bookmarks_path,
            embedding.sprite.image_path,
        )
        if name
    ]
    return list(dict.fromkeys(paths))


def tensor_paths(config: bytes) -> list[str]:
    return [embedding.tensor_path for embedding in _parsed(config).embeddings if embedding.tensor_path]


def _parsed(config: bytes) -> ProjectorConfig:
    parsed = ProjectorConfig()
    try:
        text_format.Parse(config.decode("utf-8"), parsed)
    except (UnicodeDecodeError, text_format.ParseError):
        return ProjectorConfig()
    return parsed


def _named_files(logdir: RunSource, config_path: str, config: bytes) -> Iterator[NamedFile]:
    for name in named_paths(config):
        resolved = logdir.resolve(name, config_path)
        if resolved is None:
            logger.warning("%s: %r resolves outside the config's directory; not read", loggable(config_path), name)
            yield NamedFile(name, None, None)
            continue
        try:
            with logdir.open(resolved) as stream:
                yield NamedFile(name, resolved, stream.read())
        except OSError:
            yield NamedFile(name, resolved, None)


def parse_tensor(data: bytes, shape: Sequence[int]) -> np.ndarray:
    """An embedding's tensor as float32 rows: tab-separated text, or else raw float32 of the config's 2-D shape.
    Raises ValueError (TensorShapeError without a 2-D shape) when it is neither."""
    try:
        with io.TextIOWrapper(io.BytesIO(data), encoding="utf-8") as stream:
            rows = [list(map(float, line.rstrip("\n").split("\t"))) for line in stream if line.rstrip("\n")]
        return np.array(rows, dtype=np.float32)
    except UnicodeDecodeError:
        if len(shape) != 2:
            raise TensorShapeError(f"Tensor must be 2D, got shape {list(shape)}") from None
        return np.frombuffer(data[: len(data) // 4 * 4], dtype=np.float32).reshape(tuple(shape))


def tensor_shape(data: bytes, shape: Sequence[int]) -> list[int] | None:
    """The shape the projector reports for a tensor file, or None when it cannot be read."""
    try:
        tensor = parse_tensor(data, shape)
    except ValueError:
        return None
    return list(tensor.shape) if tensor.ndim == 2 else [len(tensor), 0]
