"""The real TS-VIS 0.4.2, installed by scripts/test into .venv-tsvis (it needs NumPy 1.23 and protobuf 3)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-tsvis" / "bin" / "python"


def run_in_tsvis(script: Path, *args: str) -> Any:
    """Run `script` with TS-VIS's Python and return the JSON it prints."""
    assert PYTHON.exists(), f"{PYTHON} is missing: scripts/test installs the real TS-VIS there"
    done = subprocess.run([str(PYTHON), str(script), *args], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{script.name} failed:\n{done.stderr[-4000:]}"
    return json.loads(done.stdout)
