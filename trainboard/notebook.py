"""trainboard in Jupyter and IPython: `%load_ext trainboard`, then `%trainboard --logdir runs` starts a trainboard
server (a process of its own, which outlives the kernel) and shows its UI in the cell's output;
`trainboard.notebook.display(port=...)` shows a running server's UI again.

Where the browser does not reach the kernel's machine (JupyterHub, a remote VS Code, a container), the frame goes
through the notebook server's proxy: set `TRAINBOARD_PROXY_URL` (or TensorBoard's `TENSORBOARD_PROXY_URL`) to the
proxy's URL with `%PORT%` for the server's port, e.g. `/proxy/%PORT%/` for jupyter-server-proxy. In Colab the frame
goes through Colab's own port proxy.

A server started here is described by an info file, `<tempdir>/trainboard-info/pid-<pid>.json`. A second
`%trainboard` with the same arguments from the same working directory reuses a server that still answers instead of
starting another; the info files of servers that no longer answer are removed.
"""

from __future__ import annotations

import dataclasses
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx

INFO_DIR = "trainboard-info"
START_TIMEOUT = 120.0
POLL_SECONDS = 0.1
HEIGHT = 800
# The proxy URLs of the frame, `%PORT%` standing for the server's port: trainboard's, then TensorBoard's.
PROXY_VARIABLES = ("TRAINBOARD_PROXY_URL", "TENSORBOARD_PROXY_URL")
# The line trainboard prints on stderr once it listens (trainboard/cli.py).
SERVING = re.compile(r"^trainboard \S+ at (http://\S+/) \(Press CTRL\+C to quit\)", re.MULTILINE)
# Processes started here, kept referenced so that Python does not warn about them while they run.
_launched: list[subprocess.Popen[bytes]] = []


@dataclasses.dataclass(frozen=True, slots=True)
class ServerInfo:
    pid: int
    url: str
    port: int
    cwd: str
    arguments: list[str]
    start_time: float
    log: str


def info_dir() -> Path:
    directory = Path(tempfile.gettempdir()) / INFO_DIR
    directory.mkdir(mode=0o700, exist_ok=True)
    return directory


def servers() -> list[ServerInfo]:
    """The servers started from notebooks that still answer, newest first."""
    found = []
    for path in info_dir().glob("pid-*.json"):
        try:
            info = ServerInfo(**json.loads(path.read_text()))
        except (OSError, ValueError, TypeError):
            continue
        if _answers(info):
            found.append(info)
        else:
            path.unlink(missing_ok=True)
    return sorted(found, key=lambda info: info.start_time, reverse=True)


def start(arguments: str | Sequence[str]) -> tuple[ServerInfo, bool]:
    """A server for `arguments` (trainboard's command line flags): a running one started with the same arguments
    from the same directory (then True), else a new one (then False). Raises RuntimeError when it does not start."""
    args = shlex.split(arguments) if isinstance(arguments, str) else list(arguments)
    cwd = os.getcwd()
    for info in servers():
        if info.cwd == cwd and info.arguments == args:
            return info, True
    return _launch(args, cwd), False


def display(port: int | None = None, *, height: int = HEIGHT) -> None:
    """Shows the UI of the server at `port` (by default the one started last) in the cell's output."""
    running = servers()
    if port is None:
        if not running:
            print("No trainboard server started from a notebook is running; start one with %trainboard --logdir DIR")
            return
        url = running[0].url
    else:
        url = next((info.url for info in running if info.port == port), f"http://localhost:{port}/")
    _show(url, height)


def load_ipython_extension(ipython: Any) -> None:
    """`%load_ext trainboard`: adds the `%trainboard` line magic."""
    ipython.register_magic_function(_trainboard_magic, magic_kind="line", magic_name="trainboard")


def _trainboard_magic(line: str) -> None:
    try:
        info, reused = start(line)
    except (RuntimeError, ValueError) as error:
        print(error, file=sys.stderr)
        return
    if reused:
        ago = int(time.time() - info.start_time)
        print(f"Reusing trainboard at {info.url} (pid {info.pid}), started {ago} s ago. Stop it with !kill {info.pid}")
    else:
        print(f"Started trainboard at {info.url} (pid {info.pid}). Stop it with !kill {info.pid}")
    _show(info.url, HEIGHT)


def _show(url: str, height: int) -> None:
    from IPython.display import IFrame, Javascript
    from IPython.display import display as show

    port = urlsplit(url).port or 80
    if "google.colab" in sys.modules:
        show(Javascript(_COLAB_FRAME % {"port": port, "height": height}))  # type: ignore[no-untyped-call]
        return
    proxy = next((os.environ[name] for name in PROXY_VARIABLES if os.environ.get(name)), None)
    frame = proxy.replace("%PORT%", str(port)) if proxy else url
    show(IFrame(frame, width="100%", height=height))  # type: ignore[no-untyped-call]


# Colab serves a kernel's port to the browser at a URL of its own, which only its front end can ask for.
_COLAB_FRAME = """
(async () => {
  const url = await google.colab.kernel.proxyPort(%(port)d, {cache: false});
  const frame = document.createElement("iframe");
  frame.src = url;
  frame.width = "100%%";
  frame.height = "%(height)d";
  frame.style.border = "0";
  document.querySelector("#output-area").appendChild(frame);
})();
"""


def _launch(args: list[str], cwd: str) -> ServerInfo:
    log = Path(tempfile.mkstemp(prefix="launch-", suffix=".log", dir=info_dir())[1])
    with log.open("wb") as output:
        process = subprocess.Popen(
            [sys.executable, "-m", "trainboard", *args],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            cwd=cwd,
            # Its own session: interrupting or restarting the kernel leaves the server running, as TensorBoard's.
            start_new_session=True,
        )
    _launched.append(process)
    deadline = time.monotonic() + START_TIMEOUT
    while (found := SERVING.search(log.read_text(errors="replace"))) is None:
        if process.poll() is not None:
            raise RuntimeError(f"trainboard exited with code {process.returncode}:\n{log.read_text(errors='replace')}")
        if time.monotonic() > deadline:
            raise RuntimeError(f"trainboard did not start within {START_TIMEOUT:.0f} s; its log is {log}")
        time.sleep(POLL_SECONDS)
    url = found.group(1)
    info = ServerInfo(
        pid=process.pid,
        url=url,
        port=urlsplit(url).port or 80,
        cwd=cwd,
        arguments=args,
        start_time=time.time(),
        log=str(log),
    )
    (info_dir() / f"pid-{process.pid}.json").write_text(json.dumps(dataclasses.asdict(info)))
    return info


def _answers(info: ServerInfo) -> bool:
    """Whether the server's process runs and its URL answers as trainboard does (or asks for a token)."""
    try:
        os.kill(info.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass
    try:
        return httpx.get(f"{info.url}data/environment", timeout=2).status_code in (200, 401, 403)
    except httpx.HTTPError:
        return False
