"""Every setting is documented in docs/settings.md, with its variable, and nothing documented is missing."""

from __future__ import annotations

import re
from pathlib import Path

from trainboard.settings import SETTINGS

DOCS = Path(__file__).parent.parent / "docs" / "settings.md"


def test_every_setting_is_documented_and_every_documented_one_exists() -> None:
    rows = re.findall(r"^\| `--(\w+)` \| `(\w+)` \|", DOCS.read_text(), flags=re.MULTILINE)
    documented = {flag: variable for flag, variable in rows}
    assert set(documented) == {setting.name for setting in SETTINGS}
    for flag, variable in documented.items():
        assert variable == f"TRAINBOARD_{flag.upper()}"
