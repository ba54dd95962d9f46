"""--ui tensorboard over HTTP: TensorBoard's files from its webfiles.zip, with its headers, at / or under
--path_prefix; without the tensorboard package the flag is refused with a clear message."""

from __future__ import annotations

import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import httpx
import pytest

from tests import loopback
from tests.http.test_index_page import HOSTILE, write_hostile_logdir
from tests.servers import trainboard_in_process
from trainboard.http.ui.tensorboard_ui import PREAMBLE, webfiles_zip


@pytest.fixture(scope="module")
def webfiles() -> dict[str, bytes]:
    archive = webfiles_zip()
    assert archive is not None
    with zipfile.ZipFile(archive) as files:
        return {name: files.read(name) for name in ("index.html", "index.js", "icon_bundle.svg")}


@pytest.mark.parametrize("prefix", ["", "/tb"])
def test_files_are_served_as_tensorboard_serves_them(prefix: str, webfiles: dict[str, bytes], tmp_path: Path) -> None:
    logdir = write_hostile_logdir(tmp_path / "logs")
    with (
        trainboard_in_process(logdir, tmp_path, "--ui=tensorboard", path_prefix=prefix) as server,
        httpx.Client(base_url=server.url + prefix) as client,
    ):
        index = client.get("/")
        assert index.status_code == 200 and index.headers["content-type"] == "text/html; charset=utf-8"
        assert index.content == PREAMBLE + webfiles["index.html"]
        assert "script-src 'self' 'unsafe-eval'" in index.headers["content-security-policy"]
        assert index.headers["cache-control"] == "no-cache, must-revalidate"
        assert client.get("/index.html").content == index.content

        # index.html asks for index.js by its hash: cached for a day, as TensorBoard does; sent gzipped.
        hashed = client.get("/index.js", params={"_file_hash": "528dec0c"})
        assert hashed.content == webfiles["index.js"] and "javascript" in hashed.headers["content-type"]
        assert hashed.headers["content-encoding"] == "gzip"
        assert hashed.headers["cache-control"] == "private, max-age=86400"
        assert client.get("/index.js").headers["cache-control"] == "no-cache, must-revalidate"
        icons = client.get("/icon_bundle.svg", headers={"Accept-Encoding": "identity"})
        assert icons.content == webfiles["icon_bundle.svg"] and "content-encoding" not in icons.headers
        assert icons.headers["content-type"] == "image/svg+xml" and icons.headers["x-content-type-options"] == "nosniff"

        # The UI's API calls resolve against the same root.
        assert client.get("/data/runs").json() == [HOSTILE]
        assert client.get("/experiment/defaultExperimentId/data/runs").json() == [HOSTILE]
        old = client.get("/histograms")
        assert old.status_code == 302 and old.headers["location"] == f"{prefix}/"
        assert client.get("/no-such-file.js").status_code == 404
        if prefix:
            assert loopback.get(server.url + "/").status_code == 404
            assert loopback.get(server.url + prefix).headers["location"].endswith(f"{prefix}/")


def test_without_the_tensorboard_package_the_flag_is_refused(tmp_path: Path) -> None:
    """The real command in an interpreter that sees every package of this environment but tensorboard's."""
    site = tmp_path / "site-packages"
    site.mkdir()
    for entry in Path(sysconfig.get_paths()["purelib"]).iterdir():
        if not entry.name.lower().startswith("tensorboard"):
            (site / entry.name).symlink_to(entry)
    program = f"import site, sys; site.addsitedir({str(site)!r}); from trainboard.cli import main; main()"
    command = [sys.executable, "-S", "-c", program, f"--logdir={tmp_path}", f"--db={tmp_path / 'store'}"]
    served = subprocess.run([*command, "--port=1", "--help"], capture_output=True, text=True, timeout=60)
    assert served.returncode == 0, served.stderr  # the environment itself works
    refused = subprocess.run([*command, "--ui=tensorboard"], capture_output=True, text=True, timeout=60)
    assert refused.returncode == 2
    assert refused.stderr.splitlines()[-1] == (
        "trainboard: error: --ui tensorboard serves the web UI of the tensorboard package, which is not installed: "
        "pip install tensorboard"
    )
