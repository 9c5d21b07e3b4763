"""The server's hot path: moves routed straight to their table, messages sent to a table's people
in one loop. Checked against the long way, and for the specific error of every bad move once the
moves are settled (the protocol's short way is taken from the second game move of a kind on)."""

from __future__ import annotations

import logging
import random

import pytest
from server_helpers import FakeTransport, Peer, hub_game, make_hub, raw_frame

from sushigo.engine import Action, Card
from sushigo.protocol import (
    CARD_WIRE,
    Commit,
    Commitments,
    Error,
    ErrorCode,
    LocalProtocolError,
    Phase,
    Ping,
    Reveal,
    ServerConnection,
    ServerPong,
    TurnResult,
    TurnStart,
    make_commitment,
    new_nonce,
)
from sushigo.server.sessions.session import Session, broadcast


def _session(phase: Phase, transport: FakeTransport | None) -> Session:
    conn = ServerConnection()
    conn.phase, conn.position, conn.last_seq = phase, (1, 1), 7
    conn.game, conn.seat = CARD_WIRE, 0
    return Session("g:1", "one", True, b"h" * 32, conn, transport)


def test_broadcast_is_each_session_sending() -> None:
    shown = Commitments(round=1, turn=1, commitments=(b"a" * 32, b"b" * 32, None))
    result = TurnResult(round=1, turn=1, openings=())
    phases = (Phase.COMMITTED, Phase.COMMITTING, Phase.WATCHING)
    for _ in range(2):  # the second time, every move is a settled one
        one = [_session(phase, FakeTransport()) for phase in phases]
        other = [_session(phase, FakeTransport()) for phase in phases]
        away = _session(Phase.COMMITTED, None)  # detached: logged, not written
        for message in (shown, result):
            broadcast([*one, away], message)
            for session in other:
                session.send(message)
        for mine, theirs in zip(one, other, strict=True):
            assert isinstance(mine.transport, FakeTransport)
            assert isinstance(theirs.transport, FakeTransport)
            assert mine.transport.buffer == theirs.transport.buffer != b""
            assert list(mine.log) == list(theirs.log)
            assert (mine.conn.phase, mine.conn.last_seq) == (
                theirs.conn.phase,
                theirs.conn.last_seq,
            )
        assert away.conn.last_seq == 9 and len(away.log) == 2


def test_broadcast_skips_closed_sessions_and_goes_on_after_a_refusal(
    caplog: pytest.LogCaptureFixture,
) -> None:
    message = Commitments(round=1, turn=1, commitments=(b"a" * 32, None))
    closed = _session(Phase.CLOSED, FakeTransport())
    refusing = _session(Phase.LOBBY, FakeTransport())  # no COMMITMENTS in the lobby
    fine = _session(Phase.COMMITTED, FakeTransport())
    with caplog.at_level(logging.ERROR, logger="sushigo.server"):
        broadcast([closed, refusing, fine], message)
    assert isinstance(closed.transport, FakeTransport)
    assert not closed.log and not closed.transport.buffer
    assert not refusing.log and "not sending commitments" in caplog.text
    with pytest.raises(LocalProtocolError):
        refusing.conn.send(message)
    assert len(fine.log) == 1 and fine.conn.phase is Phase.REVEALING


def _settled_game() -> tuple[Peer, random.Random]:
    """A game against a bot, two turns in: every move of a turn has been made at least once."""
    hub, clock = make_hub()
    peer = hub_game(hub, clock, players=2)
    rng = random.Random(3)
    for _ in range(2):
        assert peer.play_turn(rng) is None
    return peer, rng


def _turn_start(peer: Peer) -> TurnStart:
    return peer.expect(TurnStart)


def _error_and_result(peer: Peer) -> tuple[Error, TurnResult, TurnStart]:
    """The ERROR a reveal got, the turn's result and the next turn's start (the result goes out
    first: the table picks for the seat, finishes the turn, then refuses the reveal)."""
    got = peer.drain()
    assert [type(message) for message in got] == [TurnResult, TurnStart, Error], got
    result, start, error = got
    assert isinstance(result, TurnResult) and isinstance(start, TurnStart)
    assert isinstance(error, Error)
    return error, result, start


def test_a_bad_reveal_gets_its_code_on_the_short_way() -> None:
    peer, _ = _settled_game()
    start = _turn_start(peer)
    hand = start.observation.hand
    peer.commit(start.observation.legal_actions()[0], start.round, start.turn)
    peer.expect(Commitments)
    assert peer.pick is not None
    round_, turn, action, _ = peer.pick
    peer.send(Reveal(ref=91, round=round_, turn=turn, action=action, nonce=new_nonce()))
    error, result, start = _error_and_result(peer)  # the table went on: picked for the seat
    assert (error.code, error.ref) == (ErrorCode.COMMITMENT_MISMATCH, 91)
    assert result.openings[0].auto and result.openings[0].action.first in hand

    missing = next(card for card in Card if card not in start.observation.hand)
    peer.commit(Action(missing), start.round, start.turn)
    peer.expect(Commitments)
    peer.reveal()
    error, result, _ = _error_and_result(peer)
    assert error.code == ErrorCode.ILLEGAL_ACTION and result.openings[0].auto


def test_moves_for_another_turn_or_out_of_phase_get_their_codes() -> None:
    peer, _ = _settled_game()
    start = _turn_start(peer)
    late = Commit(ref=92, round=start.round, turn=start.turn + 1, commitment=b"c" * 32)
    peer.send_bytes(raw_frame(late))
    error = peer.expect(Error)
    assert (error.code, error.ref) == (ErrorCode.WRONG_TURN, 92)
    early = Reveal(
        ref=93, round=start.round, turn=start.turn, action=Action(Card.EGG), nonce=new_nonce()
    )
    peer.send_bytes(raw_frame(early))
    error = peer.expect(Error)
    assert (error.code, error.ref) == (ErrorCode.OUT_OF_PHASE, 93)
    peer.commit(start.observation.legal_actions()[0], start.round, start.turn)  # still fine
    peer.expect(Commitments)


def test_frames_arriving_together_are_all_handled() -> None:
    peer, _ = _settled_game()
    start = _turn_start(peer)
    action, nonce = start.observation.legal_actions()[0], new_nonce()
    assert peer.seat is not None
    part = CARD_WIRE.commit_bytes(action)
    commitment = make_commitment(peer.table_id, start.round, start.turn, peer.seat, part, nonce)
    together = (
        raw_frame(Commit(ref=94, round=start.round, turn=start.turn, commitment=commitment))
        + raw_frame(Ping(ref=95, nonce=5))
        + raw_frame(Reveal(ref=96, round=start.round, turn=start.turn, action=action, nonce=nonce))
    )
    peer.send_bytes(together[:10])  # a split frame waits for the rest
    assert not peer.transport.buffer
    peer.send_bytes(together[10:])
    got = peer.drain()
    kinds = [type(message) for message in got]
    assert kinds[:4] == [Commitments, ServerPong, TurnResult, TurnStart]
    result = got[2]
    assert isinstance(result, TurnResult)
    assert not result.openings[0].auto and result.openings[0].action == action
