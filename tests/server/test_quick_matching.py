"""The cluster's quick-match plan (server/routing/matching.py `plan`), sans-IO: which players of
the nodes' waiting tables go where. The end to end tests are tests/cluster/test_cluster_quick*.py."""

from __future__ import annotations

import itertools
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

from sushigo.server.routing.matching import Move, Waiting, plan


def table(
    table_id: str, node: str, seated: int, players: int = 4, kind: str = "sushi-go"
) -> Waiting:
    return Waiting(table_id, node, f"{node}:7777", kind, players, players - seated)


def after(waiting: list[Waiting], moves: list[Move]) -> Counter[str]:
    """The players seated at each table once the moves are made (new tables included)."""
    seated = Counter({w.table_id: w.players - w.free for w in waiting})
    for move in moves:
        seated[move.source] -= move.count
        seated[move.table_id] += move.count
    return seated


def test_one_and_three_over_two_nodes_make_one_table() -> None:
    waiting = [table("t1", "a", 1), table("t2", "b", 3)]
    assert plan(waiting) == [Move("t1", "a", 1, "t2", "b", "b:7777", "sushi-go", 4)]


def test_one_one_two_over_three_nodes_make_one_table() -> None:
    waiting = [table("t1", "a", 1), table("t2", "b", 1), table("t3", "c", 2)]
    moves = plan(waiting)
    assert {(m.source, m.table_id, m.count) for m in moves} == {("t1", "t3", 1), ("t2", "t3", 1)}
    assert after(waiting, moves)["t3"] == 4


def test_only_what_fits_moves_and_the_rest_stays() -> None:
    """Three and three of four: one moves and fills the first table (its game begins); the
    other two stay where they are, for the next players."""
    waiting = [table("t1", "a", 3), table("t2", "b", 3)]
    assert plan(waiting) == [Move("t2", "b", 1, "t1", "a", "a:7777", "sushi-go", 4)]


def test_games_and_sizes_are_never_mixed() -> None:
    waiting = [
        table("t1", "a", 1),
        table("t2", "b", 1, players=3),
        table("t3", "c", 1, kind="sushi-roll"),
    ]
    assert plan(waiting) == []


def test_a_draining_nodes_tables_give_all_their_players_away() -> None:
    """A draining node takes no players, even at a fuller table: its two go to b's one; and
    with no table elsewhere, to a new one on the spare node."""
    waiting = [table("t1", "a", 2), table("t2", "b", 1)]
    assert plan(waiting, draining={"a"}) == [Move("t1", "a", 2, "t2", "b", "b:7777", "sushi-go", 4)]
    ids = iter(["new1"])
    moves = plan(
        [table("t1", "a", 2)], {"a"}, spare=lambda: ("c", "c:7777"), new_id=lambda: next(ids)
    )
    assert moves == [Move("t1", "a", 2, "new1", "c", "c:7777", "sushi-go", 4, new=True)]
    assert plan([table("t1", "a", 2)], {"a"}, spare=lambda: None) == []


@given(
    st.lists(
        st.tuples(st.sampled_from("abc"), st.integers(2, 5), st.integers(1, 4)),
        min_size=0,
        max_size=12,
    )
)
def test_a_plan_never_overfills_never_undoes_and_leaves_fewer_tables(
    shapes: list[tuple[str, int, int]],
) -> None:
    """Whatever waits: no table ends with more players than seats, no player is lost, a table
    never both gives and takes, and the tables with players left are as few as fit them."""
    waiting = [
        table(f"t{i}", node, min(seated, players - 1), players)
        for i, (node, players, seated) in enumerate(shapes)
    ]
    moves = plan(waiting)
    seated = after(waiting, moves)
    size = {w.table_id: w.players for w in waiting}
    assert all(0 <= seated[t] <= size[t] for t in size)
    assert sum(seated.values()) == sum(w.players - w.free for w in waiting)
    assert not {m.source for m in moves} & {m.table_id for m in moves}
    for players, group in itertools.groupby(sorted(size, key=size.get), key=size.get):
        tables = list(group)
        total = sum(seated[t] for t in tables)
        left = sum(1 for t in tables if seated[t])
        assert left <= -(-total // players) + 1  # at most one table more than they fill
