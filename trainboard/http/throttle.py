"""Authentication failures limited per client address and per token id (--auth_failure_burst, --auth_failure_rate):
a request whose token is unknown, revoked or expired (or a sign-in with one) counts against both; past either's
limit it gets 429 with Retry-After instead of 401, until the bucket refills.

Only failures are limited: a valid token is served from an address that is being throttled (a token's 32 random
bytes cannot be guessed, so checking it costs a look-up and gives nothing away). Each failure answered 401 is a row
of the audit log; while throttled, one row per address or token id a minute says so. Counted per replica, in its
memory (`trainboard.http.rate_limit`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from starlette.requests import HTTPConnection

from trainboard.access.audit import Event
from trainboard.access.tokens import token_id_of
from trainboard.errors import TooManyRequestsError
from trainboard.http.audit import client_of, record
from trainboard.http.rate_limit import RateLimit

TOKEN_ID = re.compile(r"[0-9a-f]{10}")
# While a key is throttled, at most one audit row a minute says so.
THROTTLED_NOTES_PER_SECOND = 1 / 60


@dataclass(frozen=True, slots=True)
class Verdict:
    """What a failure gets: 401 when `wait` is 0, else 429 for `wait` seconds by the limit of `by` ("address" or
    "token"); `noted` for the first refusal of its key in a minute, which the audit log records."""

    wait: float
    by: str
    noted: bool


class FailureThrottle:
    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst = rate, burst
        self._limits = {"address": RateLimit(rate, burst), "token": RateLimit(rate, burst)}
        self._notes = RateLimit(THROTTLED_NOTES_PER_SECOND, 1)

    def failed(self, client: str, token_id: str | None) -> Verdict:
        """Count a failure from `client` with the token id it claimed (None: no id) against both their limits."""
        keys = {"address": client} if token_id is None else {"address": client, "token": token_id}
        waits = {by: self._limits[by].take(key) for by, key in keys.items()}
        by = max(waits, key=lambda found: waits[found])
        refused = waits[by] > 0
        return Verdict(waits[by], by, refused and self._notes.take(f"{by} {keys[by]}") == 0)


def claimed_token_id(token: str) -> str | None:
    """The public id a token claims, if it has the form of one; never any of its secret."""
    found = token_id_of(token)
    return found if found != token and TOKEN_ID.fullmatch(found) else None


async def authentication_failed(connection: HTTPConnection, token: str) -> None:
    """A token that is not valid, recorded; `TooManyRequestsError` (429) past the limits of the request's address or
    of the token's id, else the caller answers 401."""
    throttle: FailureThrottle = connection.app.state.auth_throttle
    token_id = claimed_token_id(token)
    verdict = throttle.failed(client_of(connection) or "", token_id)
    if verdict.wait <= 0:
        await record(connection, Event.AUTH_FAILURE, token_id=token_id)
        return
    if verdict.noted:
        await record(connection, Event.AUTH_THROTTLED, token_id=token_id, by=verdict.by)
    subject = "from this address" if verdict.by == "address" else "with this token id"
    raise TooManyRequestsError(
        f"more than {throttle.burst} failed authentications {subject}, then {throttle.rate:g} a second",
        retry_after=max(1, math.ceil(verdict.wait)),
    )
