"""The connection state machines: every transition, every refusal, and a whole game end to end."""

from __future__ import annotations

import dataclasses
import random
from typing import Any

import pytest
from protocol_helpers import OPTIONS, V2, connected_pair, pump, random_game
from sample_helpers import SERVER_KEY, every_sample, open_samples

from sushigo.engine import Game, GameOptions, RoundScored
from sushigo.engine import GameOver as EngineGameOver
from sushigo.protocol import (
    CARD_WIRE,
    ROLL_WIRE,
    TRANSITIONS,
    ClientConnection,
    Connection,
    ConnectionClosed,
    ErrorCode,
    FairRecord,
    LocalProtocolError,
    Opening,
    Phase,
    RemoteProtocolError,
    ServerConnection,
    StepRecord,
    Version,
    Wire,
    derive_game_seed,
    encode_frame,
    error_for,
    handshake_reply,
    make_commitment,
    messages,
    new_nonce,
    new_seed,
    server_seed_hash,
    sign_record,
    verify_commitment,
    verify_record,
    verify_signed_record,
)
from sushigo.protocol._registry import Role
from sushigo.protocol.frames import limits_for
from sushigo.protocol.records import public_key_bytes

m = messages
SAMPLES, MOVER = every_sample()
OPEN = open_samples()


def _opens(commitment: bytes, table: str, where: tuple[int, int, int], opening: Any) -> bool:
    """`opening` (a REVEAL or an opening, with its action and nonce) opens the Sushi Go!
    `commitment` of (round, turn, seat) `where` at `table`."""
    r, t, seat = where
    action = CARD_WIRE.commit_bytes(opening.action)
    return verify_commitment(commitment, table, r, t, seat, action, opening.nonce)


def ends(role: Role, phase: Phase, name: str = "") -> tuple[Connection, Connection]:
    """(sender, receiver) for messages of `role`, both in `phase` at round 1, turn 1, at a table
    of the game the sample `name` is of (seat 0 of a Sushi Go! table; the mover of a Sushi Roll
    one)."""
    pair: tuple[Connection, Connection] = (
        (ServerConnection(), ClientConnection())
        if role is Role.SERVER
        else (ClientConnection(), ServerConnection())
    )
    game: Wire = ROLL_WIRE if (role.value, name) in OPEN else CARD_WIRE
    for conn in pair:
        conn.phase = phase
        conn.position = (1, 1)
        conn.game = game
        conn.seat = MOVER if game is ROLL_WIRE else 0
    return pair


@pytest.mark.parametrize(
    ("role", "phase", "name"), sorted(TRANSITIONS), ids=lambda v: str(getattr(v, "value", v))
)
def test_every_allowed_transition(role: Role, phase: Phase, name: str) -> None:
    target = TRANSITIONS[role, phase, name]
    message = SAMPLES[role.value, name]
    if target == "from_message":
        assert isinstance(message, m.Resumed)
        target = message.phase
    elif target == "step":  # the sample's seats include ours, in a secret step
        assert isinstance(message, m.TurnStart) and message.secret and 0 in message.seats
        target = Phase.COMMITTING
    elif target == "moved":  # the sample is our take: our turn ends
        assert isinstance(message, m.Acted) and message.seat == MOVER and not message.more
        target = Phase.WAITING
    sender, receiver = ends(role, phase, name)
    receiver.receive_data(sender.send(message))
    assert receiver.next_event() == message
    assert sender.phase is receiver.phase is target


def _refusals() -> list[tuple[Role, Phase, str]]:
    return [
        (role, phase, name)
        for role in Role
        for phase in Phase
        if phase is not Phase.CLOSED
        for (who, name) in SAMPLES
        if who == role.value and (role, phase, name) not in TRANSITIONS
    ]


REPEATS = {(Phase.SEEDED, "seed"), (Phase.COMMITTED, "commit"), (Phase.REVEALED, "reveal")}


def test_every_repeat_is_among_the_refusals() -> None:
    refused = {(phase, name) for role, phase, name in _refusals() if role is Role.CLIENT}
    assert refused >= REPEATS


