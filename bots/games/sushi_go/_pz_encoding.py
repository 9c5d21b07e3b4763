"""Sushi Go! as numbers: the observation vector and the action indexes (docs/RESEARCH.md, "The
environments' encoding", has the table).

`SushiGoEncoding` works from what a seat is given, an `engine.Observation`, plus what the seat
remembers: the cards it knows in the other hands (it saw them pass through its own) and the cards
played in earlier rounds. The environment works those out from the game (`_pz_table`); a strategy
can work them out from its own observations with `knowledge_from_memory` and `bots.SeatMemory`,
and gets the same numbers (tests check both ways agree).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from sushigo.bots.pettingzoo._table import Array
from sushigo.engine import Action, Card, GameOptions, Observation, TableauView
from sushigo.engine.games.sushi_go.cards import NUM_KINDS

from ._memory import SeatMemory

Counts = list[int]
"""Cards as a count per kind, indexed by `Card` value (13 kinds, soy sauce last)."""

GLOBAL_SIZE = 8
"""Round (3, one-hot), turn, cards in hand, passes left, controls the dummy, game over."""
TABLEAU_SIZE = NUM_KINDS + 8
"""Per tableau: counts (13), nigiri on wasabi (egg, salmon, squid), open wasabi, chopsticks
ready, puddings, score, hand size."""
KNOWN_SIZE = NUM_KINDS + 1
"""Per other seat: the cards known to be in its hand (13), and how many of its cards are not."""
SINGLE_ACTIONS = NUM_KINDS
PLAIN_ACTIONS = NUM_KINDS * (NUM_KINDS + 1)
"""Indexes of actions without a dummy card: 13 single picks, then 13 x 13 chopsticks pairs."""
DUMMY_ACTIONS = PLAIN_ACTIONS * (NUM_KINDS + 1)
"""Indexes with the dummy variant: every plain action, then each with one of 13 dummy cards."""

_EGG, _SALMON, _SQUID = Card.EGG, Card.SALMON, Card.SQUID
_CARDS = list(Card)


def action_index(action: Action) -> int:
    """The index of `action`: ``first + 13 * s + 182 * d``, where s is 0 without a second card
    and the second card's value + 1 with one, and d likewise for the dummy's card."""
    first, second, dummy = action
    index = int(first)
    if second is not None:
        index += NUM_KINDS * (second + 1)
    if dummy is not None:
        index += PLAIN_ACTIONS * (dummy + 1)
    return index


def _action_of(index: int) -> Action:
    first = index % NUM_KINDS
    second = index // NUM_KINDS % (NUM_KINDS + 1)
    dummy = index // PLAIN_ACTIONS
    return Action(
        _CARDS[first],
        _CARDS[second - 1] if second else None,
        _CARDS[dummy - 1] if dummy else None,
    )


_ACTIONS = [_action_of(i) for i in range(DUMMY_ACTIONS)]


def action_of(index: int) -> Action:
    """The action at `index` (`IndexError` outside ``0 <= index < 2548``)."""
    if index < 0:
        raise IndexError(f"no action at index {index}")
    return _ACTIONS[index]


def counts_of(cards: Sequence[Card]) -> Counts:
    """The per-kind counts of some cards."""
    out = [0] * NUM_KINDS
    for card in cards:
        out[card] += 1
    return out


_HAND_COUNTS: dict[tuple[Card, ...], Counts] = {}


def hand_counts(hand: tuple[Card, ...]) -> Counts:
    """`counts_of` a sorted hand, cached (hands repeat a lot): never change the list returned."""
    found = _HAND_COUNTS.get(hand)
    if found is None:
        if len(_HAND_COUNTS) > 100_000:
            _HAND_COUNTS.clear()
        found = _HAND_COUNTS[hand] = counts_of(hand)
    return found


def tableau_part(view: TableauView) -> list[int]:
    """A tableau's `TABLEAU_SIZE` numbers (the same for every observer)."""
    part = counts_of(view.cards)
    on = view.on_wasabi
    part += (
        on.count(_EGG),
        on.count(_SALMON),
        on.count(_SQUID),
        view.open_wasabi,
        1 if view.chopsticks_ready else 0,
        view.puddings,
        min(255, max(0, view.score)),
        view.hand_size,
    )
    return part


