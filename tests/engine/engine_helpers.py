"""Shared helpers for the engine tests: an independent reference scorer, deterministic policies,
turn drivers and a deterministic seed search.

Imported by the test modules as ``engine_helpers`` (pytest puts this folder on ``sys.path``); the
name is unique so it cannot clash with helpers of other test folders.

The reference scorer is written from RULES.md section 1, by card name, deliberately without
reusing anything from ``engine.games.sushi_go.scoring``: the tests compare the engine against it.
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable, Iterable, Sequence

from sushigo.engine import (
    Action,
    Card,
    DeterministicRng,
    Event,
    Game,
    GameOptions,
    PicksRevealed,
)

# -- card groups, by the tests' own reading of the rules -----------------------------------------

NIGIRI = frozenset({Card.EGG, Card.SALMON, Card.SQUID})
MAKI = frozenset({Card.MAKI1, Card.MAKI2, Card.MAKI3})
CHOP, WASABI, PUDDING, SOY = Card.CHOPSTICKS, Card.WASABI, Card.PUDDING, Card.SOY_SAUCE

BASE_COUNTS = {
    "tempura": 14,
    "sashimi": 14,
    "dumpling": 14,
    "maki2": 12,
    "maki3": 8,
    "maki1": 6,
    "salmon": 10,
    "squid": 5,
    "egg": 5,
    "pudding": 10,
    "wasabi": 6,
    "chopsticks": 4,
}

# -- reference scorer ---------------------------------------------------------------------------

_ICONS = {"maki1": 1, "maki2": 2, "maki3": 3}
_NIGIRI_VALUE = {"egg": 1, "salmon": 2, "squid": 3}
_DUMPLINGS = {0: 0, 1: 1, 2: 3, 3: 6, 4: 10}
_FAMILY = {
    "maki1": "maki",
    "maki2": "maki",
    "maki3": "maki",
    "tempura": "tempura",
    "sashimi": "sashimi",
    "dumpling": "dumpling",
    "egg": "nigiri",
    "salmon": "nigiri",
    "squid": "nigiri",
    "wasabi": "nigiri",
    "chopsticks": "chopsticks",
    "pudding": "pudding",
    "soy_sauce": "soy_sauce",
}


def _names(tableau: Iterable[Card | str]) -> list[str]:
    return [c if isinstance(c, str) else c.label for c in tableau]


def ref_round_breakdown(tableaus: Sequence[Iterable[Card | str]]) -> list[dict[str, int]]:
    """Per tableau: points by category (maki, tempura, sashimi, dumpling, nigiri, soy_sauce)."""
    names = [_names(t) for t in tableaus]
    icons = [sum(_ICONS.get(c, 0) for c in t) for t in names]
    out: list[dict[str, int]] = []
    for t in names:
        nigiri = 0
        waiting = 0
        for c in t:
            if c == "wasabi":
                waiting += 1
            elif c in _NIGIRI_VALUE:
                if waiting:
                    waiting -= 1
                    nigiri += 3 * _NIGIRI_VALUE[c]
                else:
                    nigiri += _NIGIRI_VALUE[c]
        dumplings = t.count("dumpling")
        out.append(
            {
                "maki": 0,
                "tempura": t.count("tempura") // 2 * 5,
                "sashimi": t.count("sashimi") // 3 * 10,
                "dumpling": 15 if dumplings >= 5 else _DUMPLINGS[dumplings],
                "nigiri": nigiri,
                "soy_sauce": 0,
            }
        )
    # Maki: players with at least one maki card take part.
    taking_part = sorted({n for n in icons if n > 0}, reverse=True)
    if taking_part:
        firsts = [i for i, n in enumerate(icons) if n == taking_part[0]]
        for i in firsts:
            out[i]["maki"] = 6 // len(firsts)
        if len(firsts) == 1 and len(taking_part) > 1:
            seconds = [i for i, n in enumerate(icons) if n == taking_part[1]]
            for i in seconds:
                out[i]["maki"] = 3 // len(seconds)
    # Soy sauce: distinct colour families among this round's cards.
    colours = [len({_FAMILY[c] for c in t}) for t in names]
    if colours:
        top = max(colours)
        soy_winners = [i for i, t in enumerate(names) if "soy_sauce" in t and colours[i] == top]
        for i in soy_winners:
            out[i]["soy_sauce"] = 4 // len(soy_winners)
    return out


def ref_round(tableaus: Sequence[Iterable[Card | str]]) -> list[int]:
    """Per tableau: the round's total points."""
    return [sum(p.values()) for p in ref_round_breakdown(tableaus)]


