"""Random playouts (hypothesis) for 2-5 players, checking invariants after every action: dice
conserved, tokens within bounds, turn order, observations the same for every seat and free of the
bag's order, scores equal to the reference scorer; and replay equality at the end."""

from __future__ import annotations

import json
import random
from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st
from roll_helpers import play_out, random_policy, ref_puddings, ref_round

from sushigo.engine.games.sushi_roll import (
    CHOPSTICKS_SUPPLY,
    DICE_COUNTS,
    MENU_SUPPLY,
    BeltsSlid,
    GameOver,
    RollAction,
    RollEvent,
    RollGame,
    RollOptions,
    RollRecord,
    RoundScored,
    Take,
    Taken,
    replay,
)


class Checker:
    """Invariants checked after every action of one playout."""

    def __init__(self, game: RollGame) -> None:
        self.n = game.players
        self.first = game.red_belt
        self.takers: list[int] = []
        self.trays = [list(t) for t in game.trays()]

    def __call__(
        self, game: RollGame, seat: int, action: RollAction, events: list[RollEvent]
    ) -> None:
        n = self.n
        # Dice conserved, kind by kind: bag + belts + trays.
        kinds = Counter(game.bag_kinds())
        for die in (d for belt in game.belts() for d in belt):
            kinds[die.kind] += 1
        for die in (d for tray in game.trays() for d in tray):
            kinds[die.kind] += 1
        assert kinds == Counter(DICE_COUNTS) and game.dice_count() == 30
        # Tokens never negative, never more than the supply.
        menus = [m for m, _ in game.tokens()]
        chops = [c for _, c in game.tokens()]
        assert min(menus) >= 0 and min(chops) >= 0
        assert sum(menus) <= MENU_SUPPLY and sum(chops) <= CHOPSTICKS_SUPPLY
        # Only a take ends a turn; takes go round from the red-belt holder.
        if type(action) is not Take:
            assert game.to_move == seat
            return
        taken = next(e for e in events if isinstance(e, Taken))
        self.trays[seat].append(taken.die)
        assert seat == (self.first + len(self.takers)) % n
        self.takers.append(seat)
        for e in events:
            if isinstance(e, RoundScored):
                faces = [[d.face.label for d in tray] for tray in self.trays]
                assert [p.total for p in e.points] == ref_round(faces)
                self.trays = [[] for _ in range(n)]
            if isinstance(e, GameOver):
                assert list(e.pudding_points) == ref_puddings(list(game.puddings()))
                bonus = [(m + c) // 2 for m, c in game.tokens()]
                assert list(e.token_bonus) == bonus
        if len(self.takers) == n:
            self.takers = []
            self.first = game.red_belt
            slid = [e for e in events if isinstance(e, BeltsSlid) and not e.between_rounds]
            if slid:
                assert len({len(b) for b in game.belts()}) == 1  # every belt the same size
        if game.is_terminal():
            return
        assert game.to_move == (self.first + len(self.takers)) % n
        # Observations: the same for every seat but the `seat` field; none shows the bag order.
        spectator = game.observation(None)
        for s in range(n):
            view = game.observation(s)
            assert view.seat == s and view.players == spectator.players
            assert view.legal_actions() == game.legal_actions(s)
        twin = game.clone()
        random.Random(len(game.history)).shuffle(twin._bag)  # only the order differs
        assert twin.observation(None) == spectator
        # The public state alone rebuilds the game (what a search bot plays on from).
        assert RollGame.from_observation(spectator, b"other").observation(None) == spectator


@settings(max_examples=40, deadline=None)
@given(
    st.integers(2, 5),
    st.binary(min_size=1, max_size=16),
    st.integers(0, 2**32),
    st.sampled_from([0.3, 0.6, 1.0]),
)
def test_random_playouts(players: int, seed: bytes, policy_seed: int, bias: float) -> None:
    game = RollGame(RollOptions(players), seed)
    check = Checker(game)
    log = play_out(game, random_policy(random.Random(policy_seed), bias), check)
    over = log[-1]
    assert isinstance(over, GameOver) and game.is_terminal()
    assert sum(isinstance(e, RoundScored) for e in log) == 3
    assert (
        sum(isinstance(e, Taken) for e in log) == 3 * players * RollOptions(players).dice_per_player
    )
    # Replay from plain data (through JSON) reaches the same dice, events and scores.
    data = json.loads(json.dumps(RollRecord.of(game).to_data()))
    assert data["game"] == "sushi-roll"
    again = replay(RollRecord.from_data(data))
    assert again.returns() == game.returns() == over.totals
    assert again.places() == game.places() and again.history == game.history
    assert again.observation(None) == game.observation(None)
    assert again.round_points() == game.round_points()


@settings(max_examples=10, deadline=None)
@given(st.integers(2, 5), st.binary(max_size=8), st.integers(0, 2**32))
def test_clone_plays_on_identically(players: int, seed: bytes, policy_seed: int) -> None:
    game = RollGame(RollOptions(players), seed)
    rng = random.Random(policy_seed)
    policy = random_policy(rng, 0.5)
    for _ in range(rng.randrange(40)):
        seat = game.to_move
        assert seat is not None
        game.apply(seat, policy(game, seat))
    twin = game.clone()
    a = play_out(game, random_policy(random.Random(1)))
    b = play_out(twin, random_policy(random.Random(1)))
    assert a[-1] == b[-1] and game.history == twin.history
