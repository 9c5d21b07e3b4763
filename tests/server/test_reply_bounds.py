"""Every frame a client can make the server send has a documented bound, well under the 1 MiB
frame limit (PROTOCOL.md section 8, "The largest frames"): each bound checked here at its worst
case, the server's pages through the hub, the others built with every field at its longest."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import msgpack
import pytest
from admin_helpers import admin, admin_hub, ask
from server_helpers import Clock, Peer, card_settings, logged_in, make_hub, table_with_bots

from sushigo.protocol import (
    SERVER_LIMITS,
    AdminAudit,
    AdminBan,
    AdminSanctions,
    AdminSessions,
    Announcement,
    AuditList,
    ChatMessage,
    CreateTable,
    CreateTournament,
    Error,
    ErrorCode,
    GameList,
    GameResult,
    GameSummary,
    JoinTable,
    Leaderboard,
    LeaveTable,
    ListTables,
    LoggedIn,
    Message,
    NodeInfo,
    NodeList,
    Rated,
    SanctionList,
    SeatInfo,
    SessionInfo,
    SessionList,
    Spectate,
    Standing,
    TableInfo,
    TableJoined,
    TableList,
    TableSettings,
    TableStatus,
    TableUpdate,
    TableView,
    TournamentInfo,
    TournamentList,
    TournamentSettings,
    TournamentStatus,
    TournamentUpdate,
)
from sushigo.protocol._registry import to_frame
from sushigo.server.config import HubConfig
from sushigo.server.hub.core import Hub
from sushigo.server.lobby.pages import TABLE_LIST_BYTES

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def bounds() -> dict[str, int]:
    """Section 8's "largest frames" table: each message named in a row -> its bound in bytes."""
    text = DOC[DOC.index("The largest frames") : DOC.index("\n## 9. ")]
    out: dict[str, int] = {}
    for names, size in re.findall(r"^\| ((?:`\w+`(?:, )?)+) \| (\d+) KiB", text, re.M):
        for name in re.findall(r"`(\w+)`", names):
            out[name] = int(size) * 1024
    return out


BOUNDS = bounds()


def frame_size(message: Message, game: Any = None) -> int:
    return len(to_frame(message, 2**62, SERVER_LIMITS.max_body, game))


def wide(n: int) -> str:
    """`n` characters of four bytes each (CJK ideographs NFKC leaves alone)."""
    return "".join(chr(0x20000 + i) for i in range(n))


def ascii_(n: int) -> str:
    return "x" * n


MILLI = -(2**40)
U32 = 2**32 - 1


def seat(i: int) -> SeatInfo:
    return SeatInfo(seat=i, player_id=ascii_(64), name=wide(24), bot=True, connected=False)


LONGEST_INFO = TableInfo(
    table_id=ascii_(32),
    settings=TableSettings(
        kind=ascii_(32), players=8, variants=(ascii_(32),) * 3, turn_seconds=600
    ),
    status=TableStatus.PLAYING,
    host=ascii_(64),
    seats=tuple(seat(i) for i in range(8)),
    spectators=U32,
)
"""A table's view at its longest: eight seats of the longest names and ids, three variants (the
most a built-in game has, each named once)."""
RATED = Rated(
    rank=U32,
    player_id=ascii_(64),
    name=wide(24),
    rating_milli=MILLI,
    mu_milli=MILLI,
    sigma_milli=MILLI,
    games=U32,
)
SUMMARY = GameSummary(
    game_id=ascii_(64),
    table_id=ascii_(32),
    kind=ascii_(32),
    finished_ms=2**53,
    players=(GameResult(seat=7, name=wide(24), player_id=ascii_(64), score=-10000, place=8),) * 8,
    seat=7,
)
T_SETTINGS = TournamentSettings(
    name=wide(32), kind=ascii_(32), players=8, variants=(ascii_(32),) * 3, games=10000
)
TOURNAMENT = TournamentInfo(
    settings=T_SETTINGS,
    status=TournamentStatus.RUNNING,
    host=ascii_(64),
    games_done=U32,
    games_running=U32,
)
"""A tournament as the list shows it at its longest (no standings)."""
STANDING = Standing(
    player_id=ascii_(64),
    name=wide(24),
    games=U32,
    wins_milli=MILLI,
    points=MILLI,
    mean_place_milli=MILLI,
    rating_milli=MILLI,
)
SESSION = SessionInfo(
    session_id=ascii_(32),
    player_id=ascii_(64),
    name=wide(24),
    guest=True,
    address=ascii_(64),
    connected=False,
    table_id=ascii_(32),
    seat=7,
    admin=True,
    muted=True,
)

