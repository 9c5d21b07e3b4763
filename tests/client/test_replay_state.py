"""The replay viewer's stepping: at every moment the game it shows is the engine's own replay of
the record to that step, for both games, and the moves land where they say."""

from __future__ import annotations

import dataclasses

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sample_helpers import SERVER_KEY, play_record, play_roll_record

from sushigo.client.tui.replay_state import Replay, ReplayError, open_record
from sushigo.engine import GameOptions, rules
from sushigo.protocol import FairRecord, SignedRecord, sign_record
from sushigo.protocol.records import public_key_bytes

SEEDS3 = (b"\x22" * 32, b"\x33" * 32, b"\x44" * 32)


def card_record(players: int = 3, seed: int = 3, **options: bool) -> FairRecord:
    return play_record(
        "t-replay", GameOptions(players=players, **options), b"\x11" * 32, SEEDS3[:players], seed
    )


def roll_record(players: int = 3, seed: int = 5) -> FairRecord:
    return play_roll_record("t-roll", players, b"\x11" * 32, SEEDS3[:players], seed)


def signed(record: FairRecord) -> SignedRecord:
    return sign_record(record, SERVER_KEY)


RECORDS = {
    "sushi-go": card_record,
    "sushi-go-dummy": lambda: card_record(2, seed=4, dummy=True),
    "sushi-roll": roll_record,
}


@pytest.mark.parametrize("make", RECORDS.values(), ids=RECORDS.keys())
def test_every_moment_is_the_engines_replay_to_that_step(make: object) -> None:
    record = make()  # type: ignore[operator]
    replay = open_record(signed(record), public_key_bytes(SERVER_KEY), ["ann", "bob", "cy"])
    assert replay.ok and replay.pinned and replay.complete
    assert replay.last == len(record.steps)
    game_rules = rules(record.game)
    fresh = game_rules.new_game(record.options, record.game_seed())
    seats: list[int | None] = [*range(fresh.players), None]
    for k in range(replay.last + 1):
        assert replay.go(k) or k == 0
        shown = replay.game
        # What every seat could see then, hands included, and the public view, are the engine's.
        assert [shown.observation(s) for s in seats] == [fresh.observation(s) for s in seats]
        assert shown.scores() == fresh.scores()
        if k < replay.last:
            step = record.steps[k]
            assert replay.step == step and shown.position == (step.round, step.turn)
            assert shown.to_act() == step.seats
            assert replay.picks() == {
                s: (o.action, o.auto) for s, o in zip(step.seats, step.openings, strict=True)
            }
            events = fresh.step([o.action for o in step.openings])
            assert list(replay.events[k]) == events
        else:
            assert replay.step is None and replay.picks() == {} and replay.at_end
            assert shown.is_terminal() and shown.scores() == record.scores
    # Moving never changed what the replay keeps.
    replay.home()
    assert replay.game.observation(None) == game_rules.new_game(
        record.options, record.game_seed()
    ).observation(None)


def test_the_moves_stay_inside_and_round_jumps_land_on_a_rounds_first_step() -> None:
    replay = open_record(signed(card_record()))
    rounds = [step.round for step in replay.record.steps]
    firsts = [rounds.index(r) for r in (1, 2, 3)]
    assert firsts[0] == 0 and firsts[1] > 0
    assert not replay.previous() and not replay.home() and replay.index == 0
    assert replay.next() and replay.index == 1
    assert replay.next_round() and replay.index == firsts[1]
    assert replay.next_round() and replay.index == firsts[2]
    assert replay.next_round() and replay.at_end
    assert not replay.next() and not replay.end() and not replay.next_round()
    # Back: from the end to the last round's start, then a round at a time.
    assert replay.previous_round() and replay.index == firsts[2]
    assert replay.previous_round() and replay.index == firsts[1]
    replay.go(firsts[1] + 3)
    assert replay.previous_round() and replay.index == firsts[1]  # this round's start first
    assert replay.previous_round() and replay.index == 0
    assert not replay.previous_round()
    assert replay.end() and replay.index == replay.last
    assert replay.go(-5) is True and replay.index == 0
    assert replay.go(10**6) and replay.at_end
    assert replay.round_at(replay.last) == 3


def test_names_are_padded_and_a_record_not_pinned_says_so() -> None:
    replay = open_record(signed(card_record()), None, ["ann"])
    assert replay.names == ("ann", "seat 2", "seat 3")
    assert replay.ok and not replay.pinned and replay.key == public_key_bytes(SERVER_KEY)


def test_a_record_signed_by_another_key_is_shown_with_the_problem() -> None:
    other = Ed25519PrivateKey.generate()
    replay = open_record(sign_record(card_record(), other), public_key_bytes(SERVER_KEY))
    assert not replay.ok and replay.complete
    assert replay.problems[0].startswith("signature: ")


def test_a_forged_pick_is_named_and_the_game_shown_as_far_as_it_replays() -> None:
    record = card_record()
    steps = list(record.steps)
    # Step 5: seat 0 "played" what seat 1 did (its commitment no longer opens).
    step = steps[4]
    openings = (dataclasses.replace(step.openings[0], action=step.openings[1].action),)
    steps[4] = dataclasses.replace(step, openings=openings + step.openings[1:])
    forged = dataclasses.replace(record, steps=tuple(steps))
    replay = open_record(signed(forged), public_key_bytes(SERVER_KEY))
    assert not replay.ok
    assert any("step 5" in p and "seat 0" in p for p in replay.problems), replay.problems
    # The engine may or may not accept the swapped card; either way the replay stops no later.
    assert 4 <= replay.last <= len(steps)


def test_a_record_cut_short_replays_what_it_has() -> None:
    record = card_record()
    short = dataclasses.replace(record, steps=record.steps[:7])
    replay = open_record(signed(short))
    assert "the record ends before the game does" in replay.problems
    assert replay.last == 7 and not replay.complete
    replay.end()
    assert replay.round_at(replay.index) == 1


def test_unreadable_bytes_are_refused_in_one_line() -> None:
    good = signed(card_record())
    with pytest.raises(ReplayError, match="cannot be read"):
        open_record(dataclasses.replace(good, record=b"\x81\xa1a\x01"))


def test_a_replay_can_be_made_from_a_record_directly() -> None:
    record = roll_record(2)
    replay = Replay(record, rules(record.game), ("ann", "bob"))
    assert replay.ok and replay.players == 2 and replay.names == ("ann", "bob")
    assert replay.initial_events == tuple(
        rules(record.game).new_game(record.options, record.game_seed()).initial_events()
    )
