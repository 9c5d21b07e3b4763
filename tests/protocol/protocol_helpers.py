"""Shared test helpers: sample messages, hypothesis strategies built from the message schemas,
engine-driven observations and events, and an in-memory link between two connections."""

from __future__ import annotations

import dataclasses
import random
import types
from collections.abc import Callable, Sequence
from enum import Enum
from typing import Annotated, Any, Union, get_args, get_origin, get_type_hints

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import strategies as st

from sushigo.engine import (
    Action,
    Card,
    Event,
    Game,
    GameOptions,
    Observation,
    RoundPoints,
)
from sushigo.engine.games.sushi_roll import (
    Die,
    DieKind,
    Reroll,
    RollAction,
    RollEvent,
    RollGame,
    RollObservation,
    RollOptions,
    Swap,
    Take,
)
from sushigo.engine.games.sushi_roll import RoundPoints as RollRoundPoints
from sushigo.protocol import (
    CARD_WIRE,
    ROLL_WIRE,
    ClientConnection,
    Connection,
    ErrorCode,
    FairRecord,
    Phase,
    RemoteProtocolError,
    ServerConnection,
    SignedRecord,
    StepRecord,
    Version,
    Wire,
    derive_game_seed,
    make_commitment,
    messages,
    new_seed,
    server_seed_hash,
    sign_record,
)
from sushigo.protocol._codec import GameField, Range, Size
from sushigo.protocol.commitment import Opening

V2 = Version(2, 5)

OPTIONS = [
    GameOptions(players=2),
    GameOptions(players=2, dummy=True),
    GameOptions(players=3, pass_both_ways=True),
    GameOptions(players=4, soy_sauce=True),
    GameOptions(players=5),
]


def random_game(options: GameOptions, seed: int, turns: int) -> tuple[Game, list[Event]]:
    """A game after up to `turns` random legal turns, with every event so far."""
    rnd = random.Random(seed)
    game = Game(options, seed.to_bytes(8, "big"))
    events: list[Event] = list(game.initial_events())
    for _ in range(turns):
        if game.is_terminal():
            break
        picks = [rnd.choice(game.legal_actions(s)) for s in range(options.players)]
        events.extend(game.apply(picks))
    return game, events


@st.composite
def observations(draw: st.DrawFn) -> Observation:
    options = draw(st.sampled_from(OPTIONS))
    game, _ = random_game(options, draw(st.integers(0, 2**32)), draw(st.integers(0, 40)))
    seat = draw(st.none() | st.integers(0, options.players - 1))
    return game.observation(seat)


@st.composite
def events(draw: st.DrawFn) -> Event:
    options = draw(st.sampled_from(OPTIONS))
    _, evs = random_game(options, draw(st.integers(0, 2**16)), 40)
    return draw(st.sampled_from(evs))


cards = st.sampled_from(list(Card))
actions = st.builds(Action, cards, st.none() | cards, st.none() | cards)


def random_roll_game(
    players: int, seed: int, actions: int
) -> tuple[RollGame, list[tuple[int, RollAction, list[RollEvent]]]]:
    """A Sushi Roll game after up to `actions` random legal actions, with each action's events."""
    rnd = random.Random(seed)
    game = RollGame(RollOptions(players), seed.to_bytes(8, "big"))
    played: list[tuple[int, RollAction, list[RollEvent]]] = []
    for _ in range(actions):
        if game.is_terminal():
            break
        seat = game.to_move
        assert seat is not None
        action = rnd.choice(game.legal_actions(seat))
        played.append((seat, action, game.apply(seat, action)))
    return game, played


@st.composite
def roll_observations(draw: st.DrawFn) -> RollObservation:
    players = draw(st.integers(2, 5))
    game, _ = random_roll_game(players, draw(st.integers(0, 2**32)), draw(st.integers(0, 200)))
    return game.observation(draw(st.none() | st.integers(0, players - 1)))


@st.composite
def roll_events(draw: st.DrawFn) -> RollEvent:
    game, played = random_roll_game(draw(st.integers(2, 5)), draw(st.integers(0, 2**16)), 400)
    evs = [*game.initial_events(), *(e for _, _, es in played for e in es)]
    return draw(st.sampled_from(evs))