@pytest.mark.parametrize("case", _refusals(), ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}")
def test_out_of_phase_messages_are_refused(case: tuple[Role, Phase, str]) -> None:
    role, phase, name = case
    message = SAMPLES[role.value, name]
    expected = ErrorCode.OUT_OF_PHASE
    if phase is Phase.HANDSHAKE and role is Role.CLIENT:
        expected = ErrorCode.HANDSHAKE_REQUIRED
    elif role is Role.CLIENT and (phase, name) in REPEATS:
        expected = ErrorCode.ALREADY_DONE  # the seat already sent it this step
    sender, receiver = ends(role, phase, name)
    with pytest.raises(LocalProtocolError) as local:
        sender.send(message)
    assert local.value.code is expected
    if expected is ErrorCode.ALREADY_DONE:
        # Told apart from OUT_OF_PHASE in words too: what was done, and what to wait for.
        done = {"seed": "seed is in already", "commit": "has committed", "reveal": "has revealed"}
        assert done[name] in local.value.message and "wait for" in local.value.message
        assert "may not send" not in local.value.message
    else:
        assert role.value in local.value.message and phase.value in local.value.message
        assert name in local.value.message
    assert sender.phase is phase
    # The same message forced onto the wire is refused by the other end with the same code.
    seq = 1 if role is Role.SERVER else None
    receiver.receive_data(
        encode_frame(m.encode_message(message, seq, receiver.game), limits_for(role))
    )
    with pytest.raises(RemoteProtocolError) as remote:
        receiver.next_event()
    assert remote.value.code is expected
    assert (remote.value.message == local.value.message) or expected is not ErrorCode.ALREADY_DONE
    assert remote.value.ref == getattr(message, "ref", None)
    fatal = role is Role.SERVER or phase in (Phase.HANDSHAKE, Phase.HELLO_SENT)
    assert remote.value.fatal is fatal
    assert receiver.phase is phase
    if not fatal:  # the server answers and goes on
        reply = receiver.send(error_for(remote.value))
        assert reply and receiver.phase is phase


def test_wrong_turn_is_refused_without_moving() -> None:
    client, server = ends(Role.CLIENT, Phase.COMMITTING)
    late = m.Commit(ref=4, round=1, turn=2, commitment=b"c" * 32)
    with pytest.raises(LocalProtocolError) as local:
        client.send(late)
    assert local.value.code is ErrorCode.WRONG_TURN
    server.receive_data(encode_frame(m.encode_message(late), limits_for(Role.CLIENT)))
    with pytest.raises(RemoteProtocolError) as remote:
        server.next_event()
    assert remote.value.code is ErrorCode.WRONG_TURN and not remote.value.fatal
    assert server.phase is Phase.COMMITTING


def test_a_wrong_turn_is_refused_after_the_same_move_was_learnt() -> None:
    """Moves the table decides alone are remembered per (sender, phase, class); the position of
    each message is still checked, on both ends, and a refusal names the turns."""
    for _ in range(2):  # the second time through, the move is a learnt one
        client, server = ends(Role.CLIENT, Phase.COMMITTING)
        good = m.Commit(ref=3, round=1, turn=1, commitment=b"c" * 32)
        server.receive_data(client.send(good))
        assert server.next_event() == good and server.phase is Phase.COMMITTED
        client, server = ends(Role.CLIENT, Phase.COMMITTING)
        late = m.Commit(ref=4, round=1, turn=2, commitment=b"c" * 32)
        with pytest.raises(LocalProtocolError) as local:
            client.send(late)
        assert local.value.code is ErrorCode.WRONG_TURN and "turn 2" in local.value.message
        server.receive_data(encode_frame(m.encode_message(late), limits_for(Role.CLIENT)))
        with pytest.raises(RemoteProtocolError) as remote:
            server.next_event()
        assert remote.value.code is ErrorCode.WRONG_TURN and remote.value.ref == 4
        assert (client.phase, server.phase) == (Phase.COMMITTING, Phase.COMMITTING)


def test_turn_start_moves_the_position_every_time() -> None:
    client, server = ends(Role.CLIENT, Phase.WAITING)
    game, _ = random_game(OPTIONS[0], 3, 0)
    for _ in range(3):
        obs = game.observation(0)
        start = m.TurnStart(round=obs.round, turn=obs.turn, seats=(0, 1), observation=obs)
        client.receive_data(server.send(start))
        assert client.next_event() == start
        assert client.position == server.position == (obs.round, obs.turn)
        actions = [game.legal_actions(s)[0] for s in range(OPTIONS[0].players)]
        server.phase = client.phase = Phase.WAITING  # (the rest of the turn, skipped)
        game.apply(actions)


