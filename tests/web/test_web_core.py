"""The web client's core in a real headless Chromium (web_core_page.py): the protocol's test
vectors read from docs/PROTOCOL.md, the page's ports of both games' rules against the Python
engine on many seeded games of every table size and variant, signed records whole and tampered
with, and the protocol client playing whole games against a real `sushigo-server`."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from pgcluster import free_port
from web_core_page import ServerProcess, Site, run_suite
from web_crosscheck import games, key_files, records

pytestmark = pytest.mark.asyncio(loop_scope="session")  # conftest.py's `chromium` is on it

GAMES_PER_TABLE = 8
"""Seeded Sushi Go! games of every table size and variant (20 tables: 160 games)."""
GAMES_PER_ROLL_SIZE = 20
"""Seeded Sushi Roll games of every table size (4 sizes: 80 games)."""


@pytest.fixture(scope="module")
def site() -> Iterator[Site]:
    fixtures = {
        "games.json": json.dumps(games(GAMES_PER_TABLE, GAMES_PER_ROLL_SIZE)).encode(),
        "records.json": json.dumps(records()).encode(),
        "keys.json": json.dumps(key_files()).encode(),
    }
    with Site(fixtures) as running:
        yield running


def _failures(results: list[dict[str, Any]]) -> list[str]:
    assert results, "the page ran no test"
    return [f"{r['name']}: {r['error']}" for r in results if not r["ok"]]


async def test_the_protocol_vectors_in_the_page(chromium: Any, site: Site) -> None:
    results = await run_suite(chromium, site.url("vectors"))
    assert _failures(results) == []
    assert len(results) >= 18


async def test_the_pages_rules_agree_with_the_engine_bit_for_bit(chromium: Any, site: Site) -> None:
    results = await run_suite(chromium, site.url("games"), timeout_s=300)
    assert _failures(results) == []
    played = [r for r in results if r["name"].startswith("game ")]
    assert len(played) == 20 * GAMES_PER_TABLE + 4 * GAMES_PER_ROLL_SIZE


@pytest.fixture
def server(tmp_path: Path) -> Iterator[ServerProcess]:
    """A real `sushigo-server` on a free loopback port, its database in `tmp_path`."""
    proc = ServerProcess(tmp_path)
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


async def test_the_client_plays_and_verifies_against_a_real_server(
    chromium: Any, server: ServerProcess
) -> None:
    with Site({}, {"restart": server.restart}) as site:
        results = await run_suite(chromium, site.url("client", ws=server.ws_url), timeout_s=300)
    assert _failures(results) == []
    assert len(results) >= 6


@pytest.mark.parametrize(
    ("suite", "cases"),
    [("checks", 14), ("connection", 20), ("identity", 7)],
    ids=[
        "the page's checks catch a cheating server",
        "the page's connection refuses what breaks the protocol",
        "the page's keys are the terminal client's",
    ],
)
async def test_a_suite_of_the_page_passes(
    chromium: Any, site: Site, suite: str, cases: int
) -> None:
    """One of the page's own suites, run in Chromium: every case passes, and none is missing."""
    results = await run_suite(chromium, site.url(suite))
    assert _failures(results) == []
    assert len(results) >= cases


async def test_the_client_follows_a_clusters_redirect(
    chromium: Any, pg_url: str, tmp_path: Path
) -> None:
    """Two nodes of a cluster, each serving the page's WebSocket: a player on the node that does
    not hold a table joins it, the core follows the REDIRECT there with its ticket, and the two
    players' game verifies for both."""
    key = tmp_path / "cluster.key"
    nodes = []
    for name in ("a", "b"):
        port = free_port()
        cluster = ("--db", pg_url, "--key", str(key), "--node", name)
        extra = (*cluster, "--advertise", f"127.0.0.1:{port}", "--lease", "2")
        # (A node's --web needs its port beforehand: the cluster advertises it.)
        nodes.append(ServerProcess(tmp_path / name, extra, port, web_port=free_port()))
    try:
        for each in nodes:
            each.start()
        with Site({}) as site:
            url = site.url("cluster", ws=nodes[0].ws_url, ws2=nodes[1].ws_url)
            results = await run_suite(chromium, url, timeout_s=300)
    finally:
        for each in nodes:
            each.stop()
    assert _failures(results) == []
