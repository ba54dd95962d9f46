"""Decoding a record's payload as a TensorBoard Event (TS-VIS's records translated, by the file's name)."""

from __future__ import annotations

import logging

from google.protobuf.message import DecodeError

from trainboard.names import loggable
from trainboard.reader import tsvis
from trainboard.reader.dialect import Dialect, file_dialect
from trainboard.reader.hollow import EVENT, LARGE_RECORD, TSVIS_EVENT, Pieces, hollow
from trainboard.reader.protos.event_pb2 import Event

logger = logging.getLogger("trainboard.reader")


def parse_event(payload: bytes | memoryview, *, path: str, offset: int, pieces: Pieces | None = None) -> Event | None:
    """The Event in `payload`, or None (logged with path and offset) when it is not a valid Event. Given `pieces`, a
    payload of LARGE_RECORD bytes or more is parsed hollow (`trainboard.reader.hollow`), its large fields put in
    `pieces`."""
    dialect = file_dialect(path)
    try:
        if pieces is not None and len(payload) >= LARGE_RECORD:
            try:
                payload = hollow(
                    memoryview(payload),
                    TSVIS_EVENT if dialect is Dialect.TSVIS else EVENT,
                    pieces,
                    exact_tensors=dialect is not Dialect.TSVIS,
                )
            except ValueError:
                pass  # not an Event's wire format: parsed whole, protobuf says what is wrong
        event = Event.FromString(payload)  # type: ignore[arg-type]  # upb takes any buffer
        return tsvis.translate(event) if dialect is Dialect.TSVIS else event
    except DecodeError as error:
        logger.warning("%s: record at offset %d is not a valid Event (%s); skipped", loggable(path), offset, error)
        return None