WORST: dict[str, Callable[[], Message]] = {
    "table_joined": lambda: TableJoined(ref=U32, table=LONGEST_INFO, seat=7),
    "table_update": lambda: TableUpdate(ref=U32, table=LONGEST_INFO),
    "chat_message": lambda: ChatMessage(
        table_id=ascii_(32), player_id=ascii_(64), name=wide(24), text=wide(500)
    ),
    "leaderboard": lambda: Leaderboard(
        ref=U32, kind=ascii_(32), top=(RATED,) * 100, total=U32, mine=RATED
    ),
    "game_list": lambda: GameList(
        ref=U32, games=(SUMMARY,) * 50, offset=U32, more=True, guest=True
    ),
    "tournament_list": lambda: TournamentList(
        ref=U32,
        tournaments=(TOURNAMENT,) * 100,
    ),
    "tournament_info": lambda: TournamentUpdate(
        ref=U32,
        # a tournament takes 256 entrants at most
        tournament=replace(TOURNAMENT, standings=(STANDING,) * 256),
    ),
    "node_list": lambda: NodeList(
        ref=U32,
        nodes=(
            NodeInfo(
                name=wide(64),
                here=True,
                draining=True,
                connections=U32,
                sessions=U32,
                tables=U32,
                playing=U32,
                started_ms=2**53,
            ),
        )
        * 64,
    ),
    "table_view": lambda: TableView(
        ref=U32,
        table=LONGEST_INFO,
        phase="committing",
        round=255,
        turn=65535,
        steps=U32,
        acting=tuple(range(8)),
        deadline_ms=86_400_000,
        observation=b"\xff" * 16 * 1024,  # a public observation of a built-in game: under 4 KiB
        sessions=(SESSION,) * 256,
    ),
    "error": lambda: Error(ref=U32, code=65535, message=wide(500)),
    "announcement": lambda: Announcement(text=wide(500), by=wide(24)),
    "logged_in": lambda: LoggedIn(
        ref=U32,
        player_id=ascii_(64),
        name=wide(24),
        guest=False,
        resume_token=b"t" * 64,
        nodes=(ascii_(128),) * 64,
    ),
}


@pytest.mark.parametrize("name", sorted(WORST))
def test_each_reply_at_its_longest_is_within_its_documented_bound(name: str) -> None:
    assert name in BOUNDS, f"section 8 states no bound for {name}"
    size = frame_size(WORST[name]())
    assert size <= BOUNDS[name], f"{name}: {size} bytes at its longest, over {BOUNDS[name]}"
    assert BOUNDS[name] <= SERVER_LIMITS.max_body // 4, "well under the frame limit"


