"""Installed size of trainboard in fresh venvs: the default install, each extra, and every extra at once, beside
TensorBoard's (`pip install tensorboard`). Sizes are of the venv's site-packages without pip and setuptools (which
every venv has), as `du` counts them; the largest packages of each install are listed.

    .venv/bin/python bench/install_size.py [--only core,all,tensorboard]
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHOWN = 5
EVERY_VENV_HAS = {"pip", "setuptools"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default="", help="comma-separated installs to measure (default: all)")
    only = set(filter(None, parser.parse_args().only.split(",")))
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    installs = {"core": [str(ROOT)]}
    installs |= {extra: [f"{ROOT}[{extra}]"] for extra in extras}
    installs["all"] = [f"{ROOT}[{','.join(extras)}]"]
    installs["tensorboard"] = ["tensorboard"]
    print(f"{'install':<12} {'MB':>7}  largest packages (MB)")
    for name, requirements in installs.items():
        if only and name not in only:
            continue
        total, largest = _measure(requirements)
        shown = ", ".join(f"{package} {size / 1e6:.0f}" for size, package in largest[:SHOWN])
        print(f"{name:<12} {total / 1e6:7.1f}  {shown}", flush=True)


def _measure(requirements: list[str]) -> tuple[int, list[tuple[int, str]]]:
    """Bytes on disk of a fresh venv's packages after `pip install requirements`, and each package's bytes."""
    with tempfile.TemporaryDirectory() as scratch:
        venv = Path(scratch)
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        python = str(venv / "bin" / "python")
        pip = [python, "-m", "pip", "install", "-qq", "--disable-pip-version-check", *requirements]
        subprocess.run(pip, check=True, stdout=subprocess.DEVNULL)
        sizes = subprocess.run([python, "-c", _SIZES], check=True, capture_output=True, text=True).stdout
        largest = sorted(
            ((int(size), package) for size, package in (line.split(" ", 1) for line in sizes.splitlines())),
            reverse=True,
        )
        kept = [(size, package) for size, package in largest if package.lower() not in EVERY_VENV_HAS]
        return sum(size for size, _ in kept), kept


# Each installed distribution's bytes on disk (the files its RECORD lists, compiled .pyc included).
_SIZES = """
import importlib.metadata
for dist in importlib.metadata.distributions():
    size = 0
    for file in dist.files or []:
        path = file.locate()
        if path.is_file():
            size += path.stat().st_size
    print(size, dist.metadata["Name"])
"""

if __name__ == "__main__":
    main()
