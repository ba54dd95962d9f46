"""Who a request comes from, as the guard (`trainboard.http.guard`) found it and left it in the request's scope."""

from __future__ import annotations

from starlette.requests import HTTPConnection

from trainboard.access.accounts import Principal

PRINCIPAL = "trainboard.principal"


def principal_of(connection: HTTPConnection) -> Principal | None:
    found: Principal | None = connection.scope.get(PRINCIPAL)
    return found
