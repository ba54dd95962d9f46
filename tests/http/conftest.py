from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.http.teams import Team, team_server


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def team(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Team]:
    """`trainboard serve` on a team's store (`tests.http.teams.Team`), on each backend."""
    with team_server(request, request.param, "trainboard", tmp_path) as found:
        yield found
