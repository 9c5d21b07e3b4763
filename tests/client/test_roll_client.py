"""`Client` at a Sushi Roll table, linked in memory to a scripted server that deals a real game:
the seed duty, our actions, and every fairness check (an honest game verifies; each lie is
caught)."""

from __future__ import annotations

import random

import pytest
from roll_dealer import Dealer, drain, play_through, settle

from sushigo.bots import get_strategy
from sushigo.client.connection import Client, ServerError
from sushigo.engine.games.sushi_roll import Reroll, RollAction, RollObservation, Take
from sushigo.protocol import (
    Act,
    Acted,
    ErrorCode,
    GameEnded,
    LoginGuest,
    Seed,
    TurnStart,
)


async def _seated(dealer: Dealer) -> Client:
    client = Client("127.0.0.1", 1, name="tester")
    dealer.attach(client)
    await settle()
    client.send(LoginGuest(ref=client.proto.next_ref(), name="tester"))
    await settle()
    dealer.seat_client()
    await settle()
    return client


def _chooser(seed: int = 0) -> object:
    rng = random.Random(seed)
    strategy = get_strategy("heuristic", game="sushi-roll")

    def choose(obs: RollObservation) -> RollAction:
        return strategy.choose(obs, obs.legal_actions(), rng)

    return choose


@pytest.mark.parametrize(("players", "seat"), [(2, 1), (3, 0), (5, 4)])
async def test_an_honest_game_is_played_and_every_die_verified(players: int, seat: int) -> None:
    dealer = Dealer(players, seat, seed=players)
    client = await _seated(dealer)
    assert any(isinstance(m, Seed) for m in dealer.received)  # the seed duty, as for cards
    events = await play_through(client, dealer, _chooser())  # type: ignore[arg-type]
    fair = client.fairness
    assert fair.kind == "sushi-roll"
    assert fair.failures == [] and fair.final == "verified"
    assert fair.actions_seen == len(dealer.steps) <= fair.observations_verified
    mine = [m for m in dealer.received if isinstance(m, Act)]
    assert len(mine) >= 3 * dealer.game.options.dice_per_player  # type: ignore[union-attr]
    over = next(e for e in events if isinstance(e, GameEnded))
    assert over.totals == dealer.game.scores()  # type: ignore[union-attr]
    assert client.observation is not None and client.observation.is_over
    assert client.observation.seat == seat


async def test_a_spectator_checks_the_game_too() -> None:
    dealer = Dealer(3, None, seed=9)
    client = await _seated(dealer)
    await settle()
    events = await drain(client)
    assert any(isinstance(e, GameEnded) for e in events)
    assert client.fairness.final == "verified", client.fairness.failures
    assert client.fairness.observations_verified > len(dealer.steps)
    assert not client.awaiting


async def test_a_spectator_arriving_mid_game_checks_the_rest() -> None:
    dealer = Dealer(4, None, seed=19)
    client = Client("127.0.0.1", 1, name="tester")
    dealer.attach(client)
    await settle()
    client.send(LoginGuest(ref=client.proto.next_ref(), name="tester"))
    await settle()
    stale = client.fairness
    unseen = dealer.watch_late(30)
    await settle()
    events = await drain(client)
    assert any(isinstance(e, GameEnded) for e in events)
    fair = client.fairness
    assert fair is not stale and fair.kind == "sushi-roll"
    assert fair.final == "verified", fair.failures
    assert fair.actions_seen == len(dealer.steps) - unseen > 0
    assert fair.observations_verified >= fair.actions_seen


@pytest.mark.parametrize(
    ("lie", "words"),
    [
        ("lie_server_seed", "does not match its commitment"),
        ("lie_key", "signature"),
        ("lie_die_at", "is not what the seeds give"),
        ("lie_illegal_at", "action shown is not the record's"),
        ("lie_action_for_client", "that we did not send"),
    ],
)
async def test_every_lie_is_caught(lie: str, words: str) -> None:
    dealer = Dealer(3, 1, seed=5)
    setattr(dealer, lie, 4 if lie.endswith("_at") else True)
    client = await _seated(dealer)
    await play_through(client, dealer, _chooser(1))  # type: ignore[arg-type]
    fair = client.fairness
    assert fair.final == "FAILED"
    assert any(words in failure for failure in fair.failures), fair.failures


