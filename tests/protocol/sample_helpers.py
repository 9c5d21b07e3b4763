"""One valid sample of every message type, for the codec's tests, and real records: signed,
played at random, or built from given steps."""

from __future__ import annotations

import random

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from fair_records import fair_record
from protocol_helpers import (
    V2,
    roll_acted,
    roll_turn,
)

from sushigo.engine import (
    Game,
    GameOptions,
)
from sushigo.engine.games.sushi_roll import (
    RollGame,
    RollOptions,
    Take,
)
from sushigo.protocol import (
    CARD_WIRE,
    ROLL_WIRE,
    FairRecord,
    Phase,
    SignedRecord,
    StepRecord,
    Wire,
    derive_game_seed,
    make_commitment,
    messages,
    sign_record,
)
from sushigo.protocol.commitment import Opening

SERVER_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
TABLE = "t1"
OPTIONS3 = GameOptions(players=3)


def sample_record() -> SignedRecord:
    """A real, signed, verifiable record of a finished 2-player game."""
    options = GameOptions(players=2)
    server_seed, seeds = b"\x11" * 32, (b"\x22" * 32, b"\x33" * 32)
    record = play_record(TABLE, options, server_seed, seeds, seed=7)
    return sign_record(record, SERVER_KEY)


def play_record(
    table_id: str, options: GameOptions, server_seed: bytes, seeds: tuple[bytes, ...], seed: int
) -> FairRecord:
    """A complete fair record of a Sushi Go! game played with random legal actions and real
    commitments."""
    rnd = random.Random(seed)
    game = Game(options, derive_game_seed(table_id, server_seed, seeds))
    steps = []
    seats = tuple(range(options.players))
    while not game.is_terminal():
        picks = [rnd.choice(game.legal_actions(s)) for s in seats]
        nonces = [rnd.randbytes(32) for _ in picks]
        commitments = tuple(
            make_commitment(table_id, game.round, game.turn, s, CARD_WIRE.commit_bytes(a), n)
            for s, (a, n) in enumerate(zip(picks, nonces, strict=True))
        )
        openings = tuple(Opening(action=a, nonce=n) for a, n in zip(picks, nonces, strict=True))
        steps.append(
            StepRecord(
                round=game.round,
                turn=game.turn,
                seats=seats,
                commitments=commitments,
                openings=openings,
            )
        )
        game.apply(picks)
    return fair_record("sushi-go", table_id, options, server_seed, seeds, steps, game.scores())


def play_roll_record(
    table_id: str, players: int, server_seed: bytes, seeds: tuple[bytes, ...], seed: int
) -> FairRecord:
    """A complete fair record of a Sushi Roll game played with random legal actions."""
    rnd = random.Random(seed)
    game = RollGame(RollOptions(players), derive_game_seed(table_id, server_seed, seeds))
    steps = []
    while not game.is_terminal():
        seat = game.to_move
        assert seat is not None
        action = rnd.choice(game.legal_actions(seat))
        steps.append(
            StepRecord(
                round=game.round,
                turn=game.cycle,
                seats=(seat,),
                openings=(Opening(action=action),),
            )
        )
        game.apply(seat, action)
    options = RollOptions(players)
    return fair_record("sushi-roll", table_id, options, server_seed, seeds, steps, game.scores())


def roll_samples() -> list[messages.Message]:
    """Sushi Roll's game messages (its open steps), at round 1, cycle 1 of a 3-player game: each
    to be encoded with `ROLL_WIRE`."""
    m = messages
    game = RollGame(RollOptions(3), b"seed")
    mover = game.to_move
    assert mover is not None
    turn = roll_turn(game, mover)  # the receiver is the mover
    take = Take(0)
    after = game.clone()
    update = roll_acted(1, 1, mover, take, after.apply(mover, take), after, receiver=mover)
    record = play_roll_record(TABLE, 2, b"\x11" * 32, (b"\x22" * 32, b"\x33" * 32), seed=7)
    return [
        turn,
        m.Act(ref=9, round=1, turn=1, action=take),
        update,
        m.GameEnded(
            totals=record.scores,
            places=(1, 2),
            winners=(0,),
            server_seed=b"\x11" * 32,
            record=sign_record(record, SERVER_KEY),
        ),
    ]


WIRES: dict[str, Wire] = {"sushi-go": CARD_WIRE, "sushi-roll": ROLL_WIRE}


def open_samples() -> dict[tuple[str, str], messages.Message]:
    """The open step's messages (Sushi Roll's), by (sender, type): the acting seat's ACT, and its
    ACTED."""
    return {(m.SENDER.value, m.TYPE): m for m in roll_samples() if m.TYPE in ("act", "acted")}


