"""What a node's log says while its PostgreSQL is away (stopped: every connection refused), on
real nodes and a real PostgreSQL of the test's own: each background task that retries through
the outage says its failure once as it begins (again only if what is wrong changes), and one
line when it works again, as the lease renewal does; not one line for every retry, twice a
second, for as long as the outage lasts."""

from __future__ import annotations

import asyncio
import re
from itertools import pairwise
from pathlib import Path

from nodes import cluster_key, eventually, knowing, node, unformatted
from pgcluster import own_postgresql

OUTAGE = 3.0
"""Seconds PostgreSQL is stopped: six turns of the quick-match merger (`MATCH_SECONDS`)."""
LEASE = 15.0
"""Outlasts the outage: the nodes keep their leases through it."""
MERGING = b"merging the quick-match tables"


def said(log: bytes, what: bytes) -> list[bytes]:
    """What the log's lines say went wrong with `what` (the text after ``what: ``), in order."""
    return re.findall(re.escape(what) + rb": (.*)", log)


async def test_an_outage_is_said_once_and_its_end_once(tmp_path: Path) -> None:
    async with own_postgresql() as (pg, url):
        key = cluster_key(tmp_path)
        a = node(url, key, "a", lease=LEASE)
        b = node(url, key, "b", lease=LEASE)
        await a.start()
        await b.start()
        try:
            # Each merges only once it knows of another node (a lone node has nothing to merge).
            for n in (a, b):
                client = await eventually(lambda n=n: knowing(n.port, "ann", 2), 20)
                await client.close()
            stopped = asyncio.get_running_loop().time()
            await asyncio.to_thread(pg.stop)
            for n in (a, b):
                await n.logged(lambda log: bool(said(log, MERGING)), 10)
            # The outage's length: a fault's, not a wait for an event.
            await asyncio.sleep(max(0.0, stopped + OUTAGE - asyncio.get_running_loop().time()))
            await asyncio.to_thread(pg.start)
            for n in (a, b):
                await n.logged(lambda log: MERGING + b" works again after " in log, 15)
        finally:
            await asyncio.gather(a.stop(), b.stop())
        for n in (a, b):
            failures = said(n.log, MERGING)
            assert failures, n.log.decode()
            # Said again only when what is wrong changes (refused, the server shutting down...).
            assert all(x != y for x, y in pairwise(failures)), failures
            assert len(failures) <= 3, failures
            assert n.log.count(MERGING + b" works again after ") == 1
            assert unformatted(n.log) == []