def test_handshake_and_versions() -> None:
    hello = m.Hello(ref=1, protocol="sushigo", version=Version(2, 7), capabilities=("chat", "x"))
    welcome = handshake_reply(hello, server_key=b"k" * 32, challenge=b"c" * 32)
    assert isinstance(welcome, m.Welcome)
    assert welcome.version == V2 and welcome.capabilities == ("chat",)
    refused = handshake_reply(
        dataclasses.replace(hello, version=Version(1, 0)), server_key=b"k" * 32, challenge=b"c" * 32
    )
    assert isinstance(refused, m.Error)
    assert refused.code == ErrorCode.UNSUPPORTED_VERSION
    assert refused.supported_versions == (V2,)
    wrong = handshake_reply(
        dataclasses.replace(hello, protocol="http"), server_key=b"k" * 32, challenge=b"c" * 32
    )
    assert isinstance(wrong, m.Error) and wrong.code == ErrorCode.WRONG_PROTOCOL

    client, server = ClientConnection(), ServerConnection()
    pump(client, server, dataclasses.replace(hello, version=Version(1, 0)))
    pump(server, client, refused)
    assert client.phase is server.phase is Phase.CLOSED


@pytest.mark.parametrize("minor", [0, 1])
def test_an_older_2_x_client_is_spoken_to_in_its_version(minor: int) -> None:
    hello = m.Hello(ref=1, protocol="sushigo", version=Version(2, minor))
    welcome = handshake_reply(hello, server_key=b"k" * 32, challenge=b"c" * 32)
    assert isinstance(welcome, m.Welcome) and welcome.version == Version(2, minor)


@pytest.mark.parametrize(
    "value",
    [
        {"type": "no_such_message", "ref": 3},  # unknown: not UNKNOWN_MESSAGE_TYPE first
        {"type": "welcome", "ref": 3},  # the server's
        {"type": "login_guest", "ref": 3, "name": 7},  # known, but malformed and not hello
        {"ref": 3},  # not a message at all
        [1, 2, 3],
    ],
)
def test_anything_but_hello_first_is_handshake_required(value: object) -> None:
    server = ServerConnection()
    server.receive_data(encode_frame(value, limits_for(Role.CLIENT)))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code is ErrorCode.HANDSHAKE_REQUIRED and info.value.fatal


def test_a_malformed_hello_first_names_its_field() -> None:
    server = ServerConnection()
    bad = {"type": "hello", "ref": 1, "protocol": "sushigo", "version": "2.1"}
    server.receive_data(encode_frame(bad, limits_for(Role.CLIENT)))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code is ErrorCode.WRONG_TYPE and info.value.fatal
    assert "version" in info.value.message


def test_nothing_before_hello_and_garbage_is_fatal() -> None:
    server = ServerConnection()
    server.receive_data(encode_frame({"type": "ping", "ref": 9}, limits_for(Role.CLIENT)))
    with pytest.raises(RemoteProtocolError) as info:
        server.next_event()
    assert info.value.code is ErrorCode.HANDSHAKE_REQUIRED and info.value.fatal
    assert server.send(error_for(info.value))  # one ERROR may still go out
    assert server.phase is Phase.CLOSED
    with pytest.raises(LocalProtocolError):
        server.send(m.ServerPing())

    server = ServerConnection()
    with pytest.raises(RemoteProtocolError) as info:
        server.receive_data(b"\xff\xff\xff\xff")
    assert info.value.code is ErrorCode.FRAME_TOO_LARGE
    with pytest.raises(RemoteProtocolError):
        server.next_event()


def test_client_checks_sequence_numbers() -> None:
    client, server = connected_pair()
    frame = server.send(m.ServerPing(nonce=1))
    server.send(m.ServerPing(nonce=2))  # lost
    client.receive_data(frame)
    assert client.next_event() == m.ServerPing(nonce=1)
    client.receive_data(server.send(m.ServerPing(nonce=3)))
    with pytest.raises(RemoteProtocolError) as info:
        client.next_event()
    assert info.value.code is ErrorCode.SEQUENCE_ERROR and info.value.fatal


def test_fatal_error_closes_both_ends_and_eof_is_an_event() -> None:
    client, server = connected_pair()
    pump(server, client, m.Error(code=ErrorCode.SHUTTING_DOWN, message="bye"))
    assert client.phase is server.phase is Phase.CLOSED

    client, server = connected_pair()
    server.receive_data(b"")
    assert isinstance(server.next_event(), ConnectionClosed)
    assert server.phase is Phase.CLOSED


def test_resume_into_a_game_phase() -> None:
    client, server = ClientConnection(), ServerConnection()
    pump(client, server, m.Hello(protocol="sushigo", version=V2))
    pump(server, client, m.Welcome(version=V2, server_key=b"k" * 32, challenge=b"c" * 32))
    pump(client, server, m.Resume(ref=3, token=b"t" * 16, last_seq=41))
    resumed = m.Resumed(
        ref=3,
        player_id="p",
        name="ann",
        resume_token=b"u" * 16,
        phase=Phase.REVEALING,
        round=2,
        turn=3,
        replayed=0,
    )
    pump(server, client, resumed)
    assert client.phase is server.phase is Phase.REVEALING
    assert client.position == server.position == (2, 3)
    with pytest.raises(LocalProtocolError):
        server.send(dataclasses.replace(resumed, phase=Phase.HANDSHAKE))


