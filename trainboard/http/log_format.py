"""--log_format: how a server tells what happens. `text`, the default, leaves Python's and uvicorn's logging as they
are: lines for people. `json` makes every message one JSON object on a line of stderr, for log collectors:
trainboard's own loggers, uvicorn's error log and its access log (on in this format), the server's start-up notices
and any library's warnings. A message's text can hold no line break there: JSON escapes it."""

from __future__ import annotations

import logging
import sys
from datetime import UTC, datetime

import orjson

TEXT = "text"
JSON = "json"
# The logger of the server's start-up notices (its URL, its warnings), in the json format.
NOTICES = "trainboard.server"
ACCESS_LOGGER = "uvicorn.access"
# The fields of an access log record's arguments, in uvicorn's order.
ACCESS_FIELDS = ("client", "method", "path", "http_version", "status")


class JsonFormatter(logging.Formatter):
    """A record as one JSON object: time (UTC, ISO 8601), level, logger and message; an access record's request
    (client, method, path, http_version, status) as fields of their own; a traceback as `exception`."""

    def format(self, record: logging.LogRecord) -> str:
        fields: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.name == ACCESS_LOGGER and isinstance(record.args, tuple) and len(record.args) == len(ACCESS_FIELDS):
            fields.update(zip(ACCESS_FIELDS, record.args, strict=True))
        if record.exc_info:
            fields["exception"] = self.formatException(record.exc_info)
        return orjson.dumps(fields, default=str).decode()


def configure_logging(log_format: str) -> None:
    """In the json format, every logger's messages through one JSON handler on stderr (the root's); in text,
    nothing changes."""
    if log_format != JSON:
        return
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonFormatter())
    root = logging.getLogger()
    root.handlers = [handler]
    root.setLevel(logging.WARNING)
    logging.getLogger(NOTICES).setLevel(logging.INFO)
    # Python's warnings (warnings.warn) as records too, not bare lines.
    logging.captureWarnings(True)


def notify(log_format: str, notice: str, *, warning: bool = False) -> None:
    """A start-up notice: a line on stderr (a warning set apart), or in the json format a record of NOTICES."""
    if log_format == JSON:
        logger = logging.getLogger(NOTICES)
        (logger.warning if warning else logger.info)(notice)
    elif warning:
        print(f"\nWARNING: {notice}\n", file=sys.stderr)
    else:
        print(notice, file=sys.stderr)
