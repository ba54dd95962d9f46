"""Tokens as users hold them, `tbk_<id>_<secret>`: a short public id that lists and revocation show, and 32 random
bytes. The store keeps only the SHA-256 of the whole token: a secret is random enough that a fast hash suffices."""

from __future__ import annotations

import hashlib
import secrets

PREFIX = "tbk_"
ID_BYTES = 5
SECRET_BYTES = 32


def new_token() -> tuple[str, str]:
    """A fresh token and its public id."""
    token_id = secrets.token_hex(ID_BYTES)
    return token_id, f"{PREFIX}{token_id}_{secrets.token_urlsafe(SECRET_BYTES)}"


def hashed(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_id_of(text: str) -> str:
    """The public id of a whole token, or the text itself (an id or the start of one)."""
    if text.startswith(PREFIX):
        return text.removeprefix(PREFIX).partition("_")[0]
    return text