# -- a whole game over in-memory links, with every check both ends make -------------------------


def test_a_full_three_player_game_end_to_end() -> None:
    rnd = random.Random(5)
    options = GameOptions(players=3)
    table = "t-e2e"
    pairs = [connected_pair() for _ in range(3)]
    table_info = SAMPLES["server", "table_update"].table  # type: ignore[attr-defined]
    for seat, (client, server) in enumerate(pairs):
        pump(client, server, m.JoinTable(ref=client.next_ref(), table_id=table))
        pump(server, client, m.TableJoined(ref=1, table=table_info, seat=seat))
    # Seeding: the server commits before any client seed exists.
    server_seed = new_seed()
    starting = [
        m.GameStarting(
            table_id=table,
            kind="sushi-go",
            options=options,
            seat=s,
            players=("a", "b", "c"),
            server_seed_hash=server_seed_hash(server_seed),
        )
        for s in range(3)
    ]
    seeds = []
    for seat, (client, server) in enumerate(pairs):
        got = pump(server, client, starting[seat])
        assert client.phase is Phase.SEEDING
        seed = pump(client, server, m.Seed(ref=client.next_ref(), seed=new_seed()))
        seeds.append(seed.seed)
    for client, server in pairs:
        pump(
            server,
            client,
            m.GameStarted(
                table_id=table, server_seed_hash=got.server_seed_hash, client_seeds=tuple(seeds)
            ),
        )
    game = Game(options, derive_game_seed(table, server_seed, tuple(seeds)))
    turns: list[StepRecord] = []
    seats = (0, 1, 2)
    while not game.is_terminal():
        r, t = game.round, game.turn
        secrets_: list[tuple[object, bytes]] = []
        commitments = []
        for seat, (client, server) in enumerate(pairs):
            obs = pump(
                server,
                client,
                m.TurnStart(round=r, turn=t, seats=seats, observation=game.observation(seat)),
            ).observation
            assert obs == game.observation(seat) and obs.seat == seat
            action, nonce = rnd.choice(obs.legal_actions()), new_nonce()
            secrets_.append((action, nonce))
            commit = m.Commit(
                ref=client.next_ref(),
                round=r,
                turn=t,
                commitment=make_commitment(
                    table, r, t, seat, CARD_WIRE.commit_bytes(action), nonce
                ),
            )
            commitments.append(pump(client, server, commit).commitment)
        shown = m.Commitments(round=r, turn=t, commitments=tuple(commitments))
        openings = []
        for seat, (client, server) in enumerate(pairs):
            pump(server, client, shown)
            action, nonce = secrets_[seat]
            reveal = pump(
                client,
                server,
                m.Reveal(ref=client.next_ref(), round=r, turn=t, action=action, nonce=nonce),
            )
            assert _opens(commitments[seat], table, (r, t, seat), reveal)
            openings.append(Opening(action=reveal.action, nonce=reveal.nonce))
        events = game.apply([o.action for o in openings])
        turns.append(
            StepRecord(
                round=r,
                turn=t,
                seats=seats,
                commitments=tuple(commitments),
                openings=tuple(openings),
            )
        )
        result = m.TurnResult(round=r, turn=t, openings=tuple(openings), events=tuple(events))
        for client, server in pairs:
            got_result = pump(server, client, result)
            for seat, opening in enumerate(
                got_result.openings
            ):  # every client checks every opening
                assert _opens(commitments[seat], table, (r, t, seat), opening)
            assert [e for e in got_result.events if isinstance(e, RoundScored)] == [
                e for e in events if isinstance(e, RoundScored)
            ]
        over = [e for e in events if isinstance(e, EngineGameOver)]
    record = FairRecord(
        game="sushi-go",
        table_id=table,
        options=options,
        server_seed=server_seed,
        server_seed_hash=server_seed_hash(server_seed),
        client_seeds=tuple(seeds),
        steps=tuple(turns),
        scores=game.scores(),
    )
    end = m.GameEnded(
        totals=over[0].totals,
        places=over[0].places,
        winners=over[0].winners,
        server_seed=server_seed,
        record=sign_record(record, SERVER_KEY),
    )
    for client, server in pairs:
        got_end = pump(server, client, end)
        assert client.phase is server.phase is Phase.TABLE
        checked = verify_signed_record(got_end.record, public_key_bytes(SERVER_KEY))
        report = verify_record(checked)
        assert report.ok, report.problems
        assert checked.scores == got_end.totals
