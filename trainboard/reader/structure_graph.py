"""TS-VIS's structure graph files: JSON beside the event files (`<name>.json`, written by TS-VIS's add_json_graph),
each a list of models in the Keras style (`[{"class_name", "backend", "config": {"layers": [...]}}]`). A file is
read whole, again whenever its size, modification time or first bytes change."""

from __future__ import annotations

import json
import logging
from typing import Any

from trainboard.names import loggable
from trainboard.reader.logdir import RunSource
from trainboard.reader.tail import HEAD_SIZE, FileCursor

logger = logging.getLogger("trainboard.reader")

# Larger JSON files are not read: no model's structure comes near, and a big JSON file is some other data.
MAX_SIZE = 64 << 20


def read_structure_graph(
    logdir: RunSource, cursor: FileCursor | None, path: str
) -> tuple[list[Any] | None, FileCursor]:
    """The file's models when it changed since `cursor` and holds a structure graph (else None), and its new cursor.
    A structure graph begins with a list of models naming their class; other JSON is left alone, and a malformed
    structure graph is logged."""
    try:
        found = logdir.stat(path)
        size = found.size
        with logdir.open(path) as stream:
            head = stream.read(HEAD_SIZE)
            if cursor is not None and cursor.size == size and cursor.mtime == found.mtime and cursor.head == head:
                return None, cursor
            done = FileCursor(path=path, offset=size, size=size, mtime=found.mtime, head=head)
            if not looks_like_structure_graph(head):
                return None, done  # other JSON (configs, metrics...): not a list of models
            if size > MAX_SIZE:
                logger.warning("%s: %d bytes of JSON, more than a structure graph holds; skipped", loggable(path), size)
                return None, done
            text = head + stream.read()
    except FileNotFoundError:
        # A file that vanished keeps what was read from it.
        return None, cursor or FileCursor(path=path, offset=0, size=0, mtime=0.0, head=b"")
    try:
        models = json.loads(text)
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        logger.info("%s: not JSON (%s); skipped", loggable(path), error)
        return None, done
    if not (isinstance(models, list) and models and all(_is_model(model) for model in models)):
        logger.info("%s: JSON that is no structure graph; skipped", loggable(path))
        return None, done
    return models, done


def _is_model(model: Any) -> bool:
    return (
        isinstance(model, dict)
        and isinstance(model.get("class_name"), str)
        and isinstance(model.get("config"), dict)
        and isinstance(model["config"].get("layers"), list)
    )


def looks_like_structure_graph(head: bytes) -> bool:
    """Whether a JSON file's first bytes begin a list of models naming their class."""
    return head.lstrip().startswith(b"[") and b"class_name" in head
