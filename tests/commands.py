"""A `trainboard` command run in the test process, for the tests that need what it does (a store filled, users and
tokens made) but not its process: tests/cli runs the console script itself."""

from __future__ import annotations

import io
import signal
from contextlib import redirect_stderr, redirect_stdout

from trainboard.cli import main


def in_process_command(*flags: str) -> str:
    """`trainboard FLAGS`'s standard output; it must succeed."""
    output, errors = io.StringIO(), io.StringIO()
    # main() makes SIGTERM end the command as Ctrl+C does: pytest's own handling is put back after.
    terminate = signal.getsignal(signal.SIGTERM)
    try:
        with redirect_stdout(output), redirect_stderr(errors):
            main(list(flags))
    except SystemExit as exit:
        assert exit.code in (0, None), errors.getvalue()
    finally:
        signal.signal(signal.SIGTERM, terminate)
    return output.getvalue()
