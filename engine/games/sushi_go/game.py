"""The Sushi Go! game: deal, simultaneous picks applied in one step, passing, scoring.

Shaped like an OpenSpiel game (STYLE.md item 8): `legal_actions(seat)`, `apply(actions)` with every
seat's action at once, `is_terminal()`, `returns()`, and per-seat `observation(seat)`. Chance comes
only from the seed, through `engine.rng`, so a game replays from its record.

The state is built for speed: a hand is one packed int of counts (see
`engine.games.sushi_go.legal`), and so is a tableau, with its nigiri points worked out as cards are
placed; everything else is small per-tableau counters. A turn is a few C-level maps over the seats,
with Python code only for the cards that need more than a count (nigiri, wasabi, chopsticks, the
dummy's card). The tableaus in play order, which only observations need, are rebuilt from the
history when one is asked for. `apply` checks every action before it changes anything, so an illegal
action leaves the game exactly as it was.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from itertools import compress
from typing import NoReturn

from sushigo.engine.errors import GameOverError, WrongSeatError
from sushigo.engine.rng import DeterministicRng
from sushigo.engine.rounds import RoundGame

from .actions import Action
from .cards import ROUNDS, WASABI_MULTIPLIER, Card
from .cards import deck as cards_deck
from .events import ChopsticksReturned, Event, GameOver, PicksRevealed, RoundStarted, WasabiUsed
from .legal import (
    CHOPSTICKS_KEY,
    EXACT_MAX_SIZE,
    NIGIRI_CODES,
    NIGIRI_SHIFT,
    NO_ACTIONS,
    ONE_CHOPSTICKS,
    ONE_WASABI,
    LegalSet,
    entry_of,
    exact_set,
    pack,
    presence_sets,
    refusal,
    turn_sets,
    unpack,
)
from .observation import (
    Observation,
    TableauView,
    make_observation,
    make_tableau_view,
    wasabi_placements,
)
from .options import GameOptions
from .scoring import RoundPoints, packed_round, round_breakdown, score_puddings

DECK_STREAM = b"deck"
"""The generator stream (see engine.rng) that shuffles the deck."""

_CHOP = Card.CHOPSTICKS
_WASABI = Card.WASABI
_PUDDING = Card.PUDDING
_PUDDING_SHIFT = Card.PUDDING << 2
_EGG, _SQUID = int(Card.EGG), int(Card.SQUID)
_ONE_WASABI, _ONE_CHOPSTICKS = ONE_WASABI, ONE_CHOPSTICKS
_WASABI_EXTRA = [code * (WASABI_MULTIPLIER - 1) for code in NIGIRI_CODES]
"""What a nigiri on a wasabi adds to its tableau's code beyond its plain points."""

_contains = operator.contains
_tuple_new = tuple.__new__
_BITS = [1 << (card << 2) for card in Card]
"""The packed code of one card of each kind."""
_COUNTED = [bit + code for bit, code in zip(_BITS, NIGIRI_CODES, strict=True)]
"""A card as it is added to a tableau's code: its count, with its plain nigiri points."""
_BIT_DECKS = {soy: [_BITS[card] for card in cards_deck(soy)] for soy in (False, True)}
"""The unshuffled decks of `engine.games.sushi_go.cards.deck`, each card as its packed code."""
_sub = operator.sub
_add = operator.add
_or = operator.or_
_SEATS = [range(n) for n in range(6)]
_ALL_SEATS = [tuple(range(n)) for n in range(6)]
_EVEN = sum(15 << (8 * lane) for lane in range(7))
_LANES = sum(1 << (8 * lane) for lane in range(7))


_KINDS_MASK = (1 << NIGIRI_SHIFT) - 1
_CARD_OF_BIT = {bit: card for card, bit in zip(Card, _BITS, strict=True)}
"""The card of each packed code of one card."""


def _checked_cards(
    cards: Sequence[object], expected: Sequence[Card], what: str, whose: str
) -> list[Card]:
    """`cards` as `Card`s, if they are exactly the cards of `expected` in some order;
    `ValueError` naming `what` and `whose` cards they should be otherwise."""
    try:
        order = [Card(card) for card in cards]  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise ValueError(f"{what} must be cards") from None
    if sorted(order) != sorted(expected):
        raise ValueError(f"{what} must be {len(expected)} cards: those of {whose}, in any order")
    return order


