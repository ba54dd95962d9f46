"""The store contract for the audit log (`trainboard.store.audit`) and the rules over it (`trainboard.access.audit`):
every backend must pass these."""

from __future__ import annotations

from trainboard.access.audit import Actor, AuditLog, Event, detail_of
from trainboard.store.audit import AuditQuery
from trainboard.store.store import Store


class Clock:
    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


ADA = Actor(user="ada", token_id="0123456789", client="10.0.0.7", user_agent="curl/8.5")
BOB = Actor(user="bob", token_id="abcdefabcd", client="10.0.0.8", user_agent="python-httpx/0.28")


def test_events_are_stored_with_who_where_and_what_and_read_newest_first(store: Store) -> None:
    clock = Clock()
    audit = AuditLog(store.accounts, clock)
    audit.record(Event.SIGN_IN, ADA, method="token")
    clock.now += 1
    audit.record(Event.ROLE_CHANGE, ADA, experiment_id="e1", target_user="bob", role="read")
    clock.now += 1
    audit.record(Event.UPLOAD_START, BOB, experiment_id="e1", run="train", path="train/events.out\nFORGED")
    rows = audit.events(AuditQuery())
    assert [row.event for row in rows] == ["upload_start", "role_change", "sign_in"]
    assert [row.at for row in rows] == [1_000_002.0, 1_000_001.0, 1_000_000.0]
    ids = [row.id for row in rows if row.id is not None]
    assert len(ids) == 3 and ids == sorted(ids, reverse=True)
    upload, share, sign_in = rows
    assert (upload.user, upload.token_id, upload.client, upload.user_agent, upload.experiment_id) == (
        "bob",
        "abcdefabcd",
        "10.0.0.8",
        "python-httpx/0.28",
        "e1",
    )
    # What a client chose comes back exactly as given (a newline too): the output escapes it, not the store.
    assert detail_of(upload) == {"run": "train", "path": "train/events.out\nFORGED"}
    assert (share.target_user, detail_of(share)) == ("bob", {"role": "read"})
    assert (sign_in.experiment_id, sign_in.target_user, detail_of(sign_in)) == (None, None, {"method": "token"})


def test_events_are_filtered_by_time_user_and_experiment_and_paged(store: Store) -> None:
    clock = Clock()
    audit = AuditLog(store.accounts, clock)
    for step in range(10):
        clock.now = 1_000_000.0 + step
        actor = ADA if step % 2 == 0 else BOB
        audit.record(Event.PIN_CREATE, actor, experiment_id=f"e{step % 3}", pin=f"p{step}")
    audit.record(Event.ROLE_CHANGE, ADA, experiment_id="e0", target_user="bob", role="admin")

    def pins(query: AuditQuery) -> list[object]:
        return [detail_of(row).get("pin", row.event) for row in audit.events(query)]

    assert pins(AuditQuery(since=1_000_007.0)) == ["role_change", "p9", "p8", "p7"]
    # A user's events: what they did, and what was done to them.
    assert pins(AuditQuery(user="bob")) == ["role_change", "p9", "p7", "p5", "p3", "p1"]
    assert pins(AuditQuery(experiment_id="e1")) == ["p7", "p4", "p1"]
    assert pins(AuditQuery(user="ada", experiment_id="e0", since=1_000_003.0)) == ["role_change", "p6"]
    first = audit.events(AuditQuery(limit=4))
    assert len(first) == 4
    second = audit.events(AuditQuery(limit=4, before=first[-1].id))
    rest = audit.events(AuditQuery(limit=4, before=second[-1].id))
    paged = [detail_of(row).get("pin", row.event) for row in [*first, *second, *rest]]
    assert paged == pins(AuditQuery(limit=100))
    assert len(paged) == 11 and audit.events(AuditQuery(before=rest[-1].id)) == []


def test_events_older_than_the_retention_are_deleted(store: Store) -> None:
    clock = Clock()
    audit = AuditLog(store.accounts, clock)
    for day in range(5):
        clock.now = 1_000_000.0 + day * 86_400
        audit.record(Event.SIGN_OUT, ADA, day=day)
    assert audit.delete_older_than(0) == 0  # 0: keep every event
    assert len(audit.events(AuditQuery())) == 5
    assert audit.delete_older_than(2.5) == 2
    assert [detail_of(row)["day"] for row in audit.events(AuditQuery())] == [4, 3, 2]


def test_a_long_user_agent_is_cut_and_nothing_but_the_token_id_is_kept(store: Store) -> None:
    audit = AuditLog(store.accounts)
    audit.record(Event.AUTH_FAILURE, Actor(None, "0123456789", "10.0.0.9", "x" * 5000))
    (row,) = audit.events(AuditQuery())
    assert row.user is None and row.token_id == "0123456789" and row.user_agent == "x" * 200