def roll_turn(game: RollGame, seat: int | None, step: int = 0) -> messages.TurnStart:
    """The TURN_START of the current open step that `seat` (None: a spectator) receives now."""
    obs = game.observation(seat)
    assert obs.to_move is not None
    return messages.TurnStart(
        round=obs.round,
        turn=obs.cycle,
        seats=(obs.to_move,),
        secret=False,
        step=step,
        observation=obs,
    )


def roll_acted(
    round_: int,
    cycle: int,
    seat: int,
    action: RollAction,
    events: list[RollEvent],
    game: RollGame,
    receiver: int | None = None,
    step: int = 0,
) -> messages.Acted:
    """The ACTED `receiver` (None: a spectator) gets for an action just applied to `game`."""
    more = (
        not game.is_terminal()
        and game.to_move == seat
        and (game.round, game.cycle)
        == (
            round_,
            cycle,
        )
    )
    return messages.Acted(
        round=round_,
        turn=cycle,
        step=step,
        seat=seat,
        action=action,
        events=tuple(events),
        observation=game.observation(receiver),
        more=more,
    )


@st.composite
def roll_turns(draw: st.DrawFn) -> messages.TurnStart:
    players = draw(st.integers(2, 5))
    game, _ = random_roll_game(players, draw(st.integers(0, 2**16)), draw(st.integers(0, 60)))
    return roll_turn(game, draw(st.none() | st.integers(0, players - 1)))


@st.composite
def roll_updates(draw: st.DrawFn) -> messages.Acted:
    game, _ = random_roll_game(draw(st.integers(2, 5)), draw(st.integers(0, 2**16)), 0)
    for _ in range(draw(st.integers(1, 60))):
        seat = game.to_move
        if seat is None:
            break
        r, c = game.round, game.cycle
        action = draw(st.sampled_from(game.legal_actions(seat)))
        update = roll_acted(r, c, seat, action, game.apply(seat, action), game)
    return update


positions = st.integers(0, 7)
roll_actions: st.SearchStrategy[RollAction] = st.one_of(
    st.lists(positions, min_size=1, max_size=8).map(lambda d: Reroll(tuple(d))),
    st.builds(Swap, positions, st.integers(0, 4), positions),
    st.builds(Take, positions),
)

_GAME_VALUES: dict[str, dict[str, st.SearchStrategy[Any]]] = {
    "sushi-go": {
        "action": actions,
        "options": st.sampled_from(OPTIONS),
        "observation": observations(),
        "event": events(),
    },
    "sushi-roll": {
        "action": roll_actions,
        "options": st.builds(RollOptions, st.integers(2, 5)),
        "observation": roll_observations(),
        "event": roll_events(),
    },
}
"""Valid game values of each built-in game, by part (see `protocol._codec.GameField`)."""
_CUSTOM: dict[Any, st.SearchStrategy[Any]] = {
    Die: st.sampled_from([Die(DieKind.NIGIRI, f) for f in (6, 7, 8)]),  # type: ignore[misc]
    RollRoundPoints: st.builds(RollRoundPoints, *[st.integers(0, 30)] * 5),
    Card: cards,
    RoundPoints: st.builds(RoundPoints, *[st.integers(0, 30)] * 6),
}