def _size(code: int) -> int:
    """How many cards a packed code holds: its 13 nibbles (a tableau's nigiri points left out)
    summed in 8-bit lanes, then the lanes summed by one multiplication into the top lane (at most
    13 * 15 < 256, so nothing carries)."""
    code &= _KINDS_MASK
    return ((code & _EVEN) + (code >> 4 & _EVEN)) * _LANES >> 48 & 255


class Game(RoundGame[GameOptions, tuple[Action, ...], RoundPoints]):
    """One game of Sushi Go! from a seed and options. Not thread-safe; cheap to copy with `clone`.

    Its tableaus are the seats' and, in the dummy variant, the dummy's (`engine.rounds`)."""

    __slots__ = (
        "_chop",
        "_chop_keys",
        "_controller",
        "_deal_size",
        "_deck",
        "_deck_pos",
        "_discarded",
        "_dummy_pile",
        "_hand_len",
        "_hands",
        "_legal",
        "_open_wasabi",
        "_passes_left",
        "_shown",
        "_soy",
        "_tableaus",
        "_tcodes",
        "_turn",
        "_turns_played",
        "_views",
    )

    options_type = GameOptions

    every_seat_acts = True
    """Every seat acts at every step (`to_act` is every seat) until the game is over, and then
    `legal_actions_by_seat` gives every seat no actions: a runner may loop on the legal sets
    alone (the arena does, a call of `to_act` less a step)."""

    def _begin(self) -> None:
        # The deck holds each card as its packed code, so that a deal is a sum of slices. The
        # shuffle moves items without looking at them: the order is that of the cards themselves.
        cards = _BIT_DECKS[self.options.soy_sauce][:]
        DeterministicRng(self.seed, DECK_STREAM).shuffle(cards)
        self._start(cards)

    def _start(self, cards: list[int]) -> None:
        """Set up the state and deal round 1 from `cards`, the deck (packed codes) in dealing
        order."""
        n = self._n
        t = self.options.tableaus
        self._deck = cards
        self._deck_pos = 0
        self._deal_size = self.options.hand_size
        """`options.hand_size` (a property: a Python call each time it is read)."""
        self._soy = self.options.soy_sauce
        self._hands = [0] * n
        self._hand_len = 0
        self._dummy_pile: list[int] = []
        """Dummy variant: the pile's packed cards, its top last."""
        self._tcodes = [0] * t
        """Each tableau's cards this round, packed like a hand, with its nigiri points this round
        (tripled on wasabi) from `engine.games.sushi_go.legal.NIGIRI_SHIFT` up."""
        self._tableaus: list[list[Card]] = [[] for _ in range(t)]
        """This round's tableaus in play order, as of `_shown` turns of the history."""
        self._shown = 0
        self._open_wasabi = [0] * t
        self._chop = [0] * t
        self._chop_keys = [0] * t
        """`engine.games.sushi_go.legal.CHOPSTICKS_KEY` where `_chop` is non-zero, else 0."""
        self._discarded = 0
        self._turn = 0
        self._turns_played = 0
        self._controller: int | None = None
        self._passes_left = True
        self._views: tuple[TableauView, ...] | None = None
        """The public tableau views of this turn, once built (see `_public_views`)."""
        self._legal: tuple[LegalSet, ...] = ()
        """Each seat's legal set this turn (a tuple: `legal_actions_by_seat` hands it out)."""
        self._start_round()

    @classmethod
    def from_deck(cls, options: GameOptions, cards: Sequence[Card]) -> Game:
        """A game dealt from `cards`, the whole deck in dealing order (round 1's hands seat by
        seat, then its dummy pile, then round 2's ...), instead of from a seed's shuffle: for a
        framework that draws the deal itself (OpenSpiel's chance nodes). The game has no seed.
        `ValueError` unless `cards` holds exactly the cards of `engine.games.sushi_go.cards.deck`."""
        order = _checked_cards(cards, cards_deck(options.soy_sauce), "the deck", "the game's deck")
        game = cls.__new__(cls)
        game._setup(options, b"")
        game._start([_BITS[card] for card in order])
        return game

    @classmethod
    def from_observation(
        cls,
        obs: Observation,
        hands: Sequence[Sequence[Card]],
        deck: Sequence[Card],
        dummy_pile: Sequence[Card] = (),
    ) -> Game:
        """A game for simulation whose public state is `obs`, with hidden parts filled in.

        `hands[s]` is seat s's hand (it must equal `obs.hand` for the observing seat; the dummy's
        controller holds its drawn card), `deck` the undealt cards in the order later rounds deal
        them, `dummy_pile` the dummy's pile from the top. Search bots fill these with a guess
        consistent with what their seat has seen. The result has no seed and no history, and keeps
        only the totals of finished rounds. `ValueError` names any mismatch with `obs`.
        """
        if obs.is_over:
            raise ValueError("the observed game is over")
        options = obs.options
        n = options.players
        views = obs.tableaus
        if len(hands) != n:
            raise ValueError(f"expected {n} hands, got {len(hands)}")
        if obs.seat is not None and sorted(hands[obs.seat]) != list(obs.hand):
            raise ValueError("the observing seat's hand differs from the observation's")
        for s in range(n):
            if len(hands[s]) != views[s].hand_size:
                raise ValueError(f"seat {s} should hold {views[s].hand_size} cards")
        if options.dummy and len(dummy_pile) != views[n].hand_size:
            raise ValueError(f"the dummy pile should hold {views[n].hand_size} cards")
        game = cls.__new__(cls)
        game._setup(options, b"")
        game._deck = [_BITS[card] for card in deck]
        game._deck_pos = 0
        game._deal_size = options.hand_size
        game._soy = options.soy_sauce
        game._hands = [pack(hand) for hand in hands]
        game._controller = obs.dummy_controller
        game._hand_len = views[0 if obs.dummy_controller != 0 else 1].hand_size
        game._dummy_pile = [_BITS[card] for card in dummy_pile][::-1]
        game._tableaus = [list(view.cards) for view in views]
        game._shown = 0
        game._tcodes = [
            pack(tableau) + (points.nigiri << NIGIRI_SHIFT)
            for tableau, points in zip(game._tableaus, round_breakdown(game._tableaus), strict=True)
        ]
        game._open_wasabi = [view.open_wasabi for view in views]
        # At a turn's start every chopsticks card in a tableau was played on an earlier turn.
        game._chop = [tableau.count(_CHOP) for tableau in game._tableaus]
        game._chop_keys = [CHOPSTICKS_KEY if c else 0 for c in game._chop]
        game._puddings = [view.puddings - view.cards.count(_PUDDING) for view in views]
        game._scores = [view.score for view in views]
        game._round = obs.round
        game._turn = obs.turn
        game._turns_played = (obs.round - 1) * options.hand_size + obs.turn - 1
        game._passes_left = obs.pass_direction == 1
        game._views = None
        size = len(deck) + sum(map(len, hands)) + len(dummy_pile)
        size += sum(map(len, game._tableaus)) + sum(game._puddings)
        game._discarded = len(cards_deck(options.soy_sauce)) - size
        game._begin_turn()
        return game

    def clone(self) -> Game:
        """An independent copy of this game (for search: play on without touching this one)."""
        other: Game = self._copy_slots()
        other._deck = self._deck  # never changed once shuffled: dealing only moves _deck_pos
        other._hands = self._hands[:]
        other._dummy_pile = self._dummy_pile[:]
        other._tableaus = [t[:] for t in self._tableaus]
        other._tcodes = self._tcodes[:]
        other._open_wasabi = self._open_wasabi[:]
        other._chop = self._chop[:]
        other._chop_keys = self._chop_keys[:]
        other._puddings = self._puddings[:]
        other._scores = self._scores[:]
        other._round_points = self._round_points[:]
        other._history = self._history[:]
        return other

    def undealt(self) -> tuple[Card, ...]:
        """The cards not dealt yet, in the order later rounds deal them. Hidden information: give
        it to no seat."""
        return tuple(_CARD_OF_BIT[code] for code in self._deck[self._deck_pos :])

    def with_undealt(self, cards: Sequence[Card]) -> Game:
        """A copy of this game whose undealt cards come in the order `cards` (the same cards as
        `undealt()`): the rounds still to deal are dealt from it. What every seat has seen is
        unchanged, so a framework can draw each round's deal when it needs it (OpenSpiel's chance
        nodes), and a search can redraw the future. `ValueError` for any other cards."""
        order = _checked_cards(cards, self.undealt(), "the undealt cards", "undealt()")
        other = self.clone()
        other._deck = self._deck[: self._deck_pos] + [_BITS[card] for card in order]
        return other

    # -- reading the state ------------------------------------------------------------------

    @property
    def turn(self) -> int:
        """The current turn of the round, from 1 to the hand size."""
        return self._turn

    @property
    def position(self) -> tuple[int, int]:
        """(round, turn) of the current step (`engine.api.GameState`)."""
        return (self._round, self._turn)

    def to_act(self) -> tuple[int, ...]:
        """Every seat acts at every turn (`engine.api.GameState`); none once the game is over."""
        return () if self._over else _ALL_SEATS[self._n]

    @property
    def pass_direction(self) -> int:
        """+1 when this round's hands pass left (seat i to i+1), -1 when they pass right."""
        return 1 if self._passes_left else -1

    @property
    def dummy_controller(self) -> int | None:
        """Dummy variant: the seat that chooses the dummy's card this turn; otherwise None."""
        return self._controller

    def legal_actions(self, seat: int) -> tuple[Action, ...]:
        """Every action `seat` may take this turn (empty once the game is over)."""
        if type(seat) is int and 0 <= seat < self._n:
            return self._legal[seat]
        raise self._no_seat(seat)

    def legal_actions_by_seat(self) -> tuple[tuple[Action, ...], ...]:
        """Every seat's `legal_actions` this turn at once, indexed by seat (for runners that ask
        for all of them every turn, as the arena does)."""
        return self._legal

    def hand(self, seat: int) -> tuple[Card, ...]:
        """`seat`'s hand, sorted. Hidden information: give it only to that seat."""
        self._check_seat(seat)
        return unpack(self._hands[seat])

    def puddings(self) -> tuple[int, ...]:
        """Pudding cards kept per tableau, this round's included."""
        return tuple(
            kept + (code >> _PUDDING_SHIFT & 15)
            for kept, code in zip(self._puddings, self._tcodes, strict=True)
        )

    def card_count(self) -> int:
        """Every card the game accounts for: hands, dummy pile, tableaus, kept puddings, discards
        and the undealt deck. Always the deck size (an invariant the tests check)."""
        return (
            sum(
                self._hand_len if s != self._controller else self._hand_len + 1
                for s in range(self._n)
            )
            + len(self._dummy_pile)
            + sum(map(_size, self._tcodes))
            + sum(self._puddings)
            + self._discarded
            + len(self._deck)
            - self._deck_pos
        )

    def observation(self, seat: int | None) -> Observation:
        """What `seat` may see now (None: a spectator, who sees no hand)."""
        if seat is not None and (type(seat) is not int or not 0 <= seat < self._n):
            raise self._no_seat(seat)
        # Positional, in the order of Observation's fields (options, seat, round, turn, hand,
        # tableaus, pass_direction, dummy_controller, is_over), filled through the slots: a
        # server builds one per seat every turn (see
        # `engine.games.sushi_go.observation.positional`).
        return make_observation(
            self.options,
            seat,
            self._round,
            self._turn,
            () if seat is None else unpack(self._hands[seat]),
            self._views or self._public_views(),
            1 if self._passes_left else -1,
            self._controller,
            self._over,
        )

    def _public_views(self) -> tuple[TableauView, ...]:
        """Every tableau as everyone sees it: built once per turn, shared by every observation
        of that turn (they are immutable), and dropped by the next `apply`."""
        views = []
        for i, tableau in enumerate(self._tableau_lists()):
            dummy = i == self._n
            cards = tuple(tableau)
            on, open_wasabi = wasabi_placements(cards)
            if dummy:
                size = len(self._dummy_pile)
            elif i == self._controller:
                size = self._hand_len + 1
            else:
                size = self._hand_len
            # Positional, filled through the slots (see `engine.games.sushi_go.observation.positional`).
            views.append(
                make_tableau_view(
                    cards,
                    on,
                    open_wasabi,
                    self._puddings[i] + cards.count(_PUDDING),
                    self._scores[i],
                    tuple([points[i].total for points in self._round_points]),
                    size,
                    not dummy and self._chop[i] > 0 and not self._over,
                    dummy,
                )
            )
        self._views = tuple(views)
        return self._views

    # -- playing -----------------------------------------------------------------------------

    def apply(self, actions: Sequence[Action]) -> list[Event]:
        """Play one turn: every seat's action at once, indexed by seat.

        Raises a specific `IllegalActionError` (or `GameOverError`) naming the first problem, and
        then changes nothing. Returns the events of the turn: the reveal, wasabi placements,
        chopsticks returned, and at a round's end its scoring, the next deal or the game's end.
        """
        if self._over:
            raise GameOverError("the game is over: no more actions")
        n = self._n
        if len(actions) != n:
            raise WrongSeatError(None, f"expected {n} actions, one per seat, got {len(actions)}")
        # Check everything first: nothing below may raise once the state starts changing. Each
        # action's entry (action, taken, own, special) comes from the one small index of every
        # action (C-level look-ups), and one C-level transpose gives each field for every seat;
        # an action is legal exactly when its interned form is in its seat's legal set (a scan by
        # identity). An action without an entry gives None, which cannot be transposed, and an
        # unhashable one cannot be looked up: both raise TypeError, and only then, or when one is
        # not in its set, do we work out which rule the action breaks. (zip without strict=True:
        # keyword arguments send it down CPython's slow call path; the lengths were checked.)
        try:
            revealed, taken, own, special = zip(*map(entry_of, actions))  # noqa: B905
        except TypeError:
            self._refuse(actions)
        if not all(map(_contains, self._legal, revealed)):
            self._refuse(actions)
        self._views = None
        after = list(map(_sub, self._hands, taken))
        # tuple.__new__ skips the Python-level __new__ of a NamedTuple on this hot path.
        events: list[Event] = [
            _tuple_new(PicksRevealed, (self._round, self._turn, revealed, self._controller))
        ]
        codes = self._tcodes
        placed = list(map(_add, codes, own))
        if len(codes) > n:
            placed.append(codes[n])  # the dummy's: its card, if any, is placed below
        self._tcodes = placed
        # The seats whose actions need more than adding their codes: the special ones, and any
        # plain nigiri played by a seat with a wasabi waiting.
        waiting = self._open_wasabi
        for s in compress(_SEATS[n], map(_or, special, waiting) if any(waiting) else special):
            # The usual special cases inline (a call each costs as much as the rest of a seat's
            # turn): a single wasabi or chopsticks card, and a plain nigiri on a waiting wasabi.
            kind = special[s]
            if kind == _ONE_WASABI:
                waiting[s] += 1
            elif kind == _ONE_CHOPSTICKS:
                self._chop[s] += 1
                self._chop_keys[s] = CHOPSTICKS_KEY
            elif kind:
                self._place_more(s, revealed[s], events)
            elif _EGG <= (card := revealed[s][0]) <= _SQUID:
                waiting[s] -= 1
                placed[s] += _WASABI_EXTRA[card]
                events.append(_tuple_new(WasabiUsed, (s, card)))
        self._history.append(revealed)
        self._turns_played += 1
        size = self._hand_len - 1
        self._hand_len = size
        if size == 0:
            self._hands = after
            self._end_round(events)
            return events
        # Seat i's hand goes to seat i+1 (passing left), or to seat i-1: rotated in place.
        if self._passes_left:
            after.insert(0, after.pop())
        else:
            after.append(after.pop(0))
        self._hands = hands = after
        self._turn += 1
        if self._dummy_pile:
            self._dummy_draw()  # (the dummy variant: its pile runs out only on a round's last turn)
        else:
            # `_begin_turn`, inlined for the common case: every hand's legal set cached, in the
            # exact cache (whose keys are the bare hands while no seat has chopsticks ready) or,
            # for bigger hands, by the kinds each holds.
            keys = self._chop_keys
            if size <= EXACT_MAX_SIZE:
                sets = tuple(map(exact_set, map(_or, hands, keys) if any(keys) else hands))
            else:
                sets = presence_sets(hands, size, keys)
            if None not in sets:
                self._legal = sets  # type: ignore[assignment]  # None was just ruled out
                return events
        self._begin_turn()
        return events

    step = apply
    """`engine.api.GameState.step`: every seat acts at every turn, so a step is `apply`."""

    def _begin_turn(self) -> None:
        """Work out every seat's legal actions for the turn that starts now."""
        self._legal = turn_sets(self._hands, self._hand_len, self._chop_keys, self._controller)

    def _place_more(self, s: int, action: Action, events: list[Event]) -> None:
        """What placing an action needs beyond the code `apply` added: wasabi, chopsticks (a used
        one goes back to the hand), and the dummy's card."""
        first, second, dummy = action
        self._placed(s, first, events)
        if second is not None:
            self._placed(s, second, events)
            self._chop[s] -= 1
            if not self._chop[s]:
                self._chop_keys[s] = 0
            events.append(_tuple_new(ChopsticksReturned, (s,)))
        if dummy is not None:
            n = self._n
            self._tcodes[n] += _COUNTED[dummy]
            self._placed(n, dummy, events)

    def _placed(self, t: int, card: Card, events: list[Event]) -> None:
        """`card` was just counted into tableau `t`'s code, with its plain nigiri points: a nigiri
        goes on the oldest open wasabi, and a wasabi or chopsticks card waits for later."""
        if _EGG <= card <= _SQUID:
            if self._open_wasabi[t]:
                self._open_wasabi[t] -= 1
                self._tcodes[t] += _WASABI_EXTRA[card]
                events.append(_tuple_new(WasabiUsed, (t, card)))
        elif card == _WASABI:
            self._open_wasabi[t] += 1
        elif card == _CHOP:
            self._chop[t] += 1
            self._chop_keys[t] = CHOPSTICKS_KEY

    def _tableau_lists(self) -> list[list[Card]]:
        """This round's tableaus in play order, brought up to date from the history."""
        tableaus = self._tableaus
        history = self._history
        if self._shown < len(history):
            dummy_tableau = tableaus[self._n] if self.options.dummy else None
            for revealed in history[self._shown :]:
                for tableau, (first, second, dummy) in zip(
                    tableaus[: self._n], revealed, strict=True
                ):
                    tableau.append(first)
                    if second is not None:
                        tableau.append(second)
                        tableau.remove(_CHOP)  # the oldest: it was played on an earlier turn
                    if dummy is not None and dummy_tableau is not None:
                        dummy_tableau.append(dummy)
            self._shown = len(history)
        return tableaus

    def _refuse(self, actions: Sequence[object]) -> NoReturn:
        """Raise the specific error for the first action that this turn's legal sets refuse."""
        for s, a in enumerate(actions):
            try:
                if a not in self._legal[s] or entry_of(a) is None:
                    break
            except TypeError:
                break
        else:
            raise AssertionError("_refuse called with legal actions")  # pragma: no cover
        ctrl = self._controller
        raise refusal(
            s, a, self._hands[s], self._chop[s] > 0, self._hand_len + (s == ctrl), s == ctrl
        )

    # -- rounds ------------------------------------------------------------------------------

    def _start_round(self) -> None:
        """Deal the next round: seat 0's hand first, then seat 1's, ..., then the dummy pile."""
        self._round += 1
        self._turn = 1
        self._passes_left = not (self.options.pass_both_ways and self._round == 2)
        size = self._deal_size
        cards = self._deck
        pos = self._deck_pos
        end = pos + self._n * size
        self._hands = [sum(cards[p : p + size]) for p in range(pos, end, size)]
        pos = end
        self._hand_len = size
        if self.options.dummy:
            # The pile's top card is the first one dealt to it; keep it reversed to pop() the top.
            self._dummy_pile = cards[pos : pos + size][::-1]
            pos += size
            self._dummy_draw()
        self._deck_pos = pos
        self._legal = turn_sets(self._hands, size, self._chop_keys, self._controller)

    def _dummy_draw(self) -> None:
        """Dummy variant: control alternates every turn, across rounds too (seat 0 first); the
        controller draws the pile's top card into their hand."""
        ctrl = self._controller = self._turns_played % 2
        self._hands[ctrl] += self._dummy_pile.pop()

    def initial_events(self) -> list[Event]:
        """The event of the first deal, for a log that begins with the game."""
        return [RoundStarted(1, self.options.hand_size, 1)]

    def _end_round(self, events: list[Event]) -> None:
        codes = self._tcodes
        points, totals, kept = packed_round(codes, self._soy)
        self._puddings = list(map(_add, self._puddings, kept))
        t = len(codes)
        # Every card dealt this round is in a tableau now: hand_size for each one.
        self._discarded += self._deal_size * t - sum(kept)
        self._tcodes = [0] * t
        self._open_wasabi = [0] * t
        self._chop = [0] * t
        self._chop_keys = [0] * t
        if any(self._tableaus):  # (built only for observations: the arena never asks)
            for tableau in self._tableaus:
                tableau.clear()
        self._shown = len(self._history)
        self._controller = None
        events.append(self._scored(points, totals))
        if self._round < ROUNDS:
            self._start_round()
            events.append(
                _tuple_new(
                    RoundStarted, (self._round, self._hand_len, 1 if self._passes_left else -1)
                )
            )
            return
        self._pudding_points = tuple(score_puddings(self._puddings))
        self._legal = (NO_ACTIONS,) * self._n
        self._decide(self._pudding_points)
        events.append(
            _tuple_new(
                GameOver, (self._pudding_points, tuple(self._scores), self._places, self._winners)
            )
        )
