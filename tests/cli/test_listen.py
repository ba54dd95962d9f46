"""Where the server listens: --bind_all as TensorBoard's, on every interface, IPv4 and IPv6 on one socket."""

from __future__ import annotations

import socket

import pytest

from trainboard.cli import ListenError, listen, url
from trainboard.settings import Settings


def test_bind_all_listens_on_ipv6_and_ipv4_and_names_the_machine() -> None:
    settings = Settings(bind_all=True, port=0, path_prefix="/board")
    with listen(settings, scan=False) as listener:
        port = listener.getsockname()[1]
        assert listener.family == socket.AF_INET6
        assert listener.getsockname()[0] == "::"
        for host in ("127.0.0.1", "::1"):
            socket.create_connection((host, port), timeout=5).close()
        assert url(settings, listener) in (
            f"http://{socket.getfqdn()}:{port}/board/",
            f"http://localhost:{port}/board/",
        )


def test_a_given_host_is_the_only_address() -> None:
    with listen(Settings(host="127.0.0.1", port=0), scan=False) as listener:
        assert listener.getsockname()[0] == "127.0.0.1"
        assert url(Settings(host="127.0.0.1"), listener) == f"http://127.0.0.1:{listener.getsockname()[1]}/"


def test_reuse_port_lets_two_sockets_listen_on_one_port() -> None:
    settings = Settings(host="127.0.0.1", port=0, reuse_port=True)
    with listen(settings, scan=False) as first:
        port = first.getsockname()[1]
        with listen(Settings(host="127.0.0.1", port=port, reuse_port=True), scan=False) as second:
            assert second.getsockname()[1] == port
        with pytest.raises(ListenError, match=f"could not bind to port {port}: it is already in use"):
            listen(Settings(host="127.0.0.1", port=port), scan=False)
