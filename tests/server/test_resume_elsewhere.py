"""A cluster's node answering a RESUME whose token it does not know (`resume_elsewhere`), with the
cluster's answers made up: a token that leads to a saved table this node could not take up is
told to try again (INTERNAL_ERROR), never UNKNOWN_SESSION, which sends the client to a fresh
login and leaves its seat to be auto-picked. (The chaos run: a stopping node handed its tables
to another, PostgreSQL paused; as it came back, resumes at the new node, which the table's lease
named but which was still taking it up, were told UNKNOWN_SESSION, and two bots logged in afresh.)"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any, cast

import pytest

from sushigo.protocol import ErrorCode, Resume
from sushigo.protocol.versions import REDIRECT_VERSION
from sushigo.server.errors import TableError
from sushigo.server.routing.redirect import Owner, resume_elsewhere

HERE = "a"


class Cluster:
    """What `resume_elsewhere` asks of the cluster: where the token leads, and taking it up."""

    def __init__(self, owner: Owner | None) -> None:
        self.node = HERE
        self.owner = owner
        self.taken: list[str] = []

    async def token_owner(self, digest: bytes) -> Owner | None:
        return self.owner

    async def take_up(self, tables: object, table_id: str) -> list[tuple[str, bytes]]:
        self.taken.append(table_id)
        return []  # another node took it meanwhile, or it is still being restored here


async def _answer(owner: Owner | None) -> tuple[Cluster, list[str]]:
    """Ask `resume_elsewhere` for a RESUME and carry its question out: the cluster, and what
    the node did ("resumed here" or the refusal's code name)."""
    cluster = Cluster(owner)
    asked: list[Any] = []
    hub = SimpleNamespace(
        cluster=cluster,
        sessions={},
        tables={},
        storage=SimpleNamespace(find_token=lambda digest: None),
        ask=lambda job, then, **_: asked.append((job, then)),
    )
    conn = SimpleNamespace(proto=SimpleNamespace(version=REDIRECT_VERSION))
    done: list[str] = []

    def resume(now: float) -> None:  # as `resume_session`, for a token leading nowhere here
        done.append("resumed here")
        raise TableError(ErrorCode.UNKNOWN_SESSION, "no session for that token")

    msg = Resume(ref=1, token=b"t" * 32, last_seq=0)
    assert resume_elsewhere(cast(Any, hub), cast(Any, conn), msg, resume)
    ((job, then),) = asked
    try:
        then(await job(), 0.0)
    except TableError as exc:
        done.append(exc.code.name)
    return cluster, done


@pytest.mark.parametrize("alive", [True, False])
async def test_a_saved_table_not_taken_up_here_is_asked_for_again(alive: bool) -> None:
    # The lease named this node when the database was asked (alive: handed here, still being
    # taken up; lapsed: this node's before its lapse, its writes not yet all stored).
    cluster, done = await _answer(Owner("t1", HERE, "127.0.0.1:1", alive, saved=True))
    assert cluster.taken == ["t1"]
    assert done == ["INTERNAL_ERROR"]


async def test_a_token_that_leads_nowhere_is_unknown() -> None:
    _, done = await _answer(None)
    assert done == ["resumed here", "UNKNOWN_SESSION"]


async def test_a_table_never_saved_here_is_unknown_once_not_taken_up() -> None:
    # Its game never began: nothing of it is stored to take up.
    cluster, done = await _answer(Owner("t1", HERE, "127.0.0.1:1", False, saved=False))
    assert cluster.taken == ["t1"]
    assert done == ["resumed here", "UNKNOWN_SESSION"]
