"""One HTTP client for the tests' lone requests to their loopback servers (`loopback.get(url)`).

`httpx.get` and `httpx.post` build a client, and with it an SSL context (certifi's bundle parsed, about 40 ms of CPU),
on every call; this client is built once. Like them, it keeps nothing between requests: no cookie a response sets (a
test sends the cookies it means to) and no open connection, so each request goes out as a lone `httpx.get` sends it."""

from __future__ import annotations

import urllib.request
from http.cookiejar import Cookie, CookieJar, DefaultCookiePolicy

import httpx


class _NoCookies(DefaultCookiePolicy):
    def set_ok(self, cookie: Cookie, request: urllib.request.Request) -> bool:
        return False


# No proxy: every request goes to a server on this machine.
_CLIENT = httpx.Client(
    cookies=CookieJar(_NoCookies()), limits=httpx.Limits(max_keepalive_connections=0), trust_env=False
)

get = _CLIENT.get
post = _CLIENT.post
delete = _CLIENT.delete
stream = _CLIENT.stream
