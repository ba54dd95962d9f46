"""The tables both SQL backends create alike, written once for their migrations: each backend gives its dialect's
words for the types the two name differently (`TypeWords`). A reference names a table alone: its key (`id` in SQLite,
`experiment_id` in PostgreSQL) is meant."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class TypeWords:
    double: str
    bigint: str
    smallint: str
    boolean: str
    false: str
    # An integer key the database numbers itself.
    identity: str
    # After a table keyed by all of its columns: stored as its key alone, where the dialect can.
    key_only: str


SQLITE = TypeWords(
    double="REAL",
    bigint="INTEGER",
    smallint="INTEGER",
    boolean="INTEGER",
    false="0",
    identity="INTEGER PRIMARY KEY",
    key_only="WITHOUT ROWID",
)
POSTGRES = TypeWords(
    double="DOUBLE PRECISION",
    bigint="BIGINT",
    smallint="SMALLINT",
    boolean="BOOLEAN",
    false="FALSE",
    identity="BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
    key_only="",
)

# The audit log (trainboard.access.audit).
AUDIT_LOG = """
CREATE TABLE audit_log (
    entry_id {identity},
    at {double} NOT NULL,
    event TEXT NOT NULL,
    user_name TEXT,
    token_id TEXT,
    experiment_id TEXT,
    target_user TEXT,
    client TEXT,
    user_agent TEXT,
    detail TEXT NOT NULL
);
CREATE INDEX audit_log_by_time ON audit_log (at);
CREATE INDEX audit_log_by_user ON audit_log (user_name, entry_id);
CREATE INDEX audit_log_by_target ON audit_log (target_user, entry_id);
CREATE INDEX audit_log_by_experiment ON audit_log (experiment_id, entry_id);
"""

# Who made each pin (a user's id).
PIN_CREATORS = """
ALTER TABLE pins ADD COLUMN creator {bigint};
CREATE INDEX pins_by_creator ON pins (creator);
"""

# Run metadata and saved views (trainboard.store.run_metadata).
RUN_METADATA = """
CREATE TABLE run_metadata (
    experiment_id TEXT NOT NULL REFERENCES experiments,
    run TEXT NOT NULL,
    display_name TEXT NOT NULL DEFAULT '',
    notes TEXT NOT NULL DEFAULT '',
    starred {boolean} NOT NULL DEFAULT {false},
    color TEXT,
    updated {double} NOT NULL,
    PRIMARY KEY (experiment_id, run)
);
CREATE TABLE run_labels (
    experiment_id TEXT NOT NULL REFERENCES experiments,
    run TEXT NOT NULL,
    label TEXT NOT NULL,
    PRIMARY KEY (experiment_id, run, label)
) {key_only};
CREATE INDEX run_labels_by_label ON run_labels (experiment_id, label);
CREATE TABLE saved_views (
    experiment_id TEXT NOT NULL REFERENCES experiments,
    view_id TEXT NOT NULL,
    name TEXT NOT NULL,
    state TEXT NOT NULL,
    creator {bigint},
    created {double} NOT NULL,
    updated {double} NOT NULL,
    PRIMARY KEY (experiment_id, view_id),
    UNIQUE (experiment_id, name)
);
"""

# Derived metrics (trainboard.provider.derived): a named expression over an experiment's scalar tags.
DEFINITIONS = """
CREATE TABLE definitions (
    experiment_id TEXT NOT NULL REFERENCES experiments,
    name TEXT NOT NULL,
    expression TEXT NOT NULL,
    align TEXT NOT NULL,
    created {double} NOT NULL,
    PRIMARY KEY (experiment_id, name)
);
"""

# The roles single sign-on's claims gave (trainboard.access.accounts.Accounts.apply_claim_roles), and the role each
# replaced: taken back when the claim goes. An account table (a reference table under Citus).
CLAIM_ROLES = """
CREATE TABLE claim_roles (
    experiment_id TEXT NOT NULL REFERENCES experiments,
    user_id {bigint} NOT NULL REFERENCES users,
    role {smallint} NOT NULL,
    replaced {smallint},
    PRIMARY KEY (experiment_id, user_id)
);
CREATE INDEX claim_roles_by_user ON claim_roles (user_id, experiment_id);
"""


def in_dialect(schema: str, words: TypeWords) -> str:
    """The schema's text with the dialect's words."""
    return schema.format(**dataclasses.asdict(words))