def ref_puddings(puddings: Sequence[int]) -> list[int]:
    """End-of-game pudding points, from RULES.md section 1."""
    out = [0] * len(puddings)
    if len(set(puddings)) <= 1:
        return out
    most = [i for i, n in enumerate(puddings) if n == max(puddings)]
    for i in most:
        out[i] += 6 // len(most)
    if len(puddings) > 2:
        fewest = [i for i, n in enumerate(puddings) if n == min(puddings)]
        for i in fewest:
            out[i] -= 6 // len(fewest)
    return out


def ref_legal(hand: Sequence[Card], chopsticks_ready: bool, controls_dummy: bool) -> set[Action]:
    """Every legal action of a hand, by brute force over its cards (RULES.md section 1): any one
    card; with chopsticks ready, any two different cards of the hand in either order, when the
    hand holds one more card than the turn needs; the dummy's controller adds one card from what
    is left for the dummy."""
    own = {Action(card) for card in hand}
    if chopsticks_ready and len(hand) >= (3 if controls_dummy else 2):
        own |= {Action(a, b) for i, a in enumerate(hand) for j, b in enumerate(hand) if i != j}
    if not controls_dummy:
        return own
    out = set()
    for action in own:
        rest = list(hand)
        for card in action.cards:
            rest.remove(card)
        out |= {Action(action.first, action.second, card) for card in rest}
    return out


def ref_places(totals: Sequence[int], puddings: Sequence[int]) -> list[int]:
    """1 + the number of seats strictly ahead by (total, then puddings)."""
    keys = list(zip(totals, puddings, strict=True))
    return [1 + sum(other > key for other in keys) for key in keys]


# -- the deal, by the documented deal order -----------------------------------------------------


def shuffled_deck(seed: bytes, soy_sauce: bool = False) -> list[Card]:
    """The deck as the engine shuffles it: the documented unshuffled order (by card value, copies
    together), shuffled by the generator's b"deck" stream."""
    counts = {Card.from_label(k): v for k, v in BASE_COUNTS.items()}
    if soy_sauce:
        counts[SOY] = 3
    cards = [card for card in Card for _ in range(counts.get(card, 0))]
    DeterministicRng(seed, b"deck").shuffle(cards)
    return cards


# -- reference generator (the spec of engine/rng.py, from hashlib alone) ------------------------


SPEC_WORD_BYTES = 2
"""Generator version 1 (tag b"sushigo/rng/v1") reads each SHA-256 block as sixteen big-endian u16
words. A generator with other words is a different version and needs a new tag."""


class SpecRng:
    """Generator version 1 exactly as engine/rng.py specified it, written independently."""

    def __init__(self, seed: bytes, stream: bytes) -> None:
        self.prefix = (
            b"sushigo/rng/v1"
            + len(seed).to_bytes(4, "big")
            + seed
            + len(stream).to_bytes(4, "big")
            + stream
        )
        self.block = 0
        self.buffer: list[int] = []

    def word(self) -> int:
        if not self.buffer:
            digest = hashlib.sha256(self.prefix + self.block.to_bytes(8, "big")).digest()
            self.block += 1
            step = SPEC_WORD_BYTES
            self.buffer = [int.from_bytes(digest[i : i + step], "big") for i in range(0, 32, step)]
        return self.buffer.pop(0)

    def below(self, n: int) -> int:
        span = 1 << (8 * SPEC_WORD_BYTES)
        limit = span - span % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def shuffle(self, items: list[object]) -> None:
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


