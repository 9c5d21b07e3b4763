"""Sushi Roll rules in play: setup and the documented roll order, turn order and the red belt,
slides (and the 3-player extra slide), menu, chopsticks, takes, tokens and wasabi."""

from __future__ import annotations

import pytest
from roll_helpers import crafted, dice, die

from sushigo.engine.errors import GameOverError
from sushigo.engine.games.sushi_roll import (
    BAG_ORDER,
    DICE_COUNTS,
    DIE_FACES,
    BeltsSlid,
    DiceRolled,
    Die,
    DieKind,
    Face,
    GameOver,
    NotYourTurnError,
    Reroll,
    Rerolled,
    RollChance,
    RollGame,
    RollOptions,
    RoundScored,
    RoundStarted,
    SeededChance,
    Swap,
    Swapped,
    Take,
    Taken,
)
from sushigo.engine.rng import DeterministicRng

SEED = b"sushi roll test seed"


def derive_round_one(n: int, seed: bytes) -> tuple[int, list[list[Die]], DeterministicRng]:
    """Round 1 exactly as docs/RULES.md says anyone can re-derive it from the seed."""
    red = DeterministicRng(seed, b"roll/belts").below(n)
    bag = list(BAG_ORDER)
    DeterministicRng(seed, b"roll/bag/1").shuffle(bag)
    faces = DeterministicRng(seed, b"roll/faces")
    k = {2: 8, 3: 7, 4: 6, 5: 5}[n]
    belts: list[list[Die]] = [[] for _ in range(n)]
    for i in range(n):
        s = (red + i) % n
        belts[s] = [Die(kind, DIE_FACES[kind][faces.below(6)]) for kind in bag[i * k : (i + 1) * k]]
    return red, belts, faces


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_setup_and_documented_roll_order(n: int) -> None:
    game = RollGame(RollOptions(n), SEED)
    red, belts, faces = derive_round_one(n, SEED)
    assert game.red_belt == red == game.to_move
    assert [list(b) for b in game.belts()] == belts
    obs = game.observation(None)
    k = RollOptions(n).dice_per_player
    assert obs.bag == 30 - n * k
    assert all(len(p.belt) == k and (p.menu, p.chopsticks) == (3, 2) for p in obs.players)
    assert [p.has_red_belt for p in obs.players] == [s == red for s in range(n)]
    events = game.initial_events()
    assert events[0] == RoundStarted(1, red, k)
    assert [e.seat for e in events[1:] if isinstance(e, DiceRolled)] == [
        (red + i) % n for i in range(n)
    ]
    # A re-roll draws on from the same stream, in increasing position order.
    (event,) = game.apply(red, Reroll((0, 2)))
    expected = tuple(
        Die(belts[red][p].kind, DIE_FACES[belts[red][p].kind][faces.below(6)]) for p in (0, 2)
    )
    assert event == Rerolled(red, (0, 2), expected)
    assert game.belts()[red][1] == belts[red][1]  # not re-rolled: unchanged


def test_dice_table_is_the_assumed_one() -> None:
    assert sum(DICE_COUNTS.values()) == len(BAG_ORDER) == 30
    assert [f.label for f in DIE_FACES[BAG_ORDER[0]]] == [
        "dumpling", "dumpling", "dumpling", "tempura", "tempura", "sashimi"
    ]  # fmt: skip
    assert all(len(faces) == 6 for faces in DIE_FACES.values())


def takes_only(game: RollGame) -> list[object]:
    """Play to the end taking position 0 every turn; returns every event."""
    log: list[object] = []
    while not game.is_terminal():
        seat = game.to_move
        assert seat is not None
        log.extend(game.apply(seat, Take(0)))
    return log


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_turn_order_follows_the_red_belt(n: int) -> None:
    game = RollGame(RollOptions(n), SEED)
    k = RollOptions(n).dice_per_player
    for _round in range(3):
        for _cycle in range(k):
            first = game.red_belt
            before = game.belts()
            for i in range(n):
                assert game.to_move == (first + i) % n
                assert all(game.legal_actions(s) == () for s in range(n) if s != game.to_move)
                events = game.apply((first + i) % n, Take(0))
            if _cycle < k - 1:
                # The belts (with their dice) moved left: seat s now has what seat s - 1 kept.
                slid = next(e for e in events if isinstance(e, BeltsSlid))
                assert slid == BeltsSlid((first + 1) % n, False)
                assert game.red_belt == game.to_move == (first + 1) % n
                kinds = [[d.kind for d in belt] for belt in game.belts()]
                assert kinds == [[d.kind for d in before[(s - 1) % n][1:]] for s in range(n)]
    assert game.is_terminal() and game.to_move is None


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_start_player_changes_each_round_and_3p_extra_slide(n: int) -> None:
    game = RollGame(RollOptions(n), SEED)
    log = takes_only(game)
    starts = [e.first_seat for e in log if isinstance(e, RoundStarted)]
    starts.insert(0, game.initial_events()[0].first_seat)  # type: ignore[union-attr]
    assert len(starts) == 3 and starts[1] != starts[0] and starts[2] != starts[1]
    extra = [e for e in log if isinstance(e, BeltsSlid) and e.between_rounds]
    assert len(extra) == (2 if n == 3 else 0)
    if n == 3:
        assert starts[1] == (starts[0] + 1) % 3
    # Extra slides come right after a round is scored, before the next round starts.
    for i, e in enumerate(log):
        if isinstance(e, BeltsSlid) and e.between_rounds:
            assert isinstance(log[i - 1], RoundScored) and isinstance(log[i + 1], RoundStarted)


