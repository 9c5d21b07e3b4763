"""Sushi Go! as an OpenSpiel game: ``python_sushi_go``, simultaneous moves, imperfect information.

Parameters: ``players`` (2-5, default 2), the variants ``pass_both_ways``, ``dummy`` (2 players)
and ``soy_sauce`` (as `engine.GameOptions`), and ``utility`` ("win" or "points", see
`_common.UTILITIES`). ``pyspiel.load_game("python_sushi_go(players=4,soy_sauce=True)")``.

**Actions** are the PettingZoo encoding's indexes (`bots.pettingzoo.action_index`: ``first + 13 *
s + 182 * d``): 182 of them, 2,548 with the dummy variant. **Chance** deals the cards one at a
time, each outcome a card kind (its `Card` value, 0-12) with probability its share of the cards
not dealt yet: a round's hands seat by seat, then the dummy's pile from its top, as the engine
deals them. Round 1 is dealt before the first turn; each later round is dealt just before the last
turn of the round before it, when every hand holds one card (in the dummy variant, the
controller two), so nobody has a choice left to make with it and nobody sees it before the engine
deals it. Replaying the cards of a seed's shuffle (`engine.games.sushi_go.cards.deck` shuffled with the
``deck`` stream) as the outcomes plays that seed's game.

**Observations** are the PettingZoo environment's (`bots.pettingzoo.SushiGoEncoding`): the seat's
`engine.Observation` (its hand, every tableau, scores, puddings) and what it remembers (the cards
it saw in the hands it passed on, the cards of earlier rounds), never a card it has not seen.
The **information state** adds perfect recall: every hand the seat held and every pick revealed,
turn by turn. Before round 1 is dealt the observation tensor is zeros.

The rules are the engine's: the state drives an engine `Game` (through the PettingZoo table),
dealt with `Game.from_deck` and `Game.with_undealt`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pyspiel

from sushigo.bots.openspiel._common import (
    MAX_PLAYERS,
    Core,
    CoreGame,
    CoreState,
    check_params,
    check_player,
    final_returns,
    game_info,
    game_type,
)
from sushigo.engine import CARDS, Action, Card, Game, GameOptions, Observation
from sushigo.engine.games.sushi_go.cards import NUM_KINDS, ROUNDS
from sushigo.engine.games.sushi_go.cards import deck as full_deck

from ._pz_encoding import SushiGoEncoding, action_of
from ._pz_table import SushiGoTable

SHORT_NAME = "python_sushi_go"
PARAMS: dict[str, Any] = {
    "players": 2,
    "pass_both_ways": False,
    "dummy": False,
    "soy_sauce": False,
    "utility": "win",
}


def _game_type(utility: str = "win") -> pyspiel.GameType:
    """The game type with `utility` (the one registered is "win"'s)."""
    return game_type(
        SHORT_NAME,
        "Python Sushi Go!",
        simultaneous=True,
        perfect_information=False,
        info_state_tensor=True,
        spec=PARAMS,
        utility=utility,
    )


GAME_TYPE = _game_type()
_DUMMY_PARTS = 3
"""Per seat and turn in the information state tensor: first card, second card, dummy card."""

Counts = list[int]


def options_of(params: Mapping[str, Any]) -> GameOptions:
    """The engine options of checked parameters."""
    return GameOptions(
        params["players"], params["pass_both_ways"], params["dummy"], params["soy_sauce"]
    )


def _counts(cards: Sequence[Card]) -> Counts:
    out = [0] * NUM_KINDS
    for card in cards:
        out[card] += 1
    return out


def _cards(counts: Counts) -> list[Card]:
    return [card for card in CARDS for _ in range(counts[card])]


def _labels(cards: Sequence[Card]) -> str:
    return " ".join(card.label for card in cards) or "-"


class SushiGoGame(CoreGame):
    """One set-up of Sushi Go! (player count, variants, utility)."""

    def __init__(
        self,
        params: Mapping[str, Any] | None = None,
        root: tuple[Game, Counts | None] | None = None,
    ) -> None:
        checked = check_params(params or {}, PARAMS, SHORT_NAME)
        self.root = root
        """Where `new_initial_state` starts (`rooted_at`); None: before the first deal."""
        self.options = options_of(checked)
        self.utility = checked["utility"]
        self.encoding = SushiGoEncoding(self.options)
        n = self.options.players
        size = self.options.hand_size
        self.turns = ROUNDS * size
        per_seat = NUM_KINDS * (_DUMMY_PARTS if self.options.dummy else 2)
        self.turn_size = NUM_KINDS + n * per_seat
        self.info_size = MAX_PLAYERS + self.turns * self.turn_size
        super().__init__(
            _game_type(self.utility),
            game_info(
                actions=self.encoding.action_size,
                chance_outcomes=NUM_KINDS,
                players=n,
                utility=self.utility,
                # No seat scores 10 a card or more in a round, maki and soy sauce included.
                max_points=ROUNDS * (10 * size + 10) + 6,
                length=self.turns,
            ),
            checked,
        )
        self.params = checked

    def new_state_from(self, game: Game, past: Counts | None = None) -> SushiGoState:
        """A state that plays on from the engine game `game` (say, `Game.from_observation`), whose
        earlier rounds played the cards counted in `past`: its history begins there."""
        if game.options != self.options:
            raise ValueError("the engine game's options differ from this game's")
        state = SushiGoState(self)
        state.core = _GoCore(self, (game, None if past is None else list(past)))
        return state

    def rooted_at(self, game: Game, past: Counts | None = None) -> SushiGoGame:
        """This game, but with `new_initial_state` at the engine game `game` (as
        `new_state_from`): for algorithms that start from a game's initial state, such as the
        turn-based conversion (`pyspiel.convert_to_turn_based`). Not for serialising."""
        return SushiGoGame(self.params, (game, None if past is None else list(past)))


class _GoCore(Core):
    """Everything a state knows (see `_common`): the table once round 1 is dealt, the deal in
    progress, the log of hands and picks for information states, and the moves for pickling."""

    def __init__(self, game: SushiGoGame, origin: tuple[Game, Counts | None] | None) -> None:
        self.game = game
        options = game.options
        self.players = options.players
        self.size = options.hand_size
        self.deal_size = options.tableaus * options.hand_size
        self.origin = origin
        self.moves: list[Any] = []
        self.log: list[tuple[int, int, tuple[tuple[Card, ...], ...], tuple[Action, ...]]] = []
        """Every turn played: (round, turn, each seat's hand, each seat's action)."""
        self.dealt: list[Card] = []
        self.table: SushiGoTable | None = None
        self.start = ""
        if origin is None:
            self.pool = _counts(full_deck(options.soy_sauce))
            """The cards not dealt yet, before the deal in progress."""
            self.dealing = True
        else:
            engine, past = origin
            self.table = SushiGoTable(options)
            self.table.resume(engine.clone(), past)
            self.pool = _counts(engine.undealt())
            self.dealing = self._deal_due()
            self.start = "from: " + describe(engine.observation(None)).replace("\n", " / ")

    copied = ("moves", "log", "dealt", "pool")

    def copy_engine(self, other: _GoCore) -> None:
        if self.table is not None:
            other.table = self.table.copy()

    @classmethod
    def fresh(cls, params: dict[str, Any], origin: Any) -> _GoCore:
        return cls(SushiGoGame(params), origin)

    # -- the game ----------------------------------------------------------------------------

    def _deal_due(self) -> bool:
        """The next round is dealt now: the last turn of a round with rounds to come."""
        table = self.table
        assert table is not None
        game = table.game
        return not game.is_terminal() and game.turn == self.size and game.round < ROUNDS

    def current_player(self) -> int:
        if self.dealing:
            return int(pyspiel.PlayerId.CHANCE)
        assert self.table is not None
        if self.table.is_over():
            return int(pyspiel.PlayerId.TERMINAL)
        return int(pyspiel.PlayerId.SIMULTANEOUS)

    def remaining(self) -> Counts:
        """The cards the deal in progress may still deal, by kind."""
        left = self.pool[:]
        for card in self.dealt:
            left[card] -= 1
        return left

    def chance_outcomes(self) -> list[tuple[int, float]]:
        left = self.remaining()
        total = sum(left)
        return [(card, count / total) for card, count in enumerate(left) if count]

    def deal(self, card: int) -> None:
        """One chance outcome: the next card dealt."""
        if not self.dealing or not 0 <= card < NUM_KINDS or not self.remaining()[card]:
            raise ValueError(f"cannot deal card {card} now")
        self.dealt.append(CARDS[card])
        self.moves.append(card)
        if len(self.dealt) < self.deal_size:
            return
        left = self.remaining()
        order = self.dealt + _cards(left)
        if self.table is None:
            self.table = SushiGoTable(self.game.options)
            self.table.resume(Game.from_deck(self.game.options, order))
        else:
            self.table.redeal(order)
        self.pool = left
        self.dealt = []
        self.dealing = False

    def legal(self, player: int) -> list[int]:
        if self.dealing or self.table is None or self.table.is_over():
            return []
        legal = self.table.game.legal_actions(player)
        indexes: list[int] = self.game.encoding.legal_indexes(legal)[0].tolist()
        return indexes

    def play(self, indexes: Sequence[int]) -> None:
        """One simultaneous step: every seat's action index."""
        table = self.table
        if self.dealing or table is None or table.is_over():
            raise ValueError("no seat acts now")
        engine = table.game
        actions = tuple(action_of(int(i)) for i in indexes)
        hands = tuple(engine.hand(s) for s in range(self.players))
        table.play({s: int(i) for s, i in enumerate(indexes)})
        self.log.append((engine.round, engine.turn, hands, actions))
        self.moves.append(tuple(int(i) for i in indexes))
        self.dealing = self._deal_due()

    def replay(self, move: Any) -> None:
        """A recorded move again (unpickling)."""
        if isinstance(move, tuple):
            self.play(move)
        else:
            self.deal(move)

    def returns(self) -> list[float]:
        table = self.table
        if table is None or not table.is_over():
            return [0.0] * self.players
        engine = table.game
        return final_returns(self.game.utility, self.players, engine.scores(), engine.winners())

    # -- what a seat sees --------------------------------------------------------------------

    def observation(self, player: int) -> Observation | None:
        """`player`'s engine observation (None before round 1 is dealt)."""
        check_player(player, self.players)
        return None if self.table is None else self.table.game.observation(player)

    def tensor(self, player: int, info: bool) -> Any:
        if info:
            return self._info_tensor(player)
        check_player(player, self.players)
        if self.table is None:
            return np.zeros(self.game.encoding.size, np.float32)
        return self.table.observation(player)

    def string(self, player: int, info: bool) -> str:
        obs = self.observation(player)
        if not info:
            return f"seat {player}: dealing round 1" if obs is None else describe(obs)
        lines = [f"seat {player}"]
        if self.start:
            lines.append(self.start)
        for round_, turn, hands, actions in self.log:
            picks = ", ".join(f"p{s} {a.describe()}" for s, a in enumerate(actions))
            lines.append(f"r{round_}t{turn} hand: {_labels(hands[player])} | picks: {picks}")
        if obs is not None and not obs.is_over:
            lines.append(f"r{obs.round}t{obs.turn} hand: {_labels(obs.hand)}")
        return "\n".join(lines)

    def _info_tensor(self, player: int) -> Any:
        check_player(player, self.players)
        game: SushiGoGame = self.game
        out = np.zeros(game.info_size, np.float32)
        out[player] = 1.0
        n = self.players
        per_seat = (game.turn_size - NUM_KINDS) // n

        def block(round_: int, turn: int) -> int:
            return MAX_PLAYERS + ((round_ - 1) * self.size + turn - 1) * game.turn_size

        for round_, turn, hands, actions in self.log:
            at = block(round_, turn)
            for card in hands[player]:
                out[at + card] += 1.0
            for r in range(n):
                first, second, dummy = actions[(player + r) % n]
                base = at + NUM_KINDS + r * per_seat
                out[base + first] = 1.0
                if second is not None:
                    out[base + NUM_KINDS + second] = 1.0
                if dummy is not None:
                    out[base + 2 * NUM_KINDS + dummy] = 1.0
        obs = self.observation(player)
        if obs is not None and not obs.is_over:
            at = block(obs.round, obs.turn)
            for card in obs.hand:
                out[at + card] += 1.0
        return out

    def __str__(self) -> str:
        head = "" if self.table is None else self.table.render()
        if self.dealing:
            round_ = 1 if self.table is None else self.table.game.round + 1
            head += (
                f"dealing round {round_}: {len(self.dealt)} of {self.deal_size} cards: "
                f"{_labels(self.dealt)}\n"
            )
        return head


def describe(obs: Observation) -> str:
    """An engine observation as text: what the seat sees, and nothing else."""
    who = "spectator" if obs.seat is None else f"seat {obs.seat}"
    if obs.is_over:
        lines = [f"{who}, game over"]
    else:
        way = "left" if obs.pass_direction == 1 else "right"
        lines = [f"{who}, round {obs.round}, turn {obs.turn}, passing {way}"]
        if obs.seat is not None:
            lines.append(f"hand: {_labels(obs.hand)}")
        if obs.dummy_controller is not None:
            lines.append(f"dummy controller: p{obs.dummy_controller}")
    for i, view in enumerate(obs.tableaus):
        name = "dummy" if view.is_dummy else f"p{i}"
        extra = " chopsticks" if view.chopsticks_ready else ""
        wasabi = f" on wasabi: {_labels(view.on_wasabi)}" if view.on_wasabi else ""
        lines.append(
            f"{name}: score {view.score} puddings {view.puddings} hand {view.hand_size}{extra}"
            f" | {_labels(view.cards)}{wasabi}"
        )
    return "\n".join(lines)


class SushiGoState(CoreState):
    """A Sushi Go! state (OpenSpiel's API; see the module docstring): chance deals, then every
    seat picks at once (`pyspiel.PlayerId.SIMULTANEOUS`)."""

    def __init__(self, game: SushiGoGame) -> None:
        super().__init__(game)
        self.core = _GoCore(game, game.root)

    def _apply_action(self, action: int) -> None:
        """A chance outcome: the next card dealt."""
        self.core.deal(action)

    def _apply_actions(self, actions: list[int]) -> None:
        """Every seat's pick at once."""
        self.core.play(actions)

    def _action_to_string(self, player: int, action: int) -> str:
        if player == pyspiel.PlayerId.CHANCE:
            return f"deal {CARDS[action].label}"
        return action_of(action).describe()

    def engine_game(self) -> Game | None:
        """The engine game being played (None before round 1 is dealt): every hand in it."""
        return None if self.core.table is None else self.core.table.game


SushiGoGame.state_class = SushiGoState
pyspiel.register_game(GAME_TYPE, SushiGoGame)
