"""What a seat can know about hidden cards, from its own observations alone.

Sushi Go! leaks a lot to an attentive player. The hand a seat passes on is its hand minus its pick,
and everyone sees every pick on the next turn (a tableau only grows by that seat's picks, less a
used chopsticks card, which goes back into the hand that is passed). So a seat that remembers each
hand it held can follow every hand around the table: after n turns of an n-player round it knows
every hand exactly. Earlier rounds' cards are public too, but the observation only shows this
round's tableaus, so they must be remembered when the round ends.

`SeatMemory` does that bookkeeping and nothing else. It reads observations only, never a `Game`:
the hands it tracks are deductions, and `sample` fills what it cannot deduce at random from the
unseen cards (a determinization, for search).
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from sushigo.engine import Card, Observation
from sushigo.engine.games.sushi_go.cards import CARDS, NUM_KINDS, deck

Counts = list[int]
"""Cards as a count per kind, indexed by `Card` value."""

_PUDDING = int(Card.PUDDING)


def counts_of(cards: tuple[Card, ...] | list[Card]) -> Counts:
    """The per-kind counts of some cards."""
    out = [0] * NUM_KINDS
    for card in cards:
        out[card] += 1
    return out


@dataclass(slots=True)
class HandKnowledge:
    """One seat's hand as this seat knows it: some cards for sure, plus `unknown` others."""

    known: Counts = field(default_factory=lambda: [0] * NUM_KINDS)
    unknown: int = 0

    def copy(self) -> HandKnowledge:
        """An independent copy."""
        return HandKnowledge(list(self.known), self.unknown)

    def remove(self, card: int) -> bool:
        """Take `card` out (a pick). False when that is impossible: the tracking went wrong."""
        if self.known[card]:
            self.known[card] -= 1
        elif self.unknown:
            self.unknown -= 1
        else:
            return False
        return True


