"""What the fault tests share: a team store on a PostgreSQL of their own (restartable) with blobs on S3, replicas of
`trainboard serve`, and 50 reading clients that record every answer."""

from __future__ import annotations

import os
import re
import ssl
import subprocess
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import httpx

from tests.cli.process import command
from tests.servers import stop
from tests.upload.team import TeamStore
from trainboard.http.limits import KEEP_ALIVE_SECONDS

READERS = 50
# The line `trainboard serve` logs once it listens (as text, or the message of a JSON line).
LISTENING = re.compile(r"trainboard \S+ at (http://[^/\s]+/)")
# What a reader does after a 503: wait, as a browser's reload would, but briefly, so the test sees the gap's answers.
READER_PAUSE_SECONDS = 0.2


@dataclass(frozen=True, slots=True)
class Answer:
    at: float
    path: str
    status: int
    retry_after: str | None
    text: str


@dataclass
class Readers:
    """READERS threads, each asking the replicas in turn for `paths` until stopped; every answer kept (the text of
    those that are not 200s)."""

    urls: list[str]
    paths: list[str]
    verify: ssl.SSLContext | bool = True
    answers: list[Answer] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)

    def run(self, index: int) -> None:
        # Idle connections closed before the server closes them (trainboard.http.limits.KEEP_ALIVE_SECONDS), as the
        # document tells proxies to: else a request may go out on a connection the server is closing.
        limits = httpx.Limits(keepalive_expiry=KEEP_ALIVE_SECONDS - 1)
        with httpx.Client(timeout=30, verify=self.verify, limits=limits) as client:
            turn = index
            while not self._stop.is_set():
                path = self.paths[turn % len(self.paths)]
                url = self.urls[(turn // len(self.paths)) % len(self.urls)] + path
                turn += 1
                try:
                    response = client.get(url)
                except httpx.TransportError as error:
                    self.failures.append(f"{url}: {type(error).__name__}: {error}")
                    time.sleep(READER_PAUSE_SECONDS)
                    continue
                text = "" if response.status_code == 200 else response.text
                self.answers.append(
                    Answer(time.monotonic(), path, response.status_code, response.headers.get("retry-after"), text)
                )
                if response.status_code != 200:
                    time.sleep(READER_PAUSE_SECONDS)

    def between(self, start: float, end: float) -> list[Answer]:
        return [answer for answer in self.answers if start <= answer.at <= end]

    def stop(self) -> None:
        self._stop.set()


@contextmanager
def reading(urls: list[str], paths: list[str], verify: ssl.SSLContext | bool = True) -> Iterator[Readers]:
    readers = Readers(urls, paths, verify)
    threads = [threading.Thread(target=readers.run, args=(index,), daemon=True) for index in range(READERS)]
    for thread in threads:
        thread.start()
    try:
        yield readers
    finally:
        readers.stop()
        for thread in threads:
            thread.join(60)


@dataclass(frozen=True, slots=True)
class Replica:
    url: str
    log: Path
    process: subprocess.Popen[bytes]


@contextmanager
def replica(store: TeamStore, scratch: Path) -> Iterator[Replica]:
    """`trainboard serve` of the store without tokens on a free port (its log in text or, with --log_format=json,
    in JSON lines), once it listens."""
    scratch.mkdir(parents=True, exist_ok=True)
    log = scratch / "serve.log"
    flags = ("--no_auth", "--samples_per_plugin=all", *store.flags)
    with log.open("wb") as output:
        process = subprocess.Popen(
            command("serve", f"--db={store.db}", "--host=127.0.0.1", "--port=0", *flags),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=output,
            env=store.env,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + 120
        while not (found := LISTENING.search(log.read_text(errors="replace"))):
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"trainboard serve did not start:\n{log.read_text(errors='replace')}")
            time.sleep(0.05)
        yield Replica(found.group(1).rstrip("/"), log, process)
    finally:
        stop(process)


@contextmanager
def replicas(store: TeamStore, scratch: Path, count: int = 2) -> Iterator[list[Replica]]:
    with ExitStack() as stack:
        yield [stack.enter_context(replica(store, scratch / f"replica-{index}")) for index in range(count)]


def first_success(url: str, timeout: float = 30) -> float:
    """Seconds until `url` answers 200."""
    start = time.monotonic()
    with httpx.Client(timeout=10) as client:
        while time.monotonic() - start < timeout:
            try:
                if client.get(url).status_code == 200:
                    return time.monotonic() - start
            except httpx.TransportError:
                pass
            time.sleep(0.05)
    raise AssertionError(f"{url} did not answer 200 within {timeout} s")


def unhandled(log: Path) -> list[str]:
    """The lines of a replica's log that tell of an unhandled error (a traceback, uvicorn's 'Exception in ASGI')."""
    return [
        line
        for line in log.read_text(errors="replace").splitlines()
        if "Traceback" in line or "Exception in ASGI" in line or " 500" in line
    ]


def uploading(url: str, experiment: str, logdir: Path, trust: Path | None = None) -> subprocess.Popen[bytes]:
    """`trainboard upload` to `url` (no token), trusting the certificate `trust` (a proxy's) as a user's machine
    trusts its CA's (SSL_CERT_FILE)."""
    return subprocess.Popen(
        command("upload", f"--server={url}", f"--experiment={experiment}", f"--logdir={logdir}"),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        env={**os.environ, **({"SSL_CERT_FILE": str(trust)} if trust else {})},
    )
