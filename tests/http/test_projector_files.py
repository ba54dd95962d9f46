"""The projector serves the files a run's projector_config.pbtxt names, and nothing outside the config's directory,
whatever the config says."""

from __future__ import annotations

import os
from pathlib import Path

import httpx
import numpy as np

from tests.servers import trainboard_in_process
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import write_record

CONFIG = """embeddings {{
  tensor_name: "{name}"
  tensor_path: "{tensor}"
  metadata_path: "{metadata}"
}}
"""


def write_run(run: Path, configs: list[tuple[str, str, str]]) -> None:
    run.mkdir(parents=True)
    with (run / "events.out.tfevents.1.host").open("wb") as stream:
        write_record(stream, Event(wall_time=1.0, file_version="brain.Event:2").SerializeToString())
    text = "".join(CONFIG.format(name=name, tensor=tensor, metadata=metadata) for name, tensor, metadata in configs)
    (run / "projector_config.pbtxt").write_text(text)


def test_tensors_and_metadata_are_served_and_path_tricks_refused(tmp_path: Path) -> None:
    secret = tmp_path / "secret.tsv"
    secret.write_text("1\t2\n3\t4\n")
    logdir = tmp_path / "logs"
    run = logdir / "run"
    write_run(
        run,
        [
            ("good", "data/tensors.tsv", "data/metadata.tsv"),
            ("escape", "../../secret.tsv", "../../secret.tsv"),
            ("absolute", str(secret), str(secret)),
            ("linked", "link/secret.tsv", "link/secret.tsv"),
        ],
    )
    (run / "data").mkdir()
    vectors = np.arange(12, dtype=np.float32).reshape(4, 3)
    (run / "data" / "tensors.tsv").write_text("".join("\t".join(map(str, row)) + "\n" for row in vectors.tolist()))
    (run / "data" / "metadata.tsv").write_text("label\tsplit\na\ttrain\nb\ttrain\nc\ttest\nd\ttest\n")
    os.symlink(tmp_path, run / "link")
    with trainboard_in_process(logdir, tmp_path / "scratch") as server, httpx.Client(base_url=server.url) as client:
        assert client.get("/data/plugins_listing").json()["projector"]["enabled"] is True
        assert client.get("/data/plugin/projector/runs").json() == ["run"]
        info = client.get("/data/plugin/projector/info", params={"run": "run"}).json()
        assert info["embeddings"][0]["tensorShape"] == [4, 3]
        tensor = client.get("/data/plugin/projector/tensor", params={"run": "run", "name": "good"})
        assert np.frombuffer(tensor.content, dtype="<f4").reshape(4, 3).tolist() == vectors.tolist()
        two = client.get("/data/plugin/projector/metadata", params={"run": "run", "name": "good", "num_rows": "2"})
        assert two.text == "label\tsplit\na\ttrain\nb\ttrain\n"
        for name in ("escape", "absolute", "linked"):
            for route in ("tensor", "metadata"):
                answer = client.get(f"/data/plugin/projector/{route}", params={"run": "run", "name": name})
                assert answer.status_code == 400, (name, route, answer.text)
                assert "outside the config directory" in answer.text
                assert "3\t4" not in answer.text
