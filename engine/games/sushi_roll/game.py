"""The Sushi Roll game: belts, sequential turns, slides, rounds and scoring.

Shaped like the card game (`engine.games.sushi_go.game.Game`) and OpenSpiel (STYLE.md item 8), but
sequential: `legal_actions(seat)` is empty except for the seat to move, and `apply(seat, action)`
plays one action of that seat. A turn is any number of re-rolls and swaps, then one take, which ends
it.

Chance comes only from the seed, through `engine.rng.DeterministicRng`, in this exact order (also
in docs/RULES.md, "Sushi Roll", "Where every roll comes from"), so anyone with the seed and the
record can re-derive every die:

1. **Red belt.** When the game is created, the seat holding the red belt is ``below(players)``,
   the first draw of stream ``roll/belts``.
2. **Bag.** At the start of round r (1, 2, 3) the bag holds all 30 dice in `dice.BAG_ORDER` (10
   appetizer, 6 maki, 5 nigiri, 5 specials, 4 pudding) and is shuffled (`DeterministicRng.shuffle`,
   Fisher-Yates) with stream ``roll/bag/<r>`` (the round as a decimal digit, e.g. ``roll/bag/1``).
   Starting with the red-belt holder and going left (seat i, i + 1, ...), each seat takes the next
   `dice per player` dice from the front of the shuffled bag onto its belt, position 0 first.
3. **Faces.** Every roll of every die in the game draws ``below(6)`` from one stream,
   ``roll/faces``, which continues across turns and rounds; the die shows
   ``DIE_FACES[kind][draw]``. Dice are rolled in this order:
   - at a round's start, seat by seat from the red-belt holder going left, each belt from
     position 0 up (so the first draws are the red-belt holder's dice);
   - on a re-roll, the chosen positions in increasing order;
   - after belts slide, seat by seat from the seat now holding the red belt going left, each belt
     from position 0 up.
   Swaps and takes draw nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import add
from typing import Literal, NoReturn

from sushigo.engine.errors import GameOverError, MalformedActionError, WrongSeatError
from sushigo.engine.rounds import RoundGame

from ._checks import check_reroll, check_swap, check_take
from .actions import Reroll, RollAction, Swap, Take
from .chance import RollChance, SeededChance
from .dice import (
    BAG_ORDER,
    CHOPSTICKS_SUPPLY,
    CHOPSTICKS_TOKENS,
    DIE_FACES,
    MENU_SUPPLY,
    MENU_TOKENS,
    NIGIRI_POINTS,
    PUDDING_TOKENS,
    ROUNDS,
    START_CHOPSTICKS,
    START_MENU,
    Die,
    DieKind,
    Face,
)
from .errors import AlreadyTakenError, NotYourTurnError
from .events import (
    BeltsSlid,
    DiceRolled,
    GameOver,
    Rerolled,
    RollEvent,
    RoundStarted,
    Swapped,
    Taken,
)
from .observation import PlayerView, RollObservation, legal_actions
from .options import RollOptions
from .scoring import RoundPoints, round_breakdown, score_puddings, token_bonus
from .turns import (
    NEXT_SEAT,
    SLIDE,
    after_take,
    deal,
    slide,
    slides_between_rounds,
    tokens_gained,
)

_WASABI = Face.WASABI


class RollGame(RoundGame[RollOptions, tuple[int, RollAction], RoundPoints]):
    """One game of Sushi Roll from options and a seed. Not thread-safe; cheap to `clone`.

    Its history holds each action with the seat that took it; its tableaus are the seats'
    trays (`engine.rounds`)."""

    __slots__ = (
        "_bag",
        "_belts",
        "_chance",
        "_chop",
        "_cycle",
        "_fresh_chop",
        "_fresh_menu",
        "_initial",
        "_legal",
        "_menu",
        "_moved",
        "_on_wasabi",
        "_open_wasabi",
        "_red",
        "_round_totals",
        "_to_move",
        "_token_bonus",
        "_trays",
    )

    options_type = RollOptions

    def _begin(self) -> None:
        self._chance: RollChance = SeededChance(self.seed)
        self._start()

    @classmethod
    def with_chance(cls, options: RollOptions, chance: RollChance) -> RollGame:
        """A game whose red belt, bags and rolls all come from `chance` rather than a seed (the
        game has none): for a framework that draws them itself, such as OpenSpiel."""
        game = cls.__new__(cls)
        game._setup(options, b"")
        game._chance = chance
        game._start()
        return game

    def _start(self) -> None:
        """Set up the state and start round 1, drawing from `_chance`."""
        n = self._n
        self._red = self._chance.red_belt(n)
        self._belts: list[list[Die]] = [[] for _ in range(n)]
        """Indexed by the seat holding the belt: the dice on it, in position order."""
        self._trays: list[list[Die]] = [[] for _ in range(n)]
        self._on_wasabi: list[list[int]] = [[] for _ in range(n)]
        """Per tray, the indices of the nigiri that lie on a wasabi."""
        self._open_wasabi = [0] * n
        self._menu = [START_MENU] * n
        self._chop = [START_CHOPSTICKS] * n
        self._fresh_menu = [0] * n
        self._fresh_chop = [0] * n
        self._round_totals: list[tuple[int, ...]] = []
        self._token_bonus: tuple[int, ...] = ()
        self._bag: list[DieKind] = []
        """The dice still in the bag this round, in shuffled order (never shown)."""
        self._cycle = 0
        self._to_move = self._red
        self._moved = 0
        """Seats that have taken their die in this cycle."""
        self._legal: tuple[RollAction, ...] | None = None
        self._initial: list[RollEvent] = []
        self._start_round(self._initial)

    @classmethod
    def from_observation(cls, obs: RollObservation, seed: bytes) -> RollGame:
        """A game whose state is `obs`, with future bag shuffles and rolls drawn from `seed`.

        Nothing in Sushi Roll is hidden except the future, so this is exact: a search bot can play
        on from here with a seed of its own. The result has no history and keeps only the totals of
        finished rounds (`round_points()` is empty). `ValueError` if the game is over or the
        observation shows more dice of a kind than the game has.
        """
        if obs.is_over:
            raise ValueError("the observed game is over")
        game = cls.__new__(cls)
        game._setup(obs.options, seed)
        n = game._n
        views = obs.players
        game._chance = SeededChance(seed)
        game._red = obs.red_belt
        game._belts = [list(v.belt) for v in views]
        game._trays = [list(v.tray) for v in views]
        game._on_wasabi = [list(v.on_wasabi) for v in views]
        game._open_wasabi = [v.open_wasabi for v in views]
        game._menu = [v.menu for v in views]
        game._chop = [v.chopsticks for v in views]
        game._fresh_menu = [v.fresh_menu for v in views]
        game._fresh_chop = [v.fresh_chopsticks for v in views]
        game._puddings = [v.puddings for v in views]
        game._scores = [v.score for v in views]
        game._round_totals = [
            tuple(v.round_scores[r] for v in views) for r in range(len(views[0].round_scores))
        ]
        game._token_bonus = ()
        out = list(BAG_ORDER)
        for v in views:
            for die in (*v.belt, *v.tray):
                if die.kind not in out:
                    raise ValueError(f"more {die.kind.label} dice than the game has")
                out.remove(die.kind)
        game._bag = out
        game._round = obs.round
        game._cycle = obs.cycle
        assert obs.to_move is not None
        game._to_move = obs.to_move
        game._moved = (obs.to_move - obs.red_belt) % n
        game._legal = None
        game._initial = []
        return game

    def clone(self, chance: RollChance | None = None) -> RollGame:
        """An independent copy (for search): same state, same future rolls; or, given `chance`,
        the copy's future draws come from that source instead."""
        other: RollGame = self._copy_slots()
        for name in other._all_slots:
            value = getattr(other, name)
            if isinstance(value, list):
                setattr(other, name, [v[:] if isinstance(v, list) else v for v in value])
        other._chance = self._chance.clone() if chance is None else chance
        return other

    # -- reading the state ------------------------------------------------------------------

    @property
    def cycle(self) -> int:
        """The current cycle of the round: 1 up to the dice per player."""
        return self._cycle

    @property
    def to_move(self) -> int | None:
        """The seat whose turn it is; None once the game is over."""
        return None if self._over else self._to_move

    @property
    def position(self) -> tuple[int, int]:
        """(round, cycle) of the current step (`engine.api.GameState`): every action of a mover's
        turn shares it."""
        return (self._round, self._cycle)

    def to_act(self) -> tuple[int, ...]:
        """The seat to move (`engine.api.GameState`); none once the game is over."""
        return () if self._over else (self._to_move,)

    def step(self, actions: Sequence[RollAction]) -> list[RollEvent]:
        """`engine.api.GameState.step`: the one action of the seat to move (see `apply`)."""
        if len(actions) != 1:
            raise WrongSeatError(None, f"one action (the mover's) per step, not {len(actions)}")
        return self.apply(self._to_move, actions[0])

    @property
    def red_belt(self) -> int:
        """The seat holding the red belt."""
        return self._red

    def initial_events(self) -> list[RollEvent]:
        """The events of the game's setup: round 1 drawn and rolled."""
        return list(self._initial)

    def belts(self) -> tuple[tuple[Die, ...], ...]:
        """The dice on each seat's belt, indexed by the seat holding it."""
        return tuple(map(tuple, self._belts))

    def trays(self) -> tuple[tuple[Die, ...], ...]:
        """Each seat's tray this round, in the order the dice were taken."""
        return tuple(map(tuple, self._trays))

    def bag_kinds(self) -> tuple[DieKind, ...]:
        """The kinds of the dice left in the bag, sorted (never their drawing order)."""
        return tuple(sorted(self._bag))

    def tokens(self) -> tuple[tuple[int, int], ...]:
        """Each seat's (menu, chopsticks) tokens, fresh ones included."""
        return tuple(zip(self._menu, self._chop, strict=True))

    def puddings(self) -> tuple[int, ...]:
        """Each seat's pudding tokens."""
        return tuple(self._puddings)

    def token_bonus(self) -> tuple[int, ...]:
        """End-of-game points for unused tokens per seat (empty until the game is over)."""
        return self._token_bonus

    def legal_actions(self, seat: int) -> tuple[RollAction, ...]:
        """Every action `seat` may take now: empty unless it is that seat's turn."""
        self._check_seat(seat)
        if self._over or seat != self._to_move:
            return ()
        if self._legal is None:
            self._legal = legal_actions(
                seat,
                self._belts,
                self._menu[seat] - self._fresh_menu[seat],
                self._chop[seat] - self._fresh_chop[seat],
            )
        return self._legal

    def observation(self, seat: int | None) -> RollObservation:
        """What `seat` sees now (None: a spectator). The same for every seat but `seat`."""
        if seat is not None:
            self._check_seat(seat)
        n = self._n
        moved = {(self._red + i) % n for i in range(self._moved)}
        views = tuple(
            PlayerView(
                belt=tuple(self._belts[s]),
                has_red_belt=s == self._red,
                tray=tuple(self._trays[s]),
                on_wasabi=tuple(self._on_wasabi[s]),
                open_wasabi=self._open_wasabi[s],
                menu=self._menu[s],
                chopsticks=self._chop[s],
                fresh_menu=self._fresh_menu[s],
                fresh_chopsticks=self._fresh_chop[s],
                puddings=self._puddings[s],
                score=self._scores[s],
                round_scores=tuple(totals[s] for totals in self._round_totals),
                taken_this_cycle=s in moved,
            )
            for s in range(n)
        )
        return RollObservation(
            options=self.options,
            seat=seat,
            round=self._round,
            cycle=self._cycle,
            to_move=self.to_move,
            red_belt=self._red,
            players=views,
            bag=len(self._bag),
            menu_supply=MENU_SUPPLY - sum(self._menu),
            chopsticks_supply=CHOPSTICKS_SUPPLY - sum(self._chop),
            is_over=self._over,
            pudding_points=self._pudding_points,
            token_bonus=self._token_bonus,
        )

    # -- playing -----------------------------------------------------------------------------

    def apply(self, seat: int, action: RollAction) -> list[RollEvent]:
        """Play one action of `seat`, the seat to move; returns what happened.

        Raises a specific error naming the problem (`GameOverError`, `WrongSeatError`,
        `NotYourTurnError` / `AlreadyTakenError`, `MalformedActionError`, `NoTokenError`,
        `BadPositionError`, `BadTargetError`) and then changes nothing: every check comes before
        the first change.
        """
        if self._over:
            raise GameOverError("the game is over: no more actions")
        self._check_seat(seat)
        if seat != self._to_move:
            self._refuse_turn(seat)
        kind = type(action)
        events: list[RollEvent] = []
        if kind is Take:
            assert isinstance(action, Take)
            position = check_take(seat, action, self._belts)
            self._history.append((seat, action))
            self._take(seat, position, events)
        elif kind is Reroll:
            assert isinstance(action, Reroll)
            positions = check_reroll(
                seat, action, self._belts, self._menu[seat] - self._fresh_menu[seat]
            )
            self._history.append((seat, action))
            self._menu[seat] -= 1
            belt = self._belts[seat]
            for p in positions:
                belt[p] = self._roll(belt[p].kind)
            events.append(Rerolled(seat, positions, tuple(belt[p] for p in positions)))
        elif kind is Swap:
            assert isinstance(action, Swap)
            mine, other, theirs = check_swap(
                seat, action, self._belts, self._chop[seat] - self._fresh_chop[seat]
            )
            self._history.append((seat, action))
            self._chop[seat] -= 1
            a, b = self._belts[seat], self._belts[other]
            a[mine], b[theirs] = b[theirs], a[mine]
            events.append(Swapped(seat, mine, other, theirs, a[mine], b[theirs]))
        else:
            raise MalformedActionError(
                seat, f"expected a Reroll, Swap or Take, got {type(action).__name__}"
            )
        self._legal = None
        return events

    def _refuse_turn(self, seat: int) -> NoReturn:
        n = self._n
        if seat in {(self._red + i) % n for i in range(self._moved)}:
            raise AlreadyTakenError(
                seat,
                f"already took a die this cycle; it is seat {self._to_move}'s turn",
            )
        raise NotYourTurnError(seat, f"not this seat's turn; it is seat {self._to_move}'s turn")

    def _roll(self, kind: DieKind) -> Die:
        return Die(kind, self._chance.roll(kind))

    def _take(self, seat: int, position: int, events: list[RollEvent]) -> None:
        die = self._belts[seat].pop(position)
        tray = self._trays[seat]
        tray.append(die)
        face = die.face
        on_wasabi = False
        if face in NIGIRI_POINTS and self._open_wasabi[seat]:
            # Which uncovered wasabi it covers cannot change a score; the index is display only.
            self._open_wasabi[seat] -= 1
            self._on_wasabi[seat].append(len(tray) - 1)
            on_wasabi = True
        elif face == _WASABI:
            self._open_wasabi[seat] += 1
        puddings = PUDDING_TOKENS.get(face, 0)
        self._puddings[seat] += puddings
        menu = tokens_gained(MENU_TOKENS.get(face, 0), MENU_SUPPLY - sum(self._menu))
        chop = tokens_gained(CHOPSTICKS_TOKENS.get(face, 0), CHOPSTICKS_SUPPLY - sum(self._chop))
        self._menu[seat] += menu
        self._chop[seat] += chop
        self._fresh_menu[seat] += menu
        self._fresh_chop[seat] += chop
        events.append(Taken(seat, position, die, on_wasabi, puddings, menu, chop))
        self._moved += 1
        after = after_take(self._moved, self._n, self._belts[0])
        if after == NEXT_SEAT:
            self._begin_turn((seat + 1) % self._n)
        elif after == SLIDE:
            self._slide(events, between_rounds=False)
            self._roll_belts("slide", events)
            self._cycle += 1
            self._moved = 0
            self._begin_turn(self._red)
        else:
            self._end_round(events)

    def _begin_turn(self, seat: int) -> None:
        """`seat` moves next: tokens it gained on its last take become usable now."""
        self._to_move = seat
        self._fresh_menu[seat] = 0
        self._fresh_chop[seat] = 0

    def _slide(self, events: list[RollEvent], *, between_rounds: bool) -> None:
        """Every belt goes to the seat on the left: seat i's to seat i + 1."""
        self._belts, self._red = slide(self._belts, self._red)
        events.append(BeltsSlid(self._red, between_rounds))

    def _roll_belts(self, cause: Literal["round", "slide"], events: list[RollEvent]) -> None:
        """Roll every belt, seat by seat from the red-belt holder, each from position 0 up."""
        n = self._n
        for i in range(n):
            s = (self._red + i) % n
            belt = self._belts[s] = [self._roll(die.kind) for die in self._belts[s]]
            events.append(DiceRolled(s, tuple(belt), cause))

    # -- rounds ------------------------------------------------------------------------------

    def _start_round(self, events: list[RollEvent]) -> None:
        """Return every die to the bag, shuffle it, draw from the red-belt holder on, roll."""
        self._round += 1
        self._cycle = 1
        self._moved = 0
        bag = list(BAG_ORDER)
        k = self.options.dice_per_player
        n = self._n
        self._chance.draw(self._round, bag, n * k)
        # Placeholder faces: `_roll_belts` rolls every drawn die before anyone sees it.
        self._belts = [
            [Die(kind, DIE_FACES[kind][0]) for kind in belt] for belt in deal(bag, n, k, self._red)
        ]
        self._bag = bag[n * k :]
        events.append(RoundStarted(self._round, self._red, k))
        self._roll_belts("round", events)
        self._begin_turn(self._red)

    def _end_round(self, events: list[RollEvent]) -> None:
        points = tuple(round_breakdown([[die.face for die in tray] for tray in self._trays]))
        for s in range(self._n):
            self._trays[s].clear()
            self._on_wasabi[s].clear()
            self._open_wasabi[s] = 0
        self._bag = list(BAG_ORDER)  # every die goes back into the bag
        self._round_totals.append(totals := tuple(p.total for p in points))
        events.append(self._scored(points, totals))
        if self._round < ROUNDS:
            if slides_between_rounds(self._n):
                self._slide(events, between_rounds=True)
            self._start_round(events)
            return
        self._pudding_points = tuple(score_puddings(self._puddings))
        self._token_bonus = tuple(
            token_bonus(m, c) for m, c in zip(self._menu, self._chop, strict=True)
        )
        self._fresh_menu = [0] * self._n
        self._fresh_chop = [0] * self._n
        self._decide(map(add, self._pudding_points, self._token_bonus))
        events.append(
            GameOver(
                self._pudding_points,
                self._token_bonus,
                tuple(self._scores),
                self._places,
                self._winners,
            )
        )

    def dice_count(self) -> int:
        """Dice in the bag, on belts and on trays: always 30 (an invariant the tests check).

        Trays keep their dice until the round is scored; then every die is back in the bag."""
        return len(self._bag) + sum(map(len, self._belts)) + sum(map(len, self._trays))