# -- policies and drivers -----------------------------------------------------------------------

Policy = Callable[[Game, int], Action]


def seeded_policy(seed: bytes, pair_bias: bool = True) -> Policy:
    """Random legal actions from the engine's own generator (deterministic everywhere).

    With `pair_bias`, half the choices are uniform over every legal action (which, when chopsticks
    are ready, are mostly pairs) and half uniform over single picks, so both kinds are common.
    """
    rng = DeterministicRng(seed, b"test-policy")

    def choose(game: Game, seat: int) -> Action:
        legal = game.legal_actions(seat)
        if pair_bias and rng.below(2):
            singles = [a for a in legal if a.second is None]
            if singles:
                return singles[rng.below(len(singles))]
        return legal[rng.below(len(legal))]

    return choose


def first_legal(game: Game, seat: int) -> Action:
    """The first legal action (single picks come first)."""
    return game.legal_actions(seat)[0]


def avoiding(avoid: Iterable[Card]) -> Policy:
    """A single pick (plus a dummy pick when needed) that avoids the cards in `avoid` if it can."""
    avoid = frozenset(avoid)

    def choose(game: Game, seat: int) -> Action:
        singles = [a for a in game.legal_actions(seat) if a.second is None]
        for a in singles:
            if not any(c in avoid for c in a.cards):
                return a
        for a in singles:
            if a.first not in avoid:
                return a
        return singles[0]

    return choose


def play_turn(
    game: Game, policy: Policy, overrides: dict[int, Action] | None = None
) -> list[Event]:
    """Apply one turn: `overrides` for the named seats, `policy` for the rest."""
    overrides = overrides or {}
    actions = [overrides[s] if s in overrides else policy(game, s) for s in range(game.players)]
    return game.apply(actions)


def play_out(game: Game, policy: Policy) -> list[Event]:
    """Play to the end; every event."""
    events: list[Event] = []
    while not game.is_terminal():
        events += play_turn(game, policy)
    return events


def rebuild(options: GameOptions, seed: bytes, history: Iterable[Sequence[Action]]) -> Game:
    """A fresh game with the given turns replayed (used to branch from one position)."""
    game = Game(options, seed)
    for turn in history:
        game.apply(list(turn))
    return game


def seeds(prefix: bytes = b"engine-tests", limit: int = 4000) -> Iterable[bytes]:
    """The deterministic list of seeds that scenario searches walk through, in order."""
    for i in range(limit):
        yield prefix + b"/" + str(i).encode()


def find(
    options: GameOptions,
    scenario: Callable[[Game], object],
    limit: int = 4000,
    prefix: bytes = b"engine-tests",
) -> tuple[bytes, Game, object]:
    """The first seed (in `seeds` order) for which `scenario(game)` returns something truthy.

    `scenario` may play the game forward; the game is returned in the state it left it, with the
    scenario's result. Fails the test if no seed in the range works.
    """
    for seed in seeds(prefix, limit):
        game = Game(options, seed)
        found = scenario(game)
        if found:
            return seed, game, found
    raise AssertionError(f"no seed among the first {limit} sets up the scenario")


# -- observation helpers ------------------------------------------------------------------------


def snapshot(game: Game) -> tuple[object, ...]:
    """Everything the public API shows, for 'the state did not change' checks."""
    seats = range(game.players)
    return (
        tuple(game.observation(s) for s in seats),
        game.observation(None),
        tuple(game.hand(s) for s in seats),
        tuple(game.legal_actions(s) for s in seats),
        game.history,
        game.scores(),
        game.puddings(),
        game.round_points(),
        game.card_count(),
        game.round,
        game.turn,
        game.dummy_controller,
        game.is_terminal(),
    )


def public_part(obs: object) -> object:
    """An observation with its private part (seat and hand) blanked."""
    return dataclasses.replace(obs, seat=None, hand=())  # type: ignore[type-var]


def reveals(events: Iterable[Event]) -> list[PicksRevealed]:
    return [e for e in events if isinstance(e, PicksRevealed)]
