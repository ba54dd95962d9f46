"""What an operator is warned of at start (on stderr) and every visitor sees in a banner on trainboard's page: a
server others can reach, which speaks plain HTTP (tokens and data in clear unless a TLS proxy is in front), and one
that serves every experiment to anyone who can connect (`serve --no_auth`)."""

from __future__ import annotations

import ipaddress

from trainboard.settings import Settings

LOOPBACK_NAMES = ("localhost", "localhost.localdomain", "ip6-localhost")


def reachable(settings: Settings) -> bool:
    """Whether other machines may connect: --bind_all, or a --host that is not a loopback address."""
    if settings.bind_all:
        return True
    host = settings.host.strip("[]").lower()
    if host in LOOPBACK_NAMES:
        return False
    try:
        return not ipaddress.ip_address(host).is_loopback
    except ValueError:
        # A name: it resolves to an address others reach, as far as trainboard can tell.
        return True


def exposure_warnings(settings: Settings) -> tuple[str, ...]:
    """The warnings for how the server is exposed; none on a loopback address."""
    if not reachable(settings):
        return ()
    where = "every interface" if settings.bind_all else settings.host
    warnings = [
        f"this server listens on {where} over plain HTTP: tokens, cookies and data cross the network in clear"
        " unless a TLS proxy (HTTPS) is in front of it"
    ]
    if settings.no_auth:
        warnings.append(
            "--no_auth on an address others can reach: anyone who can connect reads, uploads to and creates every"
            " experiment"
        )
    return tuple(warnings)