def every_sample() -> tuple[dict[tuple[str, str], messages.Message], int]:
    """One valid message of every (sender, type), the open step's from a Sushi Roll game and the
    rest from Sushi Go!; and the seat that acts in the open ones."""
    out, acts = samples(), open_samples()
    out.update(acts)
    return out, acts["server", "acted"].seat  # type: ignore[attr-defined]


def samples() -> dict[tuple[str, str], messages.Message]:
    """One valid message per (sender, type), consistent with round 1, turn 1 of a 3-player game
    of Sushi Go! (encode its game values with `CARD_WIRE`)."""
    m = messages
    settings = m.TableSettings(kind="sushi-go", players=3)
    seats = tuple(m.SeatInfo(seat=i, player_id=f"p{i}", name=f"P{i}") for i in range(3))
    table = m.TableInfo(table_id=TABLE, settings=settings, status=m.TableStatus.OPEN, seats=seats)
    game = Game(OPTIONS3, b"seed")
    action = game.legal_actions(0)[0]
    summary = m.GameSummary(
        game_id="0f" * 16,
        table_id=TABLE,
        kind="sushi-go",
        finished_ms=1_700_000_000_000,
        players=(
            m.GameResult(seat=0, name="ann", player_id="k:" + "a" * 32, score=31, place=1),
            m.GameResult(seat=1, name="random-bot-1", score=20, place=2),
        ),
        seat=0,
    )
    out: list[messages.Message] = [
        m.Hello(ref=1, protocol="sushigo", version=V2, capabilities=("chat",)),
        m.Welcome(ref=1, version=V2, server_key=b"k" * 32, challenge=b"c" * 32),
        m.LoginGuest(ref=2, name="ann"),
        m.LoginKey(ref=2, name="ann", public_key=b"p" * 32, signature=b"s" * 64),
        m.LoggedIn(ref=2, player_id="p0", name="ann", guest=True, resume_token=b"r" * 16),
        m.Ping(ref=3, nonce=9),
        m.Pong(ref=3, nonce=9),
        m.ServerPing(nonce=9),
        m.ServerPong(ref=3, nonce=9),
        m.Error(ref=3, code=52, message="no"),
        m.Restarting(message="the server is restarting", retry_ms=500),
        m.Redirect(ref=5, address="[::1]:7777", table_id="t1", ticket=b"x" * 100),
        m.LoginTicket(ref=2, ticket=b"x" * 100),
        m.ListTables(ref=4),
        m.GetLeaderboard(ref=4, kind="sushi-roll", limit=10),
        m.Leaderboard(
            ref=4,
            kind="sushi-roll",
            top=(
                m.Rated(
                    rank=1,
                    player_id="k:" + "ab" * 16,
                    name="ann",
                    rating_milli=12_345,
                    mu_milli=30_000,
                    sigma_milli=5_885,
                    games=7,
                ),
            ),
            total=40,
            mine=m.Rated(
                rank=17,
                player_id="k:" + "cd" * 16,
                name="bob",
                rating_milli=-2_000,
                mu_milli=22_000,
                sigma_milli=8_000,
                games=1,
            ),
        ),
        m.ListTournaments(ref=4),
        m.CreateTournament(
            ref=4, settings=m.TournamentSettings(name="cup", kind="sushi-go", games=6)
        ),
        m.RegisterTournament(ref=4, name="cup"),
        m.WatchTournament(ref=4, name="cup"),
        m.StartTournament(ref=4, name="cup"),
        m.TournamentList(
            ref=4,
            tournaments=(
                m.TournamentInfo(
                    settings=m.TournamentSettings(name="cup", kind="sushi-go"),
                    status=m.TournamentStatus.REGISTERING,
                    host="p0",
                ),
            ),
        ),
        m.TournamentUpdate(
            tournament=m.TournamentInfo(
                settings=m.TournamentSettings(
                    name="cup", kind="sushi-go", format=m.TournamentFormat.RANDOM
                ),
                status=m.TournamentStatus.RUNNING,
                games_done=2,
                standings=(
                    m.Standing(player_id="p0", name="ann", games=2, wins_milli=1500),
                    m.Standing(player_id="p1", name="bob", games=2, points=-12),
                ),
            )
        ),
        m.CreateTable(ref=4, settings=settings),
        m.JoinTable(ref=4, table_id=TABLE),
        m.Spectate(ref=4, table_id=TABLE),
        m.LeaveTable(ref=4),
        m.AddBot(ref=4),
        m.StartGame(ref=4),
        m.QuickMatch(ref=4, kind="sushi-go", players=3),
        m.Chat(ref=4, text="hi"),
        m.TableList(ref=4, tables=(table,)),
        m.TableJoined(ref=4, table=table, seat=0),
        m.Spectating(ref=4, table=table),
        m.TableUpdate(table=table),
        m.TableLeft(ref=4, table_id=TABLE),
        m.ChatMessage(player_id="p1", name="bob", text="hi"),
        m.MyGames(ref=4, offset=20, limit=10),
        m.GetRecord(ref=4, game_id="0f" * 16),
        m.GameList(ref=4, games=(summary,), offset=20, more=True),
        m.GameRecord(ref=4, game=summary, record=sample_record()),
        *admin_samples(table, game),
        m.GameStarting(
            table_id=TABLE,
            kind="sushi-go",
            options=OPTIONS3,
            seat=0,
            players=("a", "b", "c"),
            server_seed_hash=b"h" * 32,
        ),
        m.Seed(ref=5, seed=b"s" * 32),
        m.GameStarted(table_id=TABLE, server_seed_hash=b"h" * 32, client_seeds=(b"s" * 32,) * 3),
        m.TurnStart(round=1, turn=1, seats=(0, 1, 2), observation=game.observation(0)),
        m.Commit(ref=6, round=1, turn=1, commitment=b"c" * 32),
        m.Commitments(round=1, turn=1, commitments=(b"c" * 32, None, b"d" * 32)),
        m.Reveal(ref=7, round=1, turn=1, action=action, nonce=b"n" * 32),
        m.TurnResult(
            round=1,
            turn=1,
            openings=tuple(Opening(action=game.legal_actions(s)[0], auto=True) for s in range(3)),
        ),
        m.GameEnded(
            totals=(10, 20),
            places=(2, 1),
            winners=(1,),
            server_seed=b"\x11" * 32,
            record=sample_record(),
        ),
        m.Resume(ref=8, token=b"r" * 16, last_seq=5),
        m.Resumed(
            ref=8,
            player_id="p0",
            name="ann",
            resume_token=b"r" * 16,
            phase=Phase.LOBBY,
        ),
    ]
    return {(msg.SENDER.value, msg.TYPE): msg for msg in out}


