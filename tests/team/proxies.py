"""The TLS proxies of docs/team-server.md, run as printed there: Debian's nginx and Caddy with the configuration text
taken from the document, with only the substitutions declared here (addresses, ports, certificate files), and a
certificate made for the test."""

from __future__ import annotations

import os
import re
import ssl
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from tests.servers import Server, free_port, stop, wait_until_ready

# Debian's packages (scripts/test installs them).
NGINX = "/usr/sbin/nginx"
CADDY = "/usr/bin/caddy"
DOC = Path(__file__).parents[2] / "docs" / "team-server.md"
# The name the certificate is for and the clients ask for (the document's board.example.org).
HOST = "localhost"
# The proxy's own address towards the replicas, as if it ran on a machine of its own: the replicas trust
# X-Forwarded-* from it alone (FORWARDED_ALLOW_IPS), not from the clients on 127.0.0.1.
PROXY_ADDRESS = "127.0.0.2"
# The document's replica addresses: dashboards (10.0.0.1x) and uploads (10.0.0.2x), the first and second replica.
DASHBOARDS = ("10.0.0.11:6006", "10.0.0.12:6006")
UPLOADS = ("10.0.0.21:6006", "10.0.0.22:6006")


def printed(language: str) -> str:
    """The one block of `language` in docs/team-server.md."""
    blocks = re.findall(rf"^```{language}\n(.*?)^```$", DOC.read_text(), flags=re.MULTILINE | re.DOTALL)
    assert len(blocks) == 1, f"docs/team-server.md has {len(blocks)} {language} blocks, not one"
    return str(blocks[0])


def substituted(text: str, substitutions: dict[str, str]) -> str:
    """`text` with each key replaced by its value; each key must be in the text, so that a changed document fails
    here rather than test something else."""
    for old, new in substitutions.items():
        assert old in text, f"{old!r} is no longer in the document's configuration"
        text = text.replace(old, new)
    return text


@dataclass(frozen=True, slots=True)
class Certificate:
    certificate: Path
    key: Path

    def context(self) -> ssl.SSLContext:
        """What a client that trusts this certificate checks servers with."""
        return ssl.create_default_context(cafile=self.certificate)


def certificate(scratch: Path) -> Certificate:
    """A self-signed certificate for HOST, made by the openssl command."""
    scratch.mkdir(parents=True, exist_ok=True)
    made = Certificate(scratch / "board.pem", scratch / "board.key")
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days",
         "1", "-subj", f"/CN={HOST}", "-addext", f"subjectAltName=DNS:{HOST}", "-keyout", str(made.key), "-out",
         str(made.certificate)],
        check=True, capture_output=True,
    )  # fmt: skip
    return made


def nginx_config(port: int, replicas: list[str], tls: Certificate, scratch: Path, *, path_prefix: str = "") -> str:
    """The document's nginx configuration in a main configuration of the test's own (files in `scratch`, the
    replicas' address PROXY_ADDRESS); under `path_prefix`, with the prefix in the `location`s as the document says."""
    substitutions = {
        "listen 443 ssl": f"listen 127.0.0.1:{port} ssl",
        **{printed: replicas[index] for index, printed in enumerate(DASHBOARDS)},
        **{printed: replicas[index] for index, printed in enumerate(UPLOADS)},
        "/etc/ssl/board.example.org.pem": str(tls.certificate),
        "/etc/ssl/board.example.org.key": str(tls.key),
        "board.example.org": HOST,
    }
    if path_prefix:
        substitutions |= {"location ~ ^/experiment/": f"location ~ ^{path_prefix}/experiment/",
                          "location / {": f"location {path_prefix}/ {{"}  # fmt: skip
    temporary = "\n".join(
        f"    {kind}_temp_path {scratch / kind};" for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    return f"""daemon off;
user root;
worker_processes 1;
pid {scratch / "nginx.pid"};
error_log {scratch / "error.log"} info;
events {{
    worker_connections 1024;
}}
http {{
    access_log {scratch / "access.log"};
{temporary}
    proxy_bind {PROXY_ADDRESS};
{substituted(printed("nginx"), substitutions)}
}}
"""


@contextmanager
def nginx(replicas: list[str], tls: Certificate, scratch: Path, *, path_prefix: str = "") -> Iterator[Server]:
    """Debian's nginx with the document's configuration; its https URL (HOST and its port)."""
    scratch.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = scratch / "nginx.conf"
    config.write_text(nginx_config(port, replicas, tls, scratch, path_prefix=path_prefix))
    command = [NGINX, "-c", str(config), "-p", str(scratch), "-e", str(scratch / "error.log")]
    with proxied(command, port, scratch / "nginx.log", tls, health=f"{path_prefix}/healthz") as server:
        yield server


def caddy_config(port: int, replicas: list[str], tls: Certificate) -> str:
    """The document's Caddyfile, on `port` with the test's certificate instead of one from an ACME service."""
    # Global options of the test's own: no admin endpoint (on a fixed port), no redirecting server on port 80.
    options = "{\n    admin off\n    auto_https disable_redirects\n}\n"
    return options + substituted(
        printed("caddyfile"),
        {
            **{printed: replicas[index] for index, printed in enumerate(DASHBOARDS)},
            **{printed: replicas[index] for index, printed in enumerate(UPLOADS)},
            "board.example.org {": f"{HOST}:{port} {{\n    tls {tls.certificate} {tls.key}\n    bind 127.0.0.1",
        },
    )


@contextmanager
def caddy(replicas: list[str], tls: Certificate, scratch: Path) -> Iterator[Server]:
    scratch.mkdir(parents=True, exist_ok=True)
    port = free_port()
    config = scratch / "Caddyfile"
    config.write_text(caddy_config(port, replicas, tls))
    # Its storage (where it would keep certificates) in scratch.
    command = [CADDY, "run", "--config", str(config), "--adapter", "caddyfile"]
    env = {**os.environ, "HOME": str(scratch), "XDG_DATA_HOME": str(scratch), "XDG_CONFIG_HOME": str(scratch)}
    with proxied(command, port, scratch / "caddy.log", tls, env) as server:
        yield server


@contextmanager
def proxied(
    command: list[str],
    port: int,
    log: Path,
    tls: Certificate,
    env: dict[str, str] | None = None,
    health: str = "/healthz",
) -> Iterator[Server]:
    """Start the proxy, wait until it passes `health` (/healthz) to a replica, yield it, then stop it."""
    with log.open("wb") as output:
        process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, start_new_session=True, env=env
        )
    server = Server(f"https://{HOST}:{port}", log)
    try:
        wait_until_ready(process, server, lambda client: client.get(health).status_code == 200, 30, tls.context())
        yield server
    finally:
        stop(process)
