"""Every setting is documented in docs/settings.md with its variable and default, and nothing documented is missing."""

from __future__ import annotations

import re
from pathlib import Path

from trainboard.settings import SETTINGS

DOCS = Path(__file__).parents[2] / "docs" / "settings.md"


def test_every_setting_is_documented_and_every_documented_one_exists() -> None:
    rows = re.findall(r"^\| `--(\w+)` \| `(\w+)` \| ([^|]+) \|", DOCS.read_text(), flags=re.MULTILINE)
    documented = {flag: (variable, default) for flag, variable, default in rows}
    assert sorted(documented) == sorted(setting.name for setting in SETTINGS)
    for setting in SETTINGS:
        variable, default = documented[setting.name]
        assert variable == f"TRAINBOARD_{setting.name.upper()}"
        if isinstance(setting.default, bool):
            assert default == ("on" if setting.default else "off"), setting.name
        elif setting.default:
            assert default == f"`{setting.default}`", setting.name
        else:
            assert default.startswith("("), setting.name  # what an empty default means, in words