async def test_roll_refuses_what_the_server_would_and_sends_nothing() -> None:
    dealer = Dealer(3, 0, seed=3)
    client = await _seated(dealer)
    await drain(client)
    assert client.awaiting  # the bots before us have moved: our turn
    obs = client.state
    assert obs is not None and obs.seat == 0 and obs.to_move == 0
    sent = len(dealer.received)
    with pytest.raises(ServerError) as illegal:
        client.act(Take(len(obs.players[0].belt)))
    assert illegal.value.code is ErrorCode.ILLEGAL_ACTION
    client.act(Reroll((0,)))  # legal: 3 menu tokens at the start
    with pytest.raises(ServerError) as busy:
        client.act(Take(0))
    assert busy.value.code is ErrorCode.ALREADY_DONE
    await settle()
    await drain(client)
    assert client.awaiting  # the re-roll was answered; still our move
    with pytest.raises(ServerError) as changed:
        client.act(Take(0), seen=obs)  # chosen on the table before the re-roll
    assert changed.value.code is ErrorCode.WRONG_TURN
    assert sum(isinstance(m, Act) for m in dealer.received[sent:]) == 1
    # A refusal from the server: nothing changed, and we may act again.
    dealer.refuse_next = True
    client.act(Take(0))
    await settle()
    await drain(client)
    assert client.refusals == 1 and client.awaiting
    client.act(Take(0))
    await settle()
    await drain(client)
    assert client.refusals == 0
    await play_through(client, dealer, _chooser(2))  # type: ignore[arg-type]
    with pytest.raises(ServerError) as over:
        client.act(Take(0))
    assert over.value.code is ErrorCode.OUT_OF_PHASE
    assert client.fairness.final == "verified", client.fairness.failures


async def test_a_turn_taken_by_the_timer_is_shown_as_auto() -> None:
    dealer = Dealer(3, 2, seed=11, turn_ms=30_000)
    client = await _seated(dealer)
    while dealer.game.to_move != 2:  # type: ignore[union-attr]
        await settle()
    await drain(client)
    assert client.awaiting
    dealer.take_for_client()
    await settle()
    events = await drain(client)
    auto = [e for e in events if isinstance(e, Acted) and e.auto]
    assert auto and auto[0].seat == 2
    assert client.fairness.auto_picks == 1 and not client.fairness.failures
    assert any(isinstance(e, TurnStart) for e in events)


async def test_a_resume_from_a_snapshot_checks_the_rest_of_the_game() -> None:
    dealer = Dealer(3, 0, seed=13)
    client = await _seated(dealer)
    choose = _chooser(3)
    while client.state is None or client.state.cycle < 3:
        await settle()
        await drain(client)
        if client.awaiting:
            client.act(choose(client.state))  # type: ignore[operator]
    while not client.awaiting:  # our action answered: our move again, the bots have played
        await settle()
    seen = client.fairness.actions_seen
    # The connection drops; the server takes for us meanwhile, and keeps nothing to replay.
    dealer.online = False
    dealer.take_for_client()
    missed = len(dealer.steps) - seen
    assert missed > 0
    client._open = dealer.reopen  # type: ignore[method-assign]
    await drain(client)
    reply = await client.resume()
    assert reply.snapshot is not None and client.kind == "sushi-roll"
    await settle()
    assert client.awaiting  # the snapshot says it: our move again
    assert client.state == reply.snapshot.observation
    await play_through(client, dealer, choose)  # type: ignore[arg-type]
    fair = client.fairness
    assert fair.final == "verified", fair.failures
    assert fair.actions_seen == len(dealer.steps) - missed
