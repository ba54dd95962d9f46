"""Which addresses count as reachable by others, for the start-up warnings and the page's banner."""

from __future__ import annotations

import pytest

from trainboard.http.exposure import exposure_warnings, reachable
from trainboard.settings import Settings


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.2", "::1", "[::1]", "localhost", "LOCALHOST"])
def test_loopback_is_not_reachable(host: str) -> None:
    assert not reachable(Settings(host=host))
    assert exposure_warnings(Settings(host=host, no_auth=True)) == ()


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "10.0.0.11", "192.168.1.2", "board.example.org"])
def test_any_other_address_or_name_is(host: str) -> None:
    assert reachable(Settings(host=host))
    assert len(exposure_warnings(Settings(host=host))) == 1
    assert len(exposure_warnings(Settings(host=host, no_auth=True))) == 2


def test_bind_all_is() -> None:
    (warning,) = exposure_warnings(Settings(bind_all=True))
    assert warning.startswith("this server listens on every interface over plain HTTP")