class SushiGoEncoding:
    """The encoding for one game set-up (player count and variants)."""

    __slots__ = ("_masks", "action_size", "options", "size")

    def __init__(self, options: GameOptions) -> None:
        self.options = options
        n = options.players
        self.size = GLOBAL_SIZE + NUM_KINDS + TABLEAU_SIZE * options.tableaus
        self.size += KNOWN_SIZE * (n - 1) + NUM_KINDS
        """Length of the observation vector."""
        self.action_size = DUMMY_ACTIONS if options.dummy else PLAIN_ACTIONS
        """Size of the discrete action space."""
        self._masks: dict[int, tuple[Sequence[Action], Array, frozenset[int], Array]] = {}

    def _legal(
        self, legal: Sequence[Action]
    ) -> tuple[Sequence[Action], Array, frozenset[int], Array]:
        """`legal`'s indexes (sorted, as an array), as a set, and its mask, worked out once.
        Cached by the tuple's identity (the engine shares one tuple among every hand with the same
        legal actions), keeping the tuple itself so that an identity is never reused."""
        found = self._masks.get(id(legal))
        if found is None or found[0] is not legal:
            indexes = sorted(map(action_index, legal))
            if len(self._masks) > 50_000:
                self._masks.clear()
            mask = np.zeros(self.action_size, dtype=np.int8)
            mask[indexes] = 1
            found = self._masks[id(legal)] = (
                legal,
                np.array(indexes, dtype=np.intp),
                frozenset(indexes),
                mask,
            )
        return found

    def legal_indexes(self, legal: Sequence[Action]) -> tuple[Array, frozenset[int]]:
        """The indexes of `legal`, sorted as an array and as a set."""
        found = self._legal(legal)
        return found[1], found[2]

    def mask(self, legal: Sequence[Action]) -> Array:
        """The action mask of `legal` (int8, 1 where legal): a new array each time."""
        return self._legal(legal)[3].copy()

    def encode(
        self,
        obs: Observation,
        known: Sequence[tuple[Counts, int]],
        past: Counts,
        parts: Sequence[list[int]] | None = None,
    ) -> Array:
        """The observation vector of `obs.seat`.

        `known[r - 1]` is (counts of the cards known to be in the hand of seat ``seat + r``, how
        many of its cards are unknown), for r = 1 to players - 1; `past` counts the cards played
        in earlier rounds. `parts` may pass `tableau_part` of each of `obs.tableaus` (the same for
        every seat of a turn, so an environment works them out once).
        """
        seat = obs.seat
        if seat is None:
            raise ValueError("a spectator's observation has no seat to encode for")
        if parts is None:
            parts = [tableau_part(view) for view in obs.tableaus]
        n = obs.options.players
        values = [0, 0, 0]
        values[obs.round - 1] = 1
        hand = obs.hand
        values += (
            obs.turn,
            len(hand),
            1 if obs.pass_direction == 1 else 0,
            1 if obs.dummy_controller == seat else 0,
            1 if obs.is_over else 0,
        )
        values += hand_counts(hand)
        for s in range(seat, n):
            values += parts[s]
        for s in range(seat):
            values += parts[s]
        if len(parts) > n:
            values += parts[n]
        for counts, unknown in known:
            values += counts
            values.append(unknown)
        values += past
        return np.frombuffer(bytes(values), dtype=np.uint8).astype(np.float32)


def knowledge_from_memory(memory: SeatMemory) -> tuple[list[tuple[Counts, int]], Counts]:
    """`SushiGoEncoding.encode`'s `known` and `past` from a seat's own `SeatMemory` (after it
    has observed the current observation): for a strategy that plays from observations."""
    obs = memory.last
    if obs is None or obs.seat is None:
        raise ValueError("the memory has observed nothing yet")
    n = obs.options.players
    hands = memory.hands
    known = []
    for r in range(1, n):
        hand = hands[(obs.seat + r) % n]
        known.append((list(hand.known), hand.unknown))
    return known, memory.past_known