def strategy_for(tp: Any, kind: str = "sushi-go") -> st.SearchStrategy[Any]:
    """A strategy of valid values for a schema type hint (lists kept short); game values are of
    the game `kind`."""
    meta: tuple[Any, ...] = ()
    if get_origin(tp) is Annotated:
        tp, *rest = get_args(tp)
        meta = tuple(rest)
    part = next((m for m in meta if isinstance(m, GameField)), None)
    if part is not None:
        return _GAME_VALUES[kind][part.part]
    if tp in _CUSTOM:
        return _CUSTOM[tp]
    rng = next((m for m in meta if isinstance(m, Range)), None)
    size = next((m for m in meta if isinstance(m, Size)), None)
    origin = get_origin(tp)
    if origin in (Union, types.UnionType):
        (inner,) = [a for a in get_args(tp) if a is not type(None)]
        return st.none() | strategy_for(inner, kind)
    if origin is tuple:
        lo, hi = (size.lo, size.hi) if size else (0, 64)
        return st.lists(
            strategy_for(get_args(tp)[0], kind), min_size=lo, max_size=min(hi, lo + 3)
        ).map(tuple)
    if tp is bool:
        return st.booleans()
    if tp is int:
        assert rng is not None
        return st.integers(rng.lo, rng.hi)
    if tp is str:
        lo, hi = (size.lo, size.hi) if size else (0, 256)
        return st.text(min_size=lo, max_size=min(hi, lo + 12))
    if tp is bytes:
        lo, hi = (size.lo, size.hi) if size else (0, 256)
        return st.binary(min_size=lo, max_size=min(hi, lo + 16))
    if isinstance(tp, type) and issubclass(tp, Enum):
        return st.sampled_from(list(tp))
    if dataclasses.is_dataclass(tp) and isinstance(tp, type):
        hints = get_type_hints(tp, include_extras=True)
        return st.builds(
            tp, **{f.name: strategy_for(hints[f.name], kind) for f in dataclasses.fields(tp)}
        )
    raise TypeError(f"no strategy for {tp!r}")


# -- one valid sample of every message type -----------------------------------------------------

SERVER_KEY = Ed25519PrivateKey.from_private_bytes(bytes(range(32)))
TABLE = "t1"
OPTIONS3 = GameOptions(players=3)


def sample_record() -> SignedRecord:
    """A real, signed, verifiable record of a finished 2-player game."""
    options = GameOptions(players=2)
    server_seed, seeds = b"\x11" * 32, (b"\x22" * 32, b"\x33" * 32)
    record = play_record(TABLE, options, server_seed, seeds, seed=7)
    return sign_record(record, SERVER_KEY)


def fair_record(
    kind: str,
    table_id: str,
    options: Any,
    server_seed: bytes,
    seeds: tuple[bytes, ...],
    steps: Sequence[StepRecord],
    scores: tuple[int, ...],
) -> FairRecord:
    """The record of a game of `kind` at `table_id` (`options`), dealt from `server_seed` and
    the players' `seeds`, played in `steps` to `scores`."""
    return FairRecord(
        game=kind,
        table_id=table_id,
        options=options,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(server_seed),
        client_seeds=seeds,
        steps=tuple(steps),
        scores=scores,
    )


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


# -- an in-memory link -------------------------------------------------------------------------


def pump(sender: Connection, receiver: Connection, message: messages.Message) -> Any:
    """Send `message` from one end and return what the other end reads."""
    receiver.receive_data(sender.send(message))
    event = receiver.next_event()
    assert receiver.next_event() is None
    return event


def connected_pair() -> tuple[ClientConnection, ServerConnection]:
    """A client and a server connection after HELLO/WELCOME and a guest login."""
    client, server = ClientConnection(), ServerConnection()
    pump(client, server, messages.Hello(ref=1, protocol="sushigo", version=V2))
    pump(
        server,
        client,
        messages.Welcome(ref=1, version=V2, server_key=b"k" * 32, challenge=new_seed()),
    )
    pump(client, server, messages.LoginGuest(ref=2, name="ann"))
    pump(
        server,
        client,
        messages.LoggedIn(ref=2, player_id="p0", name="ann", guest=True, resume_token=b"r" * 16),
    )
    return client, server


def v1_turns(steps: Sequence[StepRecord]) -> list[dict[str, Any]]:
    """Sushi Go!'s steps as protocol 1.0 wrote its turns (in a signed record, and in a saved
    table), every seat acting in each."""
    return [
        {
            "round": t.round,
            "turn": t.turn,
            "commitments": list(t.commitments),
            "openings": [
                {"action": o.action.to_data(), "nonce": o.nonce, "auto": o.auto} for o in t.openings
            ],
        }
        for t in steps
    ]


def refused_once_changed(
    decode: Callable[[Any], Any], data: Any, change: Callable[[Any], object]
) -> None:
    """`data` decodes, and once `change` has broken it (in place) it is refused as out of range
    or of the wrong type: a decoder checks that an observation hangs together."""
    decode(data)
    change(data)
    with pytest.raises(RemoteProtocolError) as info:
        decode(data)
    assert info.value.code in (ErrorCode.OUT_OF_RANGE, ErrorCode.WRONG_TYPE)
