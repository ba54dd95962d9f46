"""Every setting is documented in docs/settings.md with its variable and default, and nothing documented is missing."""

from __future__ import annotations

import re
from pathlib import Path

from tests.cli.test_tensorboard_flags import tensorboard_help_flags
from trainboard.settings import SETTINGS
from trainboard.tensorboard_flags import IGNORED_FLAGS

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


def test_every_ignored_tensorboard_flag_is_documented_and_nothing_more() -> None:
    rows = re.findall(r"^\| `--(\w+)` \| (.+) \|$", _ignored_table(), re.MULTILINE)
    assert [flag for flag, _ in rows] == [flag.name for flag in IGNORED_FLAGS]


def test_every_flag_of_tensorboard_help_is_documented() -> None:
    documented = DOCS.read_text()
    missing = [name for name in tensorboard_help_flags() if name != "help" and f"`--{name}`" not in documented]
    assert missing == []


def _ignored_table() -> str:
    return DOCS.read_text().split("| ignored flag | why |", 1)[1].split("\n## ", 1)[0]
