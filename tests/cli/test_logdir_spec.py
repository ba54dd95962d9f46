"""--logdir_spec parsed and its runs named as TensorBoard 2.21 does, checked against TensorBoard's own parser."""

from __future__ import annotations

from pathlib import Path

import pytest
from tensorboard.backend.event_processing.data_ingester import _parse_event_files_spec

from tests.cli.logs import write_run
from trainboard.reader.logdir_spec import LogDirSpec, parse_logdir_spec

SPECS = [
    "first:/tmp/a,second:/tmp/b",
    "/tmp/plain",
    "relative/dir",
    "name:relative/dir",
    "~/runs",
    "home:~/runs",
    "/path:with/colon",
    "name:/path:with/colon",
    "s3://bucket/runs",
    "remote:s3://bucket/runs",
    "gs://bucket/x,local:/tmp/y,/tmp/z",
    "same:/tmp/a,other:/tmp/a",
    "a.b+c:/tmp/x",
]


@pytest.mark.parametrize("spec", SPECS)
def test_parsed_as_tensorboard_parses_it(spec: str) -> None:
    assert parse_logdir_spec(spec) == _parse_event_files_spec(spec)


def test_empty_items_are_ignored_where_tensorboard_reads_the_current_directory() -> None:
    assert parse_logdir_spec("a:/tmp/x,") == {"/tmp/x": "a"}
    assert parse_logdir_spec("") == {}


def test_runs_are_named_by_group_and_a_file_two_items_reach_is_read_once(tmp_path: Path) -> None:
    write_run(tmp_path / "a" / "x" / "deep")
    write_run(tmp_path / "a")
    write_run(tmp_path / "b")
    spec = LogDirSpec(f"outer:{tmp_path / 'a'},inner:{tmp_path / 'a' / 'x'},{tmp_path / 'b'}")
    runs = spec.runs()
    assert sorted(runs) == [".", "outer/.", "outer/x/deep"]
    deep = runs["outer/x/deep"][0]
    assert spec.stat(deep).size == (tmp_path / "a" / "x" / "deep" / "events.out.tfevents.1.host").stat().st_size
    with spec.open(runs["."][0]) as stream:
        assert stream.read() == (tmp_path / "b" / "events.out.tfevents.1.host").read_bytes()
    with pytest.raises(PermissionError, match="is in none of the log directories"):
        spec.open(str(tmp_path / "elsewhere"))
