"""Errors that are safe to show users; each carries the HTTP status it maps to.

Handlers and the provider raise only these. The http layer turns them into responses in the shape of the surface
that was asked (TensorBoard's plain text, TS-VIS's envelope, trainboard's JSON); any other exception is a bug.
The command line has its own: `CommandError`, which `trainboard.cli.main` prints.
"""

from __future__ import annotations


class PublicError(Exception):
    http_code = 500
    # The whole seconds a client should wait before it tries again (the response's Retry-After), if it should.
    retry_after: int | None = None
    # TensorBoard prefixes its error texts with the kind of error ("Not found: ...").
    kind = "Internal error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        if self.kind and self.message:
            return f"{self.kind}: {self.message}"
        return self.kind or self.message


class InvalidArgumentError(PublicError):
    http_code = 400
    kind = "Invalid argument"


class ExpressionError(InvalidArgumentError):
    """A derived metric's expression that cannot be read or computed: the message names the position (characters
    from 0) of the part at fault."""

    def __init__(self, message: str, position: int) -> None:
        super().__init__(f"{message} (at position {position})")
        self.position = position


class BadRequestError(PublicError):
    """A 400 whose text is the message alone, as TensorBoard's plugins answer their own checks."""

    http_code = 400
    kind = ""


class NotFoundError(PublicError):
    http_code = 404
    kind = "Not found"


class NoSuchExperiment(NotFoundError):
    """An experiment, or a pin of one, that does not exist or that the request may not read: one answer for all of
    them, whichever experiment or pin the URL names, so that it tells nobody which exist."""

    def __init__(self) -> None:
        super().__init__("no experiment or pin here that this request may read")


class ConflictError(PublicError):
    """A 409: the request is well formed, but what is stored does not allow it (a name taken, a count at its most)."""

    http_code = 409
    kind = "Conflict"


class PermissionDeniedError(PublicError):
    http_code = 403
    kind = "Permission denied"


class UnauthenticatedError(PublicError):
    http_code = 401
    kind = "Unauthenticated"


class TooManyRequestsError(PublicError):
    """A 429, with the whole seconds to wait before trying again (its Retry-After header)."""

    http_code = 429
    kind = "Too many requests"

    def __init__(self, message: str, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class CommandError(Exception):
    """Why a command could not do what it was asked, worded for the user: `trainboard.cli.main` prints
    `trainboard: error: MESSAGE` on stderr and exits with `exit_code`."""

    exit_code = 1


class UsageError(CommandError):
    """The command line is wrong (a flag, a variable, a combination): exit code 2, after the command's `usage`."""

    exit_code = 2

    def __init__(self, message: str, usage: str = "") -> None:
        super().__init__(message)
        self.usage = usage
