"""A real OpenID provider for the single sign-on tests: npm's oidc-provider (tests/oidc/provider.mjs) in a Node
process of its own, on a free loopback port. scripts/test installs it (`npm ci` in tests/oidc)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from tests.servers import free_port, running

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True, slots=True)
class Client:
    """A client registered at the provider; `mischief` "audience" or "issuer": its ID tokens name another one."""

    id: str
    secret: str
    redirect_uris: tuple[str, ...]
    post_logout_redirect_uris: tuple[str, ...] = ()
    mischief: str | None = None

    def as_json(self) -> dict[str, Any]:
        found: dict[str, Any] = {
            "client_id": self.id,
            "client_secret": self.secret,
            "redirect_uris": list(self.redirect_uris),
            "post_logout_redirect_uris": list(self.post_logout_redirect_uris),
        }
        return found | ({"mischief": self.mischief} if self.mischief else {})


@dataclass(frozen=True, slots=True)
class Provider:
    # The issuer, by the name `localhost` (another site than the servers' 127.0.0.1, as a real provider is).
    issuer: str
    log: Path
    # Its configuration, whose accounts it reads at each sign-in.
    config: Path

    def set_claims(self, login: str, claims: dict[str, Any]) -> None:
        """The claims the provider gives `login` from its next sign-in on."""
        config = json.loads(self.config.read_text())
        config["accounts"][login] = claims
        self.config.write_text(json.dumps(config))


@contextmanager
def oidc_provider(
    scratch: Path, clients: list[Client], accounts: dict[str, dict[str, Any]], *, id_token_seconds: int = 3600
) -> Iterator[Provider]:
    """The provider, its accounts (login -> claims) signing in with any password."""
    if not (HERE / "node_modules" / "oidc-provider").is_dir():
        raise RuntimeError("npm's oidc-provider is not installed: run scripts/test, or npm ci in tests/oidc")
    node = shutil.which("node")
    assert node is not None, "the single sign-on tests need Node (20 or later)"
    port = free_port()
    issuer = f"http://localhost:{port}"
    scratch.mkdir(parents=True, exist_ok=True)
    config = scratch / "provider.json"
    config.write_text(
        json.dumps(
            {
                "issuer": issuer,
                "port": port,
                "host": "127.0.0.1",
                "clients": [client.as_json() for client in clients],
                "accounts": accounts,
                "id_token_seconds": id_token_seconds,
            }
        )
    )

    def ready(client: httpx.Client) -> bool:
        return client.get("/.well-known/openid-configuration").status_code == 200

    with running([node, str(HERE / "provider.mjs"), str(config)], port, scratch / "provider.log", ready):
        yield Provider(issuer, scratch / "provider.log", config)
