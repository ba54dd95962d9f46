"""Errors that are safe to show users; each carries the HTTP status it maps to.

Handlers and the provider raise only these. The http layer turns them into responses in the shape of the surface
that was asked (TensorBoard's plain text, TS-VIS's envelope, trainboard's JSON); any other exception is a bug.
"""

from __future__ import annotations


class PublicError(Exception):
    http_code = 500

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class InvalidArgumentError(PublicError):
    http_code = 400


class NotFoundError(PublicError):
    http_code = 404


class PermissionDeniedError(PublicError):
    http_code = 403


class UnauthenticatedError(PublicError):
    http_code = 401
