"""Names that users give (runs, file paths, experiments, users, token labels, tags) hold no control character: one
would forge a line of the server's log or repaint a terminal. `check_name` refuses such a name where it comes in
(uploads and HTTP: a 400), and every log line that prints a name prints `loggable(name)`, for the names that come in
another way (a local logdir's directories, the tags in event files)."""

from __future__ import annotations

import re

from trainboard.errors import InvalidArgumentError

# C0 (newline, carriage return, escape, ...), DEL and C1.
CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def loggable(name: str) -> str:
    """The name with each control character written as its escape (`\\n`, `\\x1b`): one line, whatever it holds."""
    return CONTROL.sub(lambda found: found.group().encode("unicode_escape").decode("ascii"), name)


def check_name(name: str, what: str) -> str:
    """The name, or an `InvalidArgumentError` (400) when it holds a control character."""
    if CONTROL.search(name):
        raise InvalidArgumentError(f"{what} '{loggable(name[:200])}' holds a control character")
    return name
