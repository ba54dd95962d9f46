"""`trainboard audit --db URL [--since WHEN] [--user NAME] [--experiment NAME]`: the store's audit log, one line per
event, oldest first:

    2026-11-27T10:32:56Z share user=ada token=3f9a2c1b0e experiment=Xb3... client=10.0.0.7 agent="curl/8.5" ...

What a client chose (its user agent, names) is quoted when it holds a space, a quote or a control character, with
those escaped: a line of the output is always one event.
"""

from __future__ import annotations

import json
import time

from trainboard.access.audit import AuditLog, detail_of
from trainboard.settings import Settings
from trainboard.store.audit import AuditQuery, AuditRow
from trainboard.store.experiment_names import find_experiment, ownerless
from trainboard.store.opening import open_store
from trainboard.store.store import Store

# Events read from the store at once.
PAGE = 1000


def run_audit(settings: Settings) -> None:
    store = open_store(settings.db)
    try:
        experiment_id = _experiment_id(store, settings.experiment) if settings.experiment else None
        query = AuditQuery(
            since=settings.since or None, user=settings.user or None, experiment_id=experiment_id, limit=PAGE
        )
        for row in reversed(_all(AuditLog(store.accounts), query)):
            print(line(row))
    finally:
        store.close()


def _all(audit: AuditLog, query: AuditQuery) -> list[AuditRow]:
    """Every event the query matches, newest first, read a page at a time."""
    found: list[AuditRow] = []
    while page := audit.events(query):
        found += page
        query = AuditQuery(query.since, query.user, query.experiment_id, before=page[-1].id, limit=query.limit)
    return found


def _experiment_id(store: Store, name: str) -> str:
    """The id of the experiment named so (one without an owner first: `trainboard.store.experiment_names`), or the
    text itself (an id, perhaps of an experiment deleted since)."""
    found = find_experiment(store.experiments(), name, own=ownerless)
    return name if found is None else found.id


def line(row: AuditRow) -> str:
    moment = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(row.at))
    fields = {
        "user": row.user,
        "token": row.token_id,
        "experiment": row.experiment_id,
        "target": row.target_user,
        "client": row.client,
        "agent": row.user_agent,
        **detail_of(row),
    }
    shown = " ".join(f"{name}={_value(value)}" for name, value in fields.items() if value is not None)
    return f"{moment} {row.event} {shown}".rstrip()


def _value(value: object) -> str:
    text = value if isinstance(value, str) else json.dumps(value)
    if text and all(character.isprintable() and character not in ' "\\' for character in text):
        return text
    # JSON's string escapes: control characters (a newline, an escape) as \n, \u001b.
    return json.dumps(text, ensure_ascii=False)
