"""A Host header allow-list, against DNS rebinding: a page on evil.example whose name is made to resolve to 127.0.0.1
would otherwise read this server's data with the browser's blessing, as same-origin requests.

Allowed by default: the loopback names (localhost, 127.0.0.1, [::1]) and the literal --host, on any port. Listening
on every interface (--bind_all, or a --host of 0.0.0.0 or ::) adds the machine's own names and any IP address
literal: a rebinding page needs a name it controls, so an address is never one. --allowed_hosts adds names; `*` there
allows any Host. A request without a Host header (HTTP/1.0) comes from no browser and passes.
"""

from __future__ import annotations

import ipaddress
import socket

from starlette.types import ASGIApp, Receive, Scope, Send

from trainboard.http.responses import TextResponse
from trainboard.settings import Settings

LOOPBACK_NAMES = ("localhost", "127.0.0.1", "::1")
WILDCARD_ADDRESSES = ("0.0.0.0", "::", "")
ANY_HOST = "*"


class AllowedHosts:
    """The names a Host header may carry, from the settings; `allows` takes a header value such as `name:port`."""

    def __init__(self, settings: Settings) -> None:
        extra = [name.strip() for name in settings.allowed_hosts.split(",") if name.strip()]
        self.any_host = ANY_HOST in extra
        self.any_address = settings.bind_all or settings.host in WILDCARD_ADDRESSES
        names = {*LOOPBACK_NAMES, settings.host, *extra}
        if self.any_address:
            names |= {socket.gethostname(), socket.getfqdn()}
        self.names = frozenset(_normal(name) for name in names if name)

    def allows(self, host: str) -> bool:
        if self.any_host:
            return True
        name = _name(host)
        if name in self.names:
            return True
        return self.any_address and _is_address(name)

    def listed(self) -> str:
        shown = sorted(f"[{name}]" if ":" in name else name for name in self.names)
        return ", ".join(shown) + (", any IP address" if self.any_address else "")


class CheckHost:
    """400 for a request whose Host header is not allowed."""

    def __init__(self, app: ASGIApp, allowed: AllowedHosts) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        host = dict(scope["headers"]).get(b"host")
        if host is None or self.allowed.allows(host.decode("latin-1")):
            await self.app(scope, receive, send)
            return
        shown = host[:100].decode("latin-1")
        message = (
            f"Host {shown!r} is not allowed: this server answers requests for {self.allowed.listed()} only, "
            "against DNS rebinding; --allowed_hosts adds names"
        )
        await TextResponse(message, status_code=400)(scope, receive, send)


def _name(host: str) -> str:
    """The name of a Host header value, without its port: `[::1]:6006` is `::1`, `example.com:80` is `example.com`."""
    host = host.strip()
    if host.startswith("["):
        return _normal(host[1 : host.find("]")] if "]" in host else host)
    name, _, port = host.rpartition(":")
    return _normal(name if name and port.isdigit() else host)


def _normal(name: str) -> str:
    return name.strip().strip("[]").rstrip(".").lower()


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True
