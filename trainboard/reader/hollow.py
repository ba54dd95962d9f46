"""Parsing a large record's Event without copying its large bytes fields.

protobuf copies every bytes field it parses (and again each time one is read), so a 200 MB tensor would be held three
times. Here a small walker of the protobuf wire format finds the fields that can be large (a tensor's content and
strings, an image's or audio's encoding, graphs and run metadata) and writes a copy of the Event in which each one of
at least LARGE_FIELD bytes is replaced by a short marker. That hollow Event is parsed and normalised as any other; the
normaliser then fills its points back (`Pieces.blob`, `Pieces.tensor`): a blob that is a marker becomes a view of the
record's bytes, and a tensor that holds markers becomes a view of the tensor's own bytes in the record, or, where the
tensor was rebuilt (TS-VIS's records), the rebuilt one with its content spliced back in once.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Union

# Records at least this large are parsed hollow; fields at least this large are left out of the parse.
LARGE_RECORD = 4 << 20
LARGE_FIELD = 1 << 20

_LENGTH_DELIMITED = 2
# The length-delimited fields that lead to large bytes, per message: a nested schema, or None for the bytes themselves.
Schema = dict[int, Union["Schema", None]]
TENSOR: Schema = {4: None, 8: None}  # TensorProto: tensor_content, string_val (TS-VIS's TensorProto too)
_VALUE: Schema = {8: TENSOR, 4: {4: None}, 6: {4: None}}  # Summary.Value: tensor, image and audio encodings
# A TS-VIS Summary.Value's field 7 holds a Projector whose exception's Tensor has its content in field 3.
_TSVIS_VALUE: Schema = {**_VALUE, 7: {2: {1: {3: None}}}}
# Event: graph_def, meta_graph_def, tagged_run_metadata.run_metadata, summary.value.
EVENT: Schema = {4: None, 9: None, 8: {2: None}, 5: {1: _VALUE}}
TSVIS_EVENT: Schema = {4: None, 9: None, 8: {2: None}, 5: {1: _TSVIS_VALUE}}

# Markers name their piece with a token of this process, so no logged bytes can pass for one.
_PREFIX = b"\0trainboard hollow " + os.urandom(8).hex().encode() + b" "


@dataclass(slots=True)
class Pieces:
    """The large fields left out of hollow Events, by marker: their bytes, and the bytes of the TensorProto holding
    them when that TensorProto is kept as it is (`exact`)."""

    contents: dict[bytes, memoryview] = field(default_factory=dict)
    tensors: dict[bytes, memoryview] = field(default_factory=dict)

    def __bool__(self) -> bool:
        return bool(self.contents)

    def blob(self, data: bytes | memoryview) -> bytes | memoryview:
        """A blob, its bytes filled back when it is a marker."""
        return self.contents.get(data, data) if isinstance(data, bytes) and data.startswith(_PREFIX) else data

    def tensor(self, serialized: bytes | memoryview) -> bytes | memoryview:
        """A serialized TensorProto with the fields left out filled back: the record's own bytes of the tensor when
        it holds one, else its markers spliced out (each a top-level field of the tensor, after its one-byte
        length)."""
        if isinstance(serialized, memoryview) or _PREFIX not in serialized:
            return serialized
        markers = self._markers(serialized)
        if not markers:
            return serialized
        whole = {id(self.tensors.get(marker)) for marker in markers}
        if len(whole) == 1 and markers[0] in self.tensors:
            return self.tensors[markers[0]]
        parts: list[bytes | memoryview] = []
        position = 0
        for marker in markers:
            at = serialized.index(marker, position)
            parts += [serialized[position : at - 1], _varint(len(self.contents[marker])), self.contents[marker]]
            position = at + len(marker)
        parts.append(serialized[position:])
        return b"".join(parts)

    def _markers(self, serialized: bytes) -> list[bytes]:
        found = []
        position = serialized.find(_PREFIX)
        while position >= 0:
            end = serialized.index(b"\0", position + 1) + 1
            found.append(serialized[position:end])
            position = serialized.find(_PREFIX, end)
        return [marker for marker in found if marker in self.contents]


def hollow(payload: memoryview, schema: Schema, pieces: Pieces, *, exact_tensors: bool) -> bytes:
    """The message in `payload` with its large fields (by `schema`) replaced by markers, recorded in `pieces`.
    `exact_tensors`: the TensorProtos of `TENSOR` are kept as they are (TensorBoard's), not rebuilt (TS-VIS's).
    Raises ValueError on malformed wire data."""
    return bytes(_hollow(payload, 0, len(payload), schema, None, pieces, exact_tensors))


def _hollow(
    data: memoryview,
    start: int,
    end: int,
    schema: Schema,
    tensor: memoryview | None,
    pieces: Pieces,
    exact_tensors: bool,
) -> bytearray:
    out = bytearray()
    position = start
    while position < end:
        key, body = _read_varint(data, position, end)
        number, wire = key >> 3, key & 7
        if wire == _LENGTH_DELIMITED:
            length, content = _read_varint(data, body, end)
            after = content + length
            if after > end:
                raise ValueError("a field runs past its message")
            if number in schema:
                inner = schema[number]
                if inner is None and length >= LARGE_FIELD:
                    marker = _PREFIX + str(len(pieces.contents)).encode() + b"\0"
                    pieces.contents[marker] = data[content:after]
                    if tensor is not None:
                        pieces.tensors[marker] = tensor
                    out += data[position:body]
                    out += _varint(len(marker)) + marker
                    position = after
                    continue
                if inner is not None and length >= LARGE_FIELD:
                    holder = data[content:after] if inner is TENSOR and exact_tensors else tensor
                    nested = _hollow(data, content, after, inner, holder, pieces, exact_tensors)
                    out += data[position:body]
                    out += _varint(len(nested))
                    out += nested
                    position = after
                    continue
        elif wire == 0:
            _, after = _read_varint(data, body, end)
        elif wire == 1:
            after = body + 8
        elif wire == 5:
            after = body + 4
        else:
            raise ValueError(f"wire type {wire}")
        if after > end:
            raise ValueError("a field runs past its message")
        out += data[position:after]
        position = after
    return out


def _read_varint(data: memoryview, position: int, end: int) -> tuple[int, int]:
    value = shift = 0
    while shift < 64:
        if position >= end:
            raise ValueError("a varint runs past its message")
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        if byte < 0x80:
            return value, position
        shift += 7
    raise ValueError("a varint longer than 10 bytes")


def _varint(value: int) -> bytes:
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)