def test_two_players_move_twice_in_a_row_across_cycles() -> None:
    game = RollGame(RollOptions(2), SEED)
    a = game.to_move
    assert a is not None
    b = 1 - a
    game.apply(a, Take(0))
    game.apply(b, Take(0))  # end of cycle: the red belt goes to b
    assert game.to_move == b == game.red_belt
    game.apply(b, Take(0))
    assert game.to_move == a


def test_wasabi_then_nigiri_is_tripled() -> None:
    game = crafted([["squid", "egg"], ["salmon", "egg"]], trays=[["wasabi"], []])
    (taken,) = game.apply(0, Take(0))
    assert taken == Taken(0, 0, die("squid"), True, 0, 0, 0)
    me = game.observation(1).players[0]
    assert me.tray == dice("wasabi", "squid") and me.on_wasabi == (1,) and me.open_wasabi == 0


def test_nigiri_before_wasabi_is_not_tripled_and_round_scores() -> None:
    game = crafted([["wasabi"], ["maki2"]], trays=[["salmon"], ["wasabi"]])
    game.apply(0, Take(0))
    events = game.apply(1, Take(0))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert [p.nigiri for p in scored.points] == [2, 0]
    assert [p.maki for p in scored.points] == [0, 6]
    assert scored.totals == (2, 6)
    assert game.trays() == ((), ()) and game.dice_count() == 30 and game.round == 2


def test_last_nigiri_onto_wasabi_scores_nine() -> None:
    game = crafted([["squid"], ["egg"]], trays=[["wasabi"], []])
    game.apply(0, Take(0))
    events = game.apply(1, Take(0))
    scored = next(e for e in events if isinstance(e, RoundScored))
    assert scored.totals == (9, 1)


def test_tokens_gained_are_usable_only_from_the_next_turn() -> None:
    game = crafted([["menu2", "egg"], ["chopsticks2", "egg"]], menu=[0, 3], chopsticks=[0, 0])
    (taken,) = game.apply(0, Take(0))
    assert (taken.menu, taken.chopsticks) == (2, 0)
    me = game.observation(None).players[0]
    assert (me.menu, me.fresh_menu, me.usable_menu) == (2, 2, 0)
    with pytest.raises(NotYourTurnError):  # the take ended the turn: no re-roll with them now
        game.apply(0, Reroll((0,)))
    game.apply(1, Take(0))  # seat 1 gains 2 chopsticks; the belts slide, seat 1 starts
    assert game.to_move == 1
    assert game.observation(None).players[1].usable_chopsticks == 2  # seat 1's next turn: usable
    game.apply(1, Swap(0, 0, 0))
    assert game.to_move == 1
    game.apply(1, Take(0))
    assert game.to_move == 0
    assert game.observation(None).players[0].usable_menu == 2
    assert Reroll((0,)) in game.legal_actions(0)
    assert isinstance(game.apply(0, Reroll((0,)))[0], Rerolled)


def test_token_supply_runs_out() -> None:
    """Ruling: a face gains only what the supply still holds."""
    game = crafted(
        [["menu2", "egg"], ["chopsticks2", "egg"], ["egg", "egg"]],
        menu=[10, 7, 0],
        chopsticks=[6, 6, 0],
    )
    assert game.observation(None).menu_supply == 1
    (taken,) = game.apply(0, Take(0))
    assert taken.menu == 1
    (taken,) = game.apply(1, Take(0))
    assert taken.chopsticks == 0
    assert game.observation(None).menu_supply == 0


def test_puddings_are_kept_and_scored_at_the_end() -> None:
    game = crafted([["pudding3"], ["egg"], ["egg"]], round_=3, menu=[0, 3, 1], chopsticks=[0, 2, 0])
    (taken,) = game.apply(0, Take(0))
    assert taken.puddings == 3
    game.apply(1, Take(0))
    events = game.apply(2, Take(0))
    over = events[-1]
    assert isinstance(over, GameOver)
    assert over.pudding_points == (6, -6, -6)
    assert over.token_bonus == (0, 2, 0)
    assert over.totals == (0 + 6, 1 - 6 + 2, 1 - 6 + 0)
    assert game.is_terminal() and game.returns() == over.totals
    assert game.places() == (1, 2, 3) and game.winners() == (0,)
    with pytest.raises(GameOverError):
        game.apply(0, Take(0))
    assert all(game.legal_actions(s) == () for s in range(3))


