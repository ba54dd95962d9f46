"""A table (trainboard/api/frames.py) through Arrow IPC and back, losslessly: a server's frames for
`trainboard.open("http://...")`, so that they become the same data frames as a local store's.

Arrays go as Arrow arrays and labels as dictionary arrays, both without a Python object per row. A list column goes
as an Arrow array of its own type where every value has one Python type (str, bytes, int, float or bool; None
allowed); otherwise (numpy arrays, tuples, mixed types) each value is encoded apart (`_encode`), and the field's
metadata says so.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from trainboard.api.frames import Labels, Table

MEDIA_TYPE = "application/vnd.apache.arrow.stream"
# Field metadata: how a column was sent.
KIND = b"trainboard.column"
ARRAY, LABELS, PLAIN, ENCODED = b"array", b"labels", b"plain", b"encoded"
_PLAIN_TYPES = (str, bytes, int, float, bool)


def to_arrow(table: Table) -> Any:
    """The table as a pyarrow table whose schema's field metadata lets `from_arrow` rebuild it."""
    import pyarrow as pa

    arrays, fields = [], []
    for name, column in table.items():
        if isinstance(column, Labels):
            array = pa.DictionaryArray.from_arrays(
                pa.array(column.codes, type=pa.int32()), pa.array(list(column.names), type=pa.string())
            )
            kind = LABELS
        elif isinstance(column, np.ndarray):
            array, kind = pa.array(column), ARRAY
        elif _plain(column):
            array, kind = pa.array(column), PLAIN
        else:
            array, kind = pa.array([_encode(value) for value in column], type=pa.binary()), ENCODED
        arrays.append(array)
        fields.append(pa.field(name, array.type, metadata={KIND: kind}))
    return pa.Table.from_arrays(arrays, schema=pa.schema(fields))


def from_arrow(arrow: Any) -> Table:
    """The table `to_arrow` sent."""
    table: Table = {}
    for field, column in zip(arrow.schema, arrow.columns, strict=True):
        kind = (field.metadata or {}).get(KIND, ARRAY)
        chunk = column.combine_chunks()
        if kind == LABELS:
            table[field.name] = Labels(
                chunk.indices.to_numpy(zero_copy_only=False).astype(np.int32), chunk.dictionary.to_pylist()
            )
        elif kind == PLAIN:
            table[field.name] = chunk.to_pylist()
        elif kind == ENCODED:
            table[field.name] = [_decode(value) for value in chunk.to_pylist()]
        else:
            table[field.name] = chunk.to_numpy(zero_copy_only=False)
    return table


def _plain(column: list[Any]) -> bool:
    types = {type(value) for value in column if value is not None}
    return len(types) == 1 and types.pop() in _PLAIN_TYPES


def _encode(value: Any) -> bytes | None:
    """One value of a list column: b"n" and a numeric array as `np.save` writes it; b"o" and an array of strings or
    bytes as JSON; b"b" and bytes; b"t" and a tuple as JSON; b"j" and any other value as JSON."""
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "O":
            items = value.ravel().tolist()
            binary = any(isinstance(item, bytes) for item in items)
            # latin-1 maps every byte to one character and back.
            strings = [item.decode("latin-1") if isinstance(item, bytes) else item for item in items]
            return b"o" + json.dumps({"shape": value.shape, "bytes": binary, "items": strings}).encode()
        import io

        buffer = io.BytesIO()
        np.save(buffer, value, allow_pickle=False)
        return b"n" + buffer.getvalue()
    if isinstance(value, bytes):
        return b"b" + value
    if isinstance(value, tuple):
        return b"t" + json.dumps(list(value)).encode()
    return b"j" + json.dumps(value).encode()


def _decode(encoded: bytes | None) -> Any:
    if encoded is None:
        return None
    tag, body = encoded[:1], encoded[1:]
    if tag == b"n":
        import io

        return np.load(io.BytesIO(body), allow_pickle=False)
    if tag == b"o":
        found = json.loads(body)
        items = [item.encode("latin-1") for item in found["items"]] if found["bytes"] else found["items"]
        array = np.empty(len(items), dtype=object)
        array[:] = items
        return array.reshape(found["shape"])
    if tag == b"b":
        return body
    if tag == b"t":
        return tuple(json.loads(body))
    return json.loads(body)