def admin_samples(table: messages.TableInfo, game: Game) -> list[messages.Message]:
    """One of each admin message (2.3)."""
    m = messages
    ann = m.SessionInfo(
        session_id="s1",
        player_id="k:" + "a" * 32,
        name="ann",
        address="203.0.113.7",
        table_id=TABLE,
        seat=0,
        muted=True,
    )
    watcher = m.SessionInfo(
        session_id="s2", player_id="g:0123456789abcdef", name="bob", guest=True, connected=False
    )
    ban = m.Sanction(
        kind=m.SanctionKind.BAN,
        target="2001:db8::/32",
        reason="flooding",
        by="k:" + "f" * 32,
        created_ms=1_700_000_000_000,
        expires_ms=1_700_000_360_000,
    )
    return [
        m.AdminSessions(ref=9, offset=0, limit=10),
        m.AdminNodes(ref=9),
        m.AdminShow(ref=9, table_id=TABLE),
        m.AdminKick(ref=9, target="s1", reason="rude"),
        m.AdminBan(ref=9, target="203.0.113.0/24", reason="flooding", seconds=3600),
        m.AdminUnban(ref=9, target="203.0.113.0/24"),
        m.AdminMute(ref=9, target="k:" + "a" * 32, reason="spam"),
        m.AdminUnmute(ref=9, target="k:" + "a" * 32),
        m.AdminSanctions(ref=9),
        m.AdminClose(ref=9, table_id=TABLE, reason="maintenance"),
        m.AdminAnnounce(ref=9, text="restarting at noon"),
        m.AdminDrain(ref=9, node="eu-1", drain=True),
        m.AdminAudit(ref=9, offset=0, limit=20),
        m.AdminDone(ref=9, message="kicked 1 session", count=1),
        m.SessionList(ref=9, sessions=(ann, watcher), total=2),
        m.NodeList(
            ref=9,
            nodes=(
                m.NodeInfo(name="eu-1", here=True, connections=3, sessions=2, tables=1, playing=1),
            ),
        ),
        m.TableView(
            ref=9,
            table=table,
            phase="committing",
            round=1,
            turn=1,
            steps=0,
            acting=(0, 1, 2),
            deadline_ms=30_000,
            observation=CARD_WIRE.packed("observation", game.observation(None)),
            sessions=(ann, watcher),
        ),
        m.SanctionList(ref=9, sanctions=(ban,), total=1),
        m.AuditList(
            ref=9,
            entries=(
                m.AuditEntry(
                    at_ms=1_700_000_000_000,
                    admin="k:" + "f" * 32,
                    action="ban",
                    target="2001:db8::/32",
                    detail="flooding",
                ),
            ),
            more=True,
        ),
        m.Announcement(text="restarting at noon", by="root"),
    ]
