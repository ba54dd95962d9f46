from __future__ import annotations

from pathlib import Path

import pytest

from tests.s3server import S3Server
from tests.upload.team import TEAM_STORES, TeamStore


@pytest.fixture(params=TEAM_STORES)
def team_store(request: pytest.FixtureRequest, tmp_path: Path) -> TeamStore:
    if request.param == "sqlite":
        return TeamStore(f"sqlite:{tmp_path / 'team.sqlite'}", (), None)
    s3: S3Server = request.getfixturevalue("s3")
    db: str = request.getfixturevalue("citus_url" if request.param == "citus+s3" else "postgres_url")
    return TeamStore(db, (f"--blobs=s3://{s3.bucket}/{tmp_path.name}",), s3.environment(tmp_path))
