"""Experiment names are unique per owner (`trainboard.store.experiment_names`): the commands and the Python API that
take an experiment's name find it as someone (`tokens create` as its user, the others as no user: an experiment
without an owner is theirs), and refuse a name that several others have with their ids, never picking one."""

from __future__ import annotations

import io
import signal
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

import trainboard
from tests.cli.logs import write_run
from tests.commands import in_process_command as cli
from trainboard.access.accounts import Accounts
from trainboard.cli import main
from trainboard.store.experiment_names import AmbiguousName
from trainboard.store.opening import open_store


def failing(*flags: str) -> str:
    """What `trainboard FLAGS` says on standard error; it must fail."""
    errors = io.StringIO()
    terminate = signal.getsignal(signal.SIGTERM)
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(errors), pytest.raises(SystemExit) as exit:
            main(list(flags))
    finally:
        signal.signal(signal.SIGTERM, terminate)
    assert exit.value.code == 1, errors.getvalue()
    return errors.getvalue()


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "postgres":
        url: str = request.getfixturevalue("postgres_url")
        return url
    return f"sqlite:{tmp_path / 'team.sqlite'}"


def test_commands_and_the_api_find_a_name_as_their_user_and_refuse_one_several_others_have(
    db: str, tmp_path: Path
) -> None:
    write_run(tmp_path / "logs" / "train", steps=3)
    cli("ingest", f"--db={db}", "--experiment=logs", f"--logdir={tmp_path / 'logs'}")
    for user in ("ada", "bob", "cy"):
        cli("users", "add", user, f"--db={db}")
    store = open_store(db)
    try:
        accounts = Accounts(store.accounts)
        owners = {}
        for user in ("ada", "bob"):
            principal = accounts.authenticate(accounts.create_token(user)[1])
            assert principal is not None
            owners[user] = accounts.create_experiment(principal, "baseline")
    finally:
        store.close()
    ids = ", ".join(sorted(owners.values()))
    ambiguous = f"2 experiments are named 'baseline', none of them yours: give one's id instead ({ids})"

    # `tokens create` finds as the token's user: ada's own, and for cy, who owns none, neither.
    cli("tokens", "create", f"--db={db}", "--user=ada", "--experiment=baseline", "--role=write")
    assert ambiguous in failing("tokens", "create", f"--db={db}", "--user=cy", "--experiment=baseline")
    cli("tokens", "create", f"--db={db}", "--user=cy", f"--experiment={owners['bob']}")
    store = open_store(db)
    try:
        limits = {token.experiment_id for token in store.accounts.tokens(None) if token.experiment_id}
    finally:
        store.close()
    assert limits == {owners["ada"], owners["bob"]}

    # The others find as no user.
    assert ambiguous in failing("audit", f"--db={db}", "--experiment=baseline")
    assert ambiguous in failing("export", f"--db={db}", "--experiment=baseline", f"--out={tmp_path / 'out'}")
    assert ambiguous in failing("ingest", f"--db={db}", "--experiment=baseline", f"--logdir={tmp_path / 'logs'}")
    with pytest.raises(AmbiguousName, match="none of them yours"):
        trainboard.open(db, experiment="baseline")
    with trainboard.open(db, experiment=owners["ada"]) as adas, trainboard.open(db, experiment="logs") as logs:
        assert (adas.name, len(adas.scalars()), logs.name, len(logs.scalars())) == ("baseline", 0, "logs", 3)