class SeatMemory:
    """Card tracking for one seat over one game; call `observe` with every observation in order.

    Missed turns are allowed (a reconnecting network bot): the memory then forgets what it can no
    longer follow and carries on with less knowledge, never with wrong knowledge.
    """

    __slots__ = ("_hands", "_last", "_past_dealt", "_past_known", "_total")

    def __init__(self) -> None:
        self._last: Observation | None = None
        self._hands: list[HandKnowledge] = []
        self._past_known: Counts = [0] * NUM_KINDS
        self._past_dealt = 0
        self._total: Counts = [0] * NUM_KINDS

    def reset(self) -> None:
        """Forget the game."""
        self.__init__()  # type: ignore[misc]

    @property
    def last(self) -> Observation | None:
        """The latest observation."""
        return self._last

    @property
    def hands(self) -> tuple[HandKnowledge, ...]:
        """What is known of every seat's hand now (this seat's own is fully known)."""
        return tuple(self._hands)

    @property
    def past_known(self) -> Counts:
        """Cards known to have been played in earlier rounds (puddings included)."""
        return list(self._past_known)

    def observe(self, obs: Observation) -> None:
        """Take in the seat's observation of the current turn."""
        if obs.seat is None:
            raise ValueError("a spectator's observation has no seat to remember for")
        last = self._last
        if last is not None and (
            last.options != obs.options
            or last.seat != obs.seat
            or (obs.round, obs.turn) < (last.round, last.turn)
        ):
            # Time went backwards: this is another game (reset() was not called).
            self.reset()
            last = None
        if last is None:
            self._total = counts_of(deck(obs.options.soy_sauce))
            self._past_dealt = (obs.round - 1) * _dealt_per_round(obs)
            self._fresh_hands(obs)
        elif (obs.round, obs.turn) == (last.round, last.turn):
            pass  # the same turn again: nothing new
        elif obs.round == last.round and obs.turn == last.turn + 1:
            self._advance(last, obs)
        elif obs.round == last.round:
            self._fresh_hands(obs)  # missed turns: the hands cannot be followed any more
        else:
            self._close_round(last)
            self._past_dealt = (obs.round - 1) * _dealt_per_round(obs)
            self._fresh_hands(obs)
        self._settle(obs)
        self._last = obs

    # -- bookkeeping -------------------------------------------------------------------------

    def _fresh_hands(self, obs: Observation) -> None:
        self._hands = [HandKnowledge() for _ in range(obs.players)]

    def _advance(self, last: Observation, obs: Observation) -> None:
        """One turn passed: remove every seat's picks from the hand it held, then pass the hands."""
        n = last.players
        hands = self._hands
        hands[last.seat] = HandKnowledge(counts_of(last.hand), 0)  # type: ignore[index]
        ok = [True] * n
        for s in range(n):
            before, after = last.tableaus[s].cards, obs.tableaus[s].cards
            # A tableau grows by the seat's picks less a used chopsticks card, and that card goes
            # back into the hand: so the hand changes by exactly minus the tableau's change.
            delta = counts_of(after)
            for card in before:
                delta[card] -= 1
            for card in CARDS:
                d = delta[card]
                while d > 0 and ok[s]:
                    ok[s] = hands[s].remove(card)
                    d -= 1
                if d < 0:
                    hands[s].known[card] -= d
        if obs.options.dummy and last.dummy_controller is not None:
            c = last.dummy_controller
            before, after = last.tableaus[n].cards, obs.tableaus[n].cards
            for card in after[len(before) :]:
                ok[c] = ok[c] and hands[c].remove(card)
        d = last.pass_direction
        moved = [hands[(s - d) % n] for s in range(n)]
        ok = [ok[(s - d) % n] for s in range(n)]
        self._hands = [h if good else HandKnowledge() for h, good in zip(moved, ok, strict=True)]
        if obs.dummy_controller is not None:
            # The new controller drew the dummy pile's face-down top card.
            self._hands[obs.dummy_controller].unknown += 1

    def _close_round(self, last: Observation) -> None:
        """A round ended: every card of its tableaus and of the hands then is gone for good."""
        past = self._past_known
        for view in last.tableaus:
            for card in view.cards:
                past[card] += 1
        hands = self._hands
        hands[last.seat] = HandKnowledge(counts_of(last.hand), 0)  # type: ignore[index]
        for hand in hands:
            for card in CARDS:
                past[card] += hand.known[card]

    def _settle(self, obs: Observation) -> None:
        """Make the tracked hands agree with what the observation shows for sure."""
        me = obs.seat
        assert me is not None
        for s, hand in enumerate(self._hands):
            if s == me:
                self._hands[s] = HandKnowledge(counts_of(obs.hand), 0)
                continue
            size = obs.tableaus[s].hand_size
            known = sum(hand.known)
            if known > size or min(hand.known) < 0:
                hand = self._hands[s] = HandKnowledge()
                known = 0
            hand.unknown = size - known

    # -- what is unseen ----------------------------------------------------------------------

    def unseen(self) -> Counts:
        """Cards this seat has not located: the full deck less everything it saw or deduced.

        They are somewhere among the other hands' unknown cards, the dummy pile, the undealt deck
        and the earlier rounds' cards it could not identify.
        """
        obs = self._last
        if obs is None:
            raise ValueError("nothing observed yet")
        seen = list(self._past_known)
        for view in obs.tableaus:
            for card in view.cards:
                seen[card] += 1
        # Puddings kept from earlier rounds are public; count those not already remembered.
        kept = sum(view.puddings - view.cards.count(Card.PUDDING) for view in obs.tableaus)
        seen[_PUDDING] += max(0, kept - self._past_known[_PUDDING])
        for hand in self._hands:
            for card in CARDS:
                seen[card] += hand.known[card]
        return [max(0, total - n) for total, n in zip(self._total, seen, strict=True)]

    def undealt(self) -> int:
        """Cards not yet dealt: what is left of the deck for later rounds."""
        obs = self._last
        if obs is None:
            raise ValueError("nothing observed yet")
        return sum(self._total) - obs.round * _dealt_per_round(obs)

    def sample(self, rng: random.Random) -> tuple[list[list[Card]], list[Card], list[Card]]:
        """A determinization: every hand, the undealt deck and the dummy pile (top first), with the
        known cards where they are and the unseen ones dealt at random where they could be."""
        obs = self._last
        if obs is None:
            raise ValueError("nothing observed yet")
        pool = [card for card in CARDS for _ in range(self.unseen()[card])]
        _fisher_yates(pool, rng)
        need = sum(hand.unknown for hand in self._hands) + self.undealt()
        if obs.options.dummy:
            need += obs.tableaus[obs.players].hand_size
        if len(pool) < need:
            # Only after inconsistent input (a bug, or an observation out of order): pad with
            # plausible cards rather than fail in the middle of a game.
            full = deck(obs.options.soy_sauce)
            pool += [full[rng.randrange(len(full))] for _ in range(need - len(pool))]
        pos = 0
        hands: list[list[Card]] = []
        for hand in self._hands:
            cards = [card for card in CARDS for _ in range(hand.known[card])]
            cards += pool[pos : pos + hand.unknown]
            pos += hand.unknown
            hands.append(cards)
        pile: list[Card] = []
        if obs.options.dummy:
            size = obs.tableaus[obs.players].hand_size
            pile = pool[pos : pos + size]
            pos += size
        rest = pool[pos : pos + self.undealt()]
        return hands, rest, pile


def _dealt_per_round(obs: Observation) -> int:
    return obs.options.hand_size * obs.options.tableaus


def _fisher_yates(items: list[Card], rng: random.Random) -> None:
    """Shuffle with the caller's generator (the engine's rng is for deals, and is slower)."""
    for i in range(len(items) - 1, 0, -1):
        j = int(rng.random() * (i + 1))
        items[i], items[j] = items[j], items[i]