def test_winner_tie_breaks() -> None:
    # Seats 0 and 1 tie on 7 points (egg + 6 puddings; squid + 4 for 8 unused tokens); seat 0 has
    # more pudding tokens and wins.
    game = crafted([["egg"], ["squid"], ["egg"]], round_=3, menu=[0, 8, 0],
                   chopsticks=[0, 0, 0], puddings=[4, 2, 0])  # fmt: skip
    for s in range(3):
        game.apply(s, Take(0))
    assert game.returns() == (7, 7, -5)
    assert game.places() == (1, 2, 3) and game.winners() == (0,)
    # Tied on points and on puddings: a shared win (all-equal puddings score nothing).
    game = crafted([["squid"], ["salmon"]], round_=3, menu=[0, 2], chopsticks=[0, 0],
                   puddings=[1, 1])  # fmt: skip
    game.apply(0, Take(0))
    game.apply(1, Take(0))
    assert game.returns() == (3, 3) and game.places() == (1, 1) and game.winners() == (0, 1)


def test_two_players_no_pudding_penalty() -> None:
    game = crafted([["egg"], ["egg"]], round_=3, menu=[0, 0], chopsticks=[0, 0],
                   puddings=[1, 0])  # fmt: skip
    game.apply(0, Take(0))
    game.apply(1, Take(0))
    assert game.pudding_points() == (6, 0) and game.returns() == (7, 1)


def test_swap_with_another_belt_keeps_faces() -> None:
    game = crafted([["egg", "squid"], ["tempura", "maki3"], ["pudding2", "wasabi"]],
                   trays=[["dumpling"], [], []])  # fmt: skip
    legal = game.legal_actions(0)
    swaps = [a for a in legal if isinstance(a, Swap)]
    assert swaps and all(a.other_seat != 0 for a in swaps)
    assert len(swaps) == 2 * (2 + 2)
    (event,) = game.apply(0, Swap(1, 2, 0))
    assert event == Swapped(0, 1, 2, 0, die("pudding2"), die("squid"))
    assert game.belts() == (
        dice("egg", "pudding2"),
        dice("tempura", "maki3"),
        dice("squid", "wasabi"),
    )
    assert game.trays()[0] == dice("dumpling")  # trays are never touched
    assert game.tokens()[0] == (3, 1)
    assert game.to_move == 0  # swapping does not end the turn


def test_reroll_changes_only_the_chosen_dice() -> None:
    game = crafted([["egg", "squid", "maki1"], ["tempura", "maki3", "egg"]])
    (event,) = game.apply(0, Reroll((0, 2)))
    belt = game.belts()[0]
    assert belt[1] == die("squid")
    assert (belt[0], belt[2]) == event.dice
    assert belt[0].kind == die("egg").kind and belt[2].kind == die("maki1").kind
    assert game.tokens()[0] == (2, 2) and game.to_move == 0
    assert game.belts()[1] == dice("tempura", "maki3", "egg")


def test_legal_actions_counts() -> None:
    game = crafted([["egg", "salmon", "squid", "egg"], ["maki1"] * 4, ["tempura"] * 4])
    legal = game.legal_actions(0)
    assert sum(isinstance(a, Take) for a in legal) == 4
    assert sum(isinstance(a, Reroll) for a in legal) == 15
    assert sum(isinstance(a, Swap) for a in legal) == 4 * 8
    assert len(set(legal)) == len(legal)
    assert game.observation(0).legal_actions() == legal
    assert game.observation(1).legal_actions() == ()
    no_tokens = crafted([["tempura"] * 3, ["egg"] * 3], menu=[0, 0], chopsticks=[0, 0])
    assert no_tokens.legal_actions(0) == (Take(0), Take(1), Take(2))
    full = RollGame(RollOptions(2), SEED)
    assert sum(isinstance(a, Reroll) for a in full.legal_actions(full.red_belt)) == 255


class _Fixed:
    """Chance chosen outside the game: every die shows its kind's last face."""

    def red_belt(self, players: int) -> int:
        return players - 1

    def draw(self, round_: int, bag: list[DieKind], count: int) -> None:
        bag.reverse()

    def roll(self, kind: DieKind) -> Face:
        return DIE_FACES[kind][5]

    def clone(self) -> _Fixed:
        return self


def test_a_game_draws_from_the_chance_source_it_is_given() -> None:
    game = RollGame.with_chance(RollOptions(3), _Fixed())
    assert game.seed == b"" and game.red_belt == 2
    belts = game.belts()
    assert belts[2][0].kind == BAG_ORDER[-1] and all(
        d.face == DIE_FACES[d.kind][5] for b in belts for d in b
    )
    seeded = RollGame(RollOptions(3), b"c" * 32)
    other = seeded.clone(chance=SeededChance(b"c" * 32))
    assert other.observation(None) == seeded.observation(None)
    assert isinstance(SeededChance(b""), RollChance)
