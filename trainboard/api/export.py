"""`trainboard export`: every point of an experiment to Parquet (a dataset per kind, partitioned by run), CSV or
JSON Lines (a file per kind), or back to TensorBoard event files (trainboard/api/tfevents.py). Where runs have
metadata (display names, notes, labels, stars, colours), it goes too, as the kind `run_metadata` (one row per run);
event files have no place for it."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import numpy as np

from trainboard.api.experiment import Experiment
from trainboard.api.frames import Labels, Table, arrow_table
from trainboard.api.tfevents import write_tfevents
from trainboard.settings import EXPORT_FORMATS, Settings

# The rows of a Parquet row group: a run of many points is one file of few groups.
PARQUET_ROW_GROUP = 1 << 20
# The rows a JSON Lines file is written by, at a time.
JSON_BATCH = 65_536


def kinds(experiment: Experiment) -> dict[str, Callable[[], Table]]:
    return {
        "scalars": experiment.scalars_table,
        "histograms": experiment.histograms_table,
        "tensors": lambda: _numeric(experiment.tensors_table(plugin=None)),
        "text": lambda: _flat_text(experiment.text_table()),
    }


def export(experiment: Experiment, form: str, out: Path) -> dict[str, int]:
    """Writes each kind that has points under `out` (a directory); returns the rows (points for tfevents) written by
    kind."""
    if form not in EXPORT_FORMATS:
        raise ValueError(f"format must be one of {', '.join(EXPORT_FORMATS)}, not {form!r}")
    out.mkdir(parents=True, exist_ok=True)
    if form == "tfevents":
        return write_tfevents(experiment, out)
    written: dict[str, int] = {}
    every: dict[str, Callable[[], Table]] = {
        **kinds(experiment),
        "run_metadata": lambda: experiment.run_metadata_table(every_run=False),
    }
    for kind, read in every.items():
        table = arrow_table(read())
        if table.num_rows == 0:
            continue
        if form == "parquet":
            _parquet(table, out / kind)
        elif form == "csv":
            _csv(table, out / f"{kind}.csv")
        else:
            _jsonl(table, out / f"{kind}.jsonl")
        written[kind] = table.num_rows
    return written


def _numeric(table: Table) -> Table:
    """The numeric tensors, values as float64 (strings are in the text export)."""
    dtypes = table["dtype"]
    assert isinstance(dtypes, list)
    keep = np.array([dtype != "object" for dtype in dtypes], dtype=np.bool_)
    result: Table = {}
    for name, column in table.items():
        if isinstance(column, Labels):
            result[name] = Labels(column.codes[keep], column.names)
        elif isinstance(column, list):
            result[name] = [value for value, kept in zip(column, keep.tolist(), strict=True) if kept]
        else:
            result[name] = column[keep]
    result["value"] = [np.asarray(value, dtype=np.float64) for value in result["value"]]  # type: ignore[union-attr]
    return result


def _flat_text(table: Table) -> Table:
    """A text table (an array of strings) as the JSON of its nested lists."""
    texts = table["text"]
    assert isinstance(texts, list)
    return {**table, "text": [t if isinstance(t, str) else json.dumps(np.asarray(t).tolist()) for t in texts]}


def _parquet(table: Any, directory: Path) -> None:
    """A Hive-partitioned dataset, a folder per run (`run=<URI-escaped name>`) of one file of large row groups.
    Written a file at a time with `pyarrow.parquet`, not by `pyarrow.dataset.write_dataset`, whose threads can
    outlive the call and abort the process as Python exits (apache/arrow#36980)."""
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    if directory.exists():
        shutil.rmtree(directory)
    runs = table.column("run").combine_chunks()
    if not pa.types.is_dictionary(runs.type):
        runs = runs.dictionary_encode()  # a code per row, a name per code
    order = pc.sort_indices(runs.indices)  # stable: each run's rows keep their order
    by_run = table.take(order).drop_columns(["run"])
    start = 0
    for count in pc.value_counts(runs.indices.take(order)).to_pylist():
        folder = directory / f"run={quote(runs.dictionary[count['values']].as_py(), safe='')}"
        folder.mkdir(parents=True)
        rows = by_run.slice(start, count["counts"])
        pq.write_table(rows, folder / "part-0.parquet", row_group_size=PARQUET_ROW_GROUP)
        start += count["counts"]


def _csv(table: Any, path: Path) -> None:
    import pyarrow as pa
    import pyarrow.csv as csv

    columns = [_plain(table.column(name), pa) for name in table.column_names]
    csv.write_csv(pa.table(columns, names=table.column_names), path)


def _plain(column: Any, pa: Any) -> Any:
    """Labels as strings; lists (tensor values and shapes) as JSON text."""
    if pa.types.is_dictionary(column.type):
        return column.cast(pa.string())
    if pa.types.is_list(column.type) or pa.types.is_large_list(column.type):
        return pa.array([None if v is None else json.dumps(v) for v in column.to_pylist()], type=pa.string())
    if pa.types.is_binary(column.type):
        return pa.array([None if v is None else v.hex() for v in column.to_pylist()], type=pa.string())
    return column


def _jsonl(table: Any, path: Path) -> None:
    """JSON as Python writes it: NaN and infinities as NaN, Infinity and -Infinity (JSON itself has none)."""
    with path.open("w") as stream:
        for batch in table.to_batches(JSON_BATCH):
            for row in batch.to_pylist():
                stream.write(json.dumps({k: _json_value(v) for k, v in row.items()}))
                stream.write("\n")


def _json_value(value: Any) -> Any:
    return value.hex() if isinstance(value, bytes) else value


def run_export(experiment: Experiment, settings: Settings) -> None:
    """The command's work once its experiment is open (trainboard.wiring.export): written, and said so."""
    written = export(experiment, settings.format, Path(settings.out))
    for kind, rows in written.items():
        print(f"{kind}: {rows:,} rows", file=sys.stderr)
    print(f"Exported {experiment.name!r} to {settings.out} ({settings.format})", file=sys.stderr)
