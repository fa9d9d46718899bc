"""History tests run on both backends: SQLite files, and a real PostgreSQL server.

`.ci/run` starts PostgreSQL and exports its URL in QUORUM_TEST_POSTGRES_URL. Each test gets
its own schema there (dropped afterwards), so tests never see each other's rows. Without
the URL the PostgreSQL half skips, except under CI, where a missing server is a failure.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

POSTGRES_ENV = "QUORUM_TEST_POSTGRES_URL"


def postgres_url() -> str:
    """The test server's URL, or a skip (a failure under CI) when there is none."""
    url = os.environ.get(POSTGRES_ENV, "").strip()
    if not url:
        if os.environ.get("CI"):
            pytest.fail(f"{POSTGRES_ENV} is not set: CI must start PostgreSQL (see .ci/run)")
        pytest.skip(f"{POSTGRES_ENV} is not set: no PostgreSQL server for these tests")
    return url


@pytest.fixture(params=["sqlite", "postgresql"])
def db_target(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty history database target of each kind."""
    if request.param == "sqlite":
        yield str(tmp_path / "history.db")
        return
    import psycopg

    url = postgres_url()
    schema = f"test_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(url, autocommit=True) as admin:
        admin.execute(f"CREATE SCHEMA {schema}")
    separator = "&" if "?" in url else "?"
    try:
        yield f"{url}{separator}options=-csearch_path%3D{schema}"
    finally:
        with psycopg.connect(url, autocommit=True) as admin:
            admin.execute(f"DROP SCHEMA {schema} CASCADE")
