"""What the run filter compares, as the store keeps it: each run's hyperparameters (from its hparams session start)
and each scalar chunk's last value (a series' final value is its last chunk's)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field

from trainboard.normaliser.points import SeriesMetadata
from trainboard.reader.hparams_names import HPARAMS_PLUGIN, SESSION_START_INFO_TAG
from trainboard.store.values import ScalarColumns

# (name, number, text): a bool as 1.0 or 0.0, a number (not NaN), or a string.
HParamRow = tuple[str, float | None, str | None]
# What a backend reads: (run, kind "h" or "m" or None for a run without values, key, number, text).
ValueRow = tuple[str, str | None, str | None, float | None, str | None]


@dataclass(frozen=True, slots=True)
class RunValues:
    run: str
    hparams: dict[str, float | str] = field(default_factory=dict)
    # The last value of each of the run's scalar series, by tag (NaN is left out).
    metrics: dict[str, float] = field(default_factory=dict)


def session_hparams(metadata: dict[str, SeriesMetadata]) -> list[HParamRow] | None:
    """The hyperparameters of a batch's hparams session start, None when it has none."""
    found = metadata.get(SESSION_START_INFO_TAG)
    if found is None or found.plugin_name != HPARAMS_PLUGIN:
        return None
    return hparam_rows(found.plugin_content)


def hparam_rows(content: bytes) -> list[HParamRow]:
    # Imported by the first session written, not by a server that only reads (trainboard.http.lazy).
    from google.protobuf.message import DecodeError

    from trainboard.reader.protos.hparams_pb2 import HParamsPluginData

    try:
        data = HParamsPluginData.FromString(content)
    except DecodeError:
        return []
    if data.WhichOneof("data") != "session_start_info":
        return []
    rows: list[HParamRow] = []
    for name, value in data.session_start_info.hparams.items():
        kind = value.WhichOneof("kind")
        if kind == "number_value" and not math.isnan(value.number_value):
            rows.append((name, value.number_value, None))
        elif kind == "bool_value":
            rows.append((name, float(value.bool_value), None))
        elif kind == "string_value":
            rows.append((name, None, value.string_value))
    return rows


def final_value(columns: ScalarColumns) -> float | None:
    """The last value of a chunk; None for NaN (what SQLite stores NaN as, and PostgreSQL is told the same)."""
    if not len(columns):
        return None
    value = float(columns.values[-1])
    return None if math.isnan(value) else value


def run_values(rows: Iterable[ValueRow]) -> list[RunValues]:
    """Rows gathered by run, in the order of their first row."""
    found: dict[str, RunValues] = {}
    for run, kind, key, number, text in rows:
        values = found.setdefault(run, RunValues(run))
        if key is None:
            continue
        if kind == "h":
            value = number if number is not None else text
            if value is not None:
                values.hparams[key] = value
        elif number is not None and not math.isnan(number):
            values.metrics[key] = number
    return list(found.values())
