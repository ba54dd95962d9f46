"""Decoding a record's payload as a TensorBoard Event (TS-VIS's records translated, by the file's name)."""

from __future__ import annotations

import logging

from google.protobuf.message import DecodeError

from trainboard.reader import tsvis
from trainboard.reader.dialect import Dialect, file_dialect
from trainboard.reader.protos.event_pb2 import Event

logger = logging.getLogger("trainboard.reader")


def parse_event(payload: bytes, *, path: str, offset: int) -> Event | None:
    """The Event in `payload`, or None (logged with path and offset) when it is not a valid Event."""
    try:
        event = Event.FromString(payload)
        return tsvis.translate(event) if file_dialect(path) is Dialect.TSVIS else event
    except DecodeError as error:
        logger.warning("%s: record at offset %d is not a valid Event (%s); skipped", path, offset, error)
        return None
