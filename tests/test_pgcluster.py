"""The tests' PostgreSQL (tests/pgcluster.py): real, password-checked over TCP, a fresh database
per test."""

from __future__ import annotations

import asyncpg
import pytest
from pgcluster import PgCluster


async def test_a_fresh_database_per_test(pg_url: str, pg_cluster: PgCluster) -> None:
    conn = await asyncpg.connect(pg_url)
    try:
        assert (
            await conn.fetchval("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'") == 0
        )
        assert pg_url.startswith(f"postgresql://postgres:{pg_cluster.password}@127.0.0.1:")
    finally:
        await conn.close()


async def test_the_password_is_checked(pg_cluster: PgCluster) -> None:
    with pytest.raises(asyncpg.InvalidPasswordError):
        await asyncpg.connect(pg_cluster.url("postgres", password="not-the-password"))