def test_every_bound_is_well_under_the_frame_limit() -> None:
    assert BOUNDS and all(b <= SERVER_LIMITS.max_body // 3 for b in BOUNDS.values())


# -- the server's pages, through the hub ---------------------------------------------------------


def long_named(hub: Hub, clock: Clock, count: int, seats: int = 5) -> None:
    """`count` open tables of `seats` seats, each player under a name of 24 four-byte
    characters; every seat taken but the last."""
    for i in range(count):
        host = Peer(hub, clock, address=f"10.1.{i // 200}.{i % 200}")
        host.login(wide_name(i, 0))
        table_id = host.create(card_settings(seats)).table.table_id
        for s in range(1, seats - 1):
            guest = Peer(hub, clock, address=f"10.2.{i // 200}.{i % 200}")
            guest.login(wide_name(i, s))
            guest.send(_join(guest, table_id))


def wide_name(table: int, seat_: int) -> str:
    """A name of 24 four-byte characters of its own for each (table, seat)."""
    return chr(0x21000 + table * 8 + seat_) + wide(23)


def _join(peer: Peer, table_id: str) -> JoinTable:
    return JoinTable(ref=peer.ref(), table_id=table_id)


def test_a_table_list_page_stays_under_64_kib_whatever_the_names() -> None:
    hub, clock = make_hub(
        HubConfig(tables_per_player=2, messages_per_second=1e6, message_burst=1e6)
    )
    long_named(hub, clock, 100)
    lister = logged_in(hub, clock, "lister", address="10.9.9.9")
    seen: list[str] = []
    offset = 0
    while True:
        before = len(lister.transport.buffer)
        lister.send(ListTables(ref=lister.ref(), offset=offset, limit=100))
        page = lister.expect(TableList)
        size = len(lister.transport.buffer) - before
        assert size <= TABLE_LIST_BYTES == BOUNDS["table_list"]
        assert page.total == 100
        seen += [t.table_id for t in page.tables]
        offset += len(page.tables)
        if offset >= page.total:
            break
        assert 0 < len(page.tables) < 100  # 100 of these do not fit in one page
    assert sorted(seen) == sorted(hub.tables) and len(set(seen)) == 100


def test_a_table_list_page_is_built_once_and_shows_a_change_at_once() -> None:
    hub, clock = make_hub(HubConfig(messages_per_second=1e6, message_burst=1e6))
    host = logged_in(hub, clock, "host")
    table_id = host.create(card_settings(3)).table.table_id
    lister = logged_in(hub, clock, "lister", address="10.9.9.9")
    lister.send(ListTables(ref=lister.ref()))
    lister.expect(TableList)
    pages = hub.lobby.pages
    built = pages.page(hub.tables, None, None, 0, 50, clock.now)
    lister.send(ListTables(ref=lister.ref()))
    lister.expect(TableList)
    assert pages.page(hub.tables, None, None, 0, 50, clock.now) is built  # not built again
    guest = logged_in(hub, clock, "guest", address="10.0.0.2")
    guest.send(_join(guest, table_id))
    lister.send(ListTables(ref=lister.ref()))
    changed = lister.expect(TableList)
    assert [s.name for s in changed.tables[0].seats] == ["host", "guest", None]


def test_duplicate_variants_are_refused_not_echoed() -> None:
    hub, clock = make_hub()
    peer = logged_in(hub, clock, "twice")
    settings = TableSettings(kind="sushi-go", players=2, variants=("soy_sauce",) * 16)
    peer.send(CreateTable(ref=5, settings=settings))
    refused = peer.expect(Error)
    assert (refused.code, refused.ref) == (ErrorCode.BAD_SETTINGS, 5)
    assert "soy_sauce" in refused.message and not hub.tables
    tournament = TournamentSettings(
        name="twice", kind="sushi-go", players=2, variants=("dummy", "dummy")
    )
    peer.send(CreateTournament(ref=6, settings=tournament))
    assert peer.expect(Error).code == ErrorCode.BAD_SETTINGS


@pytest.fixture
def admin_with_500_bans() -> Peer:
    loose = HubConfig(messages_per_second=1e6, message_burst=1e6, bytes_per_second=1e9)
    hub, clock, _ = admin_hub(config=loose)
    root = admin(hub, clock)
    for i in range(500):
        done = ask(root, AdminBan(target=f"10.{i // 250}.{i % 250}.0/24", reason=wide(500)))
        assert done.TYPE == "admin_done"
    return root


def test_admin_listings_come_in_pages_under_64_kib(admin_with_500_bans: Peer) -> None:
    root = admin_with_500_bans
    got: list[str] = []
    while True:
        page = ask(root, AdminSanctions(offset=len(got), limit=500))
        assert isinstance(page, SanctionList) and page.total == 500
        assert frame_size(page) <= BOUNDS["sanction_list"]
        assert page.sanctions
        got += [s.target for s in page.sanctions]
        if len(got) >= page.total:
            break
    assert len(set(got)) == 500
    entries = 0
    more = True
    while more:
        audit = ask(root, AdminAudit(offset=entries, limit=500))
        assert isinstance(audit, AuditList) and frame_size(audit) <= BOUNDS["audit_list"]
        entries += len(audit.entries)
        more = audit.more
    assert entries == 500


def test_the_admins_session_list_comes_in_pages_under_64_kib() -> None:
    hub, clock, _ = admin_hub(
        config=HubConfig(max_per_address=1000, messages_per_second=1e6, message_burst=1e6)
    )
    root = admin(hub, clock)
    for i in range(499):
        Peer(hub, clock, address=f"10.3.{i // 200}.{i % 200}").login(wide_name(i, 7))
    got = 0
    while True:
        page = ask(root, AdminSessions(offset=got, limit=500))
        assert isinstance(page, SessionList) and frame_size(page) <= BOUNDS["session_list"]
        got += len(page.sessions)
        if got >= page.total:
            break
        assert 0 < len(page.sessions) < 500
    assert got == 500


# -- a game's frames ---------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["sushi-go", "sushi-roll"])
def test_a_games_frames_are_within_their_bound(kind: str) -> None:
    hub, clock = make_hub()
    variants = ("soy_sauce",) if kind == "sushi-go" else ()
    settings = TableSettings(kind=kind, players=5, variants=variants, turn_seconds=5)
    host = table_with_bots(hub, clock, "host", settings, *["random"] * 4, start=False)
    watcher = logged_in(hub, clock, "watcher", address="10.0.0.2")
    sizes: Counter[str] = Counter()
    write = watcher.transport.write

    def measured(data: bytes) -> None:  # the hub writes one frame at a time
        name = msgpack.unpackb(data[4:])["type"]
        sizes[name] = max(sizes[name], len(data))
        write(data)

    watcher.transport.write = measured  # type: ignore[method-assign]
    watcher.send(Spectate(ref=watcher.ref(), table_id=host.table_id))
    watcher.table_id = host.table_id  # it checks every opening, as a client must
    host.start()
    host.send(LeaveTable(ref=host.ref()))  # a bot plays the seat: five bots play it out
    for _ in range(200):
        clock.advance(6, step=6)
        watcher.drain()
        if "game_over" in sizes:
            break
    assert "game_over" in sizes and "turn_start" in sizes
    for name, size in sizes.items():
        assert name in BOUNDS, f"section 8 states no bound for {name}"
        assert size <= BOUNDS[name], f"{kind} {name}: {size} bytes, over {BOUNDS[name]}"
