"""Which Host headers the allow-list takes, by the settings that shape it."""

from __future__ import annotations

import socket

from trainboard.http.hosts import AllowedHosts
from trainboard.settings import Settings


def test_loopback_and_the_given_host_by_default() -> None:
    allowed = AllowedHosts(Settings(host="10.1.2.3"))
    for host in ("localhost", "localhost:6006", "127.0.0.1:1", "[::1]:6006", "[::1]", "10.1.2.3:6006", "LocalHost."):
        assert allowed.allows(host), host
    for host in ("evil.example", "10.1.2.4", "[::2]:6006", "localhost:x", "", socket.getfqdn() + ".evil"):
        assert not allowed.allows(host), host


def test_every_interface_adds_the_machine_names_and_any_address() -> None:
    for settings in (Settings(bind_all=True), Settings(host="0.0.0.0"), Settings(host="::")):
        allowed = AllowedHosts(settings)
        for host in (socket.gethostname(), f"{socket.getfqdn()}:6006", "192.168.7.7:6006", "[fe80::1]:80"):
            assert allowed.allows(host), (settings, host)
        assert not allowed.allows("evil.example:6006")
        assert "any IP address" in allowed.listed()


def test_allowed_hosts_adds_names_and_a_star_allows_any() -> None:
    allowed = AllowedHosts(Settings(allowed_hosts=" board.example ,Other.Example,"))
    assert allowed.allows("board.example:443") and allowed.allows("other.example")
    assert not allowed.allows("evil.example")
    assert AllowedHosts(Settings(allowed_hosts="*")).allows("evil.example")
