"""The Sushi Go! table behind `sushi_go_v0`: an engine `Game`, every seat acting on every step.

What each seat knows beyond its `Observation` is worked out from the game, cheaply: a hand that
seat i passed k turns ago (k < players) is now at seat i + k in the passing direction, less picks
everyone saw and plus chopsticks everyone saw go back, so seat i knows exactly the hands of the
seats that received a hand from it this round. Of the others it knows one thing: a used
chopsticks card goes back into the hand that is passed on, in sight of everyone, and stays known
to be there until a pick from that hand could be it. With the dummy variant
a controller also draws a face-down card, which that reasoning cannot follow, so there each seat
keeps a `bots.SeatMemory` instead. Tests check the fast way against `SeatMemory` and that hidden
cards never change an observation.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from sushigo.bots.pettingzoo._table import Array, Table
from sushigo.engine import Card, Game, GameOptions, Observation
from sushigo.engine.games.sushi_go.cards import NUM_KINDS

from ._memory import SeatMemory
from ._pz_encoding import (
    Counts,
    SushiGoEncoding,
    action_index,
    action_of,
    hand_counts,
    tableau_part,
)

_CHOPSTICKS = Card.CHOPSTICKS


class SushiGoTable(Table):
    """Sushi Go! for the environments; every variant of `engine.GameOptions`."""

    simultaneous = True

    def __init__(self, options: GameOptions) -> None:
        self.options = options
        self.players = options.players
        self.encoding = SushiGoEncoding(options)
        self.action_size = self.encoding.action_size
        self.observation_size = self.encoding.size
        self._seats = tuple(range(self.players))
        self._game = Game(options, b"")
        self._past: Counts = [0] * NUM_KINDS
        self._returned = [0] * self.players
        """Per hand, by the seat holding it: chopsticks cards everyone saw go back into it."""
        self._memories: list[SeatMemory] = []
        self._parts: list[list[int]] | None = None
        self._hands: list[Counts] | None = None
        """This turn's `tableau_part` of every tableau and every seat's hand counts, once worked
        out."""

    @property
    def game(self) -> Game:
        """The engine game being played."""
        return self._game

    def index_of(self, action: Any, seat: int) -> int:
        """`action_index`: Sushi Go!'s indexes are the same for every seat."""
        return action_index(action)

    def reset(self, seed: bytes) -> None:
        self._game = Game(self.options, seed)
        self._past = [0] * NUM_KINDS
        self._returned = [0] * self.players
        self._parts = self._hands = None
        if self.options.dummy:
            self._memories = [SeatMemory() for _ in self._seats]
            self._remember()

    def resume(self, game: Game, past: Counts | None = None) -> None:
        """Continue from `game` (say, `Game.from_observation`), whose earlier rounds played the
        cards counted in `past`. With the dummy variant the seats' memories start afresh."""
        if game.options != self.options:
            raise ValueError("the game's options differ from the table's")
        self._game = game
        self._past = list(past) if past is not None else [0] * NUM_KINDS
        self._returned = [0] * self.players
        self._parts = self._hands = None
        if self.options.dummy:
            self._memories = [SeatMemory() for _ in self._seats]
            self._remember()

    @property
    def past(self) -> Counts:
        """The cards of the rounds already played, counted by kind (every seat knows them)."""
        return list(self._past)

    def copy(self) -> SushiGoTable:
        """An independent copy: the same game and the same knowledge, to play on apart."""
        other = copy.copy(self)
        other._game = self._game.clone()
        other._past = self._past[:]
        other._returned = self._returned[:]
        if self._memories:
            other._memories = copy.deepcopy(self._memories)
        return other

    def redeal(self, cards: Sequence[Card]) -> None:
        """Deal the rounds still to come from `cards` (`engine.Game.with_undealt`): nothing any
        seat has seen changes, so neither do observations."""
        self._game = self._game.with_undealt(cards)

    def _remember(self) -> None:
        for seat, memory in enumerate(self._memories):
            memory.observe(self._game.observation(seat))

    def acting(self) -> tuple[int, ...]:
        return () if self._game.is_terminal() else self._seats

    def observation(self, seat: int) -> Array:
        game = self._game
        obs = game.observation(seat)
        parts = self._parts
        if parts is None:
            parts = self._parts = [tableau_part(view) for view in obs.tableaus]
        if self._memories:
            memory = self._memories[seat]
            n = self.players
            known = [
                (list(hand.known), hand.unknown)
                for hand in (memory.hands[(seat + r) % n] for r in range(1, n))
            ]
            return self.encoding.encode(obs, known, memory.past_known, parts)
        return self.encoding.encode(obs, self._known(obs), self._past, parts)

    def _known(self, obs: Observation) -> list[tuple[Counts, int]]:
        """What `obs.seat` knows of every other hand (see the module docstring)."""
        game = self._game
        n = self.players
        seat = obs.seat
        assert seat is not None
        passed = min(obs.turn - 1, n - 1) if not obs.is_over else 0
        hands = self._hands
        if hands is None and passed:
            hands = self._hands = [hand_counts(game.hand(s)) for s in self._seats]
        known = []
        for r in range(1, n):
            # Seat + r received a hand from this seat k turns ago, k = r passing left, n - r right.
            k = r if obs.pass_direction == 1 else n - r
            other = (seat + r) % n
            if k <= passed:
                known.append((hands[other], 0))  # type: ignore[index]  # set when passed
            else:
                counts = [0] * NUM_KINDS
                returned = counts[_CHOPSTICKS] = self._returned[other]
                known.append((counts, obs.tableaus[other].hand_size - returned))
        return known

    def action_mask(self, seat: int) -> Array:
        return self.encoding.mask(self._game.legal_actions(seat))

    def is_legal(self, seat: int, index: int) -> bool:
        return index in self.encoding.legal_indexes(self._game.legal_actions(seat))[1]

    def default_action(self, seat: int) -> int:
        return int(self.encoding.legal_indexes(self._game.legal_actions(seat))[0][0])

    def play(self, picks: dict[int, int]) -> None:
        game = self._game
        last_turn = game.turn == self.options.hand_size and not self._memories
        views = game.observation(None).tableaus if last_turn else ()
        actions = [action_of(picks[seat]) for seat in self._seats]
        game.apply(actions)
        self._parts = self._hands = None
        if self._memories:
            self._remember()
            return
        returned = self._returned
        for seat, action in enumerate(actions):
            # What everyone sees of the hand: chopsticks picked from it (each could be one known
            # to be there), and a used one put back; as `SeatMemory` counts it.
            net = action.cards.count(_CHOPSTICKS) - (action.second is not None)
            returned[seat] = max(0, returned[seat] - net)
        if game.pass_direction == 1:
            returned.insert(0, returned.pop())
        else:
            returned.append(returned.pop(0))
        if last_turn:
            self._returned = [0] * self.players
            # Every card of the round is now known to everyone: the tableaus before this last
            # turn, plus its picks.
            past = self._past
            for view in views:
                for card in view.cards:
                    past[card] += 1
            for action in actions:
                for card in action.cards:
                    past[card] += 1

    def is_over(self) -> bool:
        return self._game.is_terminal()

    def scores(self) -> tuple[int, ...]:
        return self._game.scores()[: self.players]

    def winners(self) -> tuple[int, ...]:
        return self._game.winners()

    def render(self) -> str:
        game = self._game
        obs = game.observation(None)
        lines = [
            f"Sushi Go! {self.players} players"
            + (f" ({', '.join(self.options.variants())})" if self.options.variants() else "")
            + (
                " - game over"
                if game.is_terminal()
                else f" - round {game.round}, turn {game.turn}, passing "
                + ("left" if game.pass_direction == 1 else "right")
            )
        ]
        for i, view in enumerate(obs.tableaus):
            name = "dummy" if view.is_dummy else f"player_{i}"
            cards = " ".join(card.label for card in view.cards) or "-"
            lines.append(
                f"{name:>9}: score {view.score:>3}  puddings {view.puddings}  tableau: {cards}"
            )
            if not view.is_dummy and not game.is_terminal():
                hand = " ".join(card.label for card in game.hand(i))
                lines.append(f"{'':>9}  hand: {hand}")
        return "\n".join(lines) + "\n"
