"""Sushi Roll in the terminal client: the keys' state machine for one turn, and the log's words.

A turn is any number of re-rolls (a menu token each) and swaps (a chopsticks token each), then a
take. The keys choose among them in two modes:

- ``choose``: the cursor walks our belt (←→, 1-8); space marks dice for a re-roll, ``r`` re-rolls
  the marked dice, ``s`` starts a swap with the die under the cursor, Enter takes that die.
- ``swap``: our die is chosen; ↑↓ pick another seat's belt and ←→ (1-8) a die on it, Enter swaps
  the two, Esc (or ``s`` again) goes back to choosing.

Every (mode, key) pair is in one table, `TRANSITIONS`; a pair that is not there is refused with a
message saying what the key does in the other mode. A key that asks to play returns the action,
already checked against the observation's legal actions; sending it is the caller's (`ops`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from prompt_toolkit.formatted_text import StyleAndTextTuples

from sushigo.engine.games.sushi_roll import (
    BeltsSlid,
    DiceRolled,
    Die,
    PlayerView,
    Reroll,
    Rerolled,
    RollAction,
    RollEvent,
    RollObservation,
    Swap,
    Swapped,
    Take,
    Taken,
)
from sushigo.engine.games.sushi_roll import RoundStarted as RollRoundStarted

from .dice import FACE_NAMES, FACE_SHORT, die_style

__all__ = ["TRANSITIONS", "DiceChoice", "Intent", "Mode", "Outcome", "update_lines"]

Fragments = StyleAndTextTuples

Mode = Literal["choose", "swap"]
"""What the keys are choosing: our die (to take, mark or swap), or the die to swap it with."""

Intent = Literal[
    "left", "right", "up", "down", "digit", "mark", "reroll", "swap", "enter", "cancel"
]
"""What a key asks for (the bindings map keys to these)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a key did: the status line's text, and an action to send when it asked to play."""

    text: str
    error: bool = False
    action: RollAction | None = None


@dataclass(frozen=True, slots=True)
class Table:
    """What the keys see of the game: the observation and whether we may act now."""

    obs: RollObservation
    moving: bool
    """It is our move."""
    pending: RollAction | None
    """Our action the server has not answered yet."""
    name_of: Callable[[int], str]
    """A seat's name for messages ("you", a player's name)."""

    @property
    def me(self) -> PlayerView | None:
        seat = self.obs.seat
        return None if seat is None else self.obs.players[seat]

    @property
    def belt(self) -> tuple[Die, ...]:
        me = self.me
        return () if me is None else me.belt

    def others(self) -> list[int]:
        """The other seats whose belts hold dice, going left from ours."""
        seat = self.obs.seat or 0
        n = self.obs.player_count
        order = [(seat + i) % n for i in range(1, n)]
        return [s for s in order if self.obs.players[s].belt]

    def cannot_act(self) -> str:
        """Why no action can be sent now ("" when one can)."""
        obs = self.obs
        if obs.is_over:
            return "the game is over"
        if obs.seat is None:
            return "you are watching: spectators do not roll"
        if self.pending is not None:
            return f"waiting for the server to answer your {self.pending.describe()}"
        if not self.moving:
            mover = obs.to_move
            return f"not your move: {self.name_of(mover)} is moving" if mover is not None else ""
        return ""

    def cannot_choose(self, doing: str) -> str:
        """Why no die of our belt can be chosen now for `doing` ("" when one can): we are
        watching, or our belt is empty."""
        me = self.me
        if me is None:
            return f"you are watching: spectators do not {doing}"
        return "" if me.belt else "your belt is empty"

    def cannot_spend(self, token: Literal["menu", "chopsticks"]) -> str:
        """Why an action spending a `token` cannot be sent now ("" when it can): no action can
        be, or we have no usable one (none, or only fresh ones: usable from our next turn)."""
        why = self.cannot_act()
        if why:
            return why
        me = self.me
        assert me is not None
        if token == "menu":
            usable, fresh = me.usable_menu, me.fresh_menu
        else:
            usable, fresh = me.usable_chopsticks, me.fresh_chopsticks
        return "" if usable else _no_token(me, token, fresh)


@dataclass(slots=True)
class DiceChoice:
    """The choice in progress on our belt: the cursor, the marks, the swap."""

    cursor: int = 0
    """The die under the cursor on our belt."""
    marked: list[int] = field(default_factory=list)
    """Positions on our belt marked for a re-roll (kept sorted)."""
    swap_from: int | None = None
    """Swapping: our die to give away (None: not swapping)."""
    swap_seat: int | None = None
    """Swapping: the seat whose belt holds the die we would receive."""
    swap_cursor: int = 0
    """Swapping: that die's position on its belt."""

    @property
    def mode(self) -> Mode:
        return "swap" if self.swap_from is not None else "choose"

    def reset(self) -> None:
        """Forget the choice (a new turn, or our belt changed under it)."""
        self.cursor = 0
        self.marked.clear()
        self.swap_from = self.swap_seat = None
        self.swap_cursor = 0

    def fit(self, obs: RollObservation) -> None:
        """Keep the choice within the belts as they are now."""
        me = obs.players[obs.seat] if obs.seat is not None else None
        size = len(me.belt) if me is not None else 0
        self.cursor = min(self.cursor, max(0, size - 1))
        self.marked = [i for i in self.marked if i < size]
        if self.swap_from is not None and (self.swap_from >= size or self.swap_seat is None):
            self.swap_from = self.swap_seat = None
        if self.swap_seat is not None:
            theirs = len(obs.players[self.swap_seat].belt)
            if not theirs:
                self.swap_from = self.swap_seat = None
            self.swap_cursor = min(self.swap_cursor, max(0, theirs - 1))

    # -- the transitions ------------------------------------------------------------------------

    def key(self, table: Table, intent: Intent, index: int = 0) -> Outcome:
        """Apply one key to the choice (`index`: the die a number key names, from 0)."""
        handler = TRANSITIONS.get((self.mode, intent))
        if handler is None:
            other: Mode = "choose" if self.mode == "swap" else "swap"
            if (other, intent) in TRANSITIONS:
                return Outcome(
                    "that key does not work while choosing a swap: Esc goes back"
                    if self.mode == "swap"
                    else "that key works while choosing a swap (s starts one)",
                    error=True,
                )
            return Outcome(f"nothing to do for {intent} now", error=True)
        return handler(self, table, index)

    def _step(self, table: Table, delta: int) -> Outcome:
        size = len(table.belt)
        if not size:
            return Outcome("your belt is empty", error=True)
        self.cursor = (self.cursor + delta) % size
        return Outcome(self.describe(table))

    def _digit(self, table: Table, index: int) -> Outcome:
        if index >= len(table.belt):
            return Outcome(f"there is no die {index + 1} on your belt", error=True)
        self.cursor = index
        return Outcome(self.describe(table))

    def _mark(self, table: Table, index: int) -> Outcome:
        why = table.cannot_choose("roll")
        if why:
            return Outcome(why, error=True)
        if self.cursor in self.marked:
            self.marked.remove(self.cursor)
            return Outcome(self.describe(table))
        me = table.me
        assert me is not None
        if not me.menu:
            return Outcome("you have no menu token: you cannot re-roll", error=True)
        self.marked = sorted({*self.marked, self.cursor})
        return Outcome(self.describe(table))

    def _reroll(self, table: Table, index: int) -> Outcome:
        why = table.cannot_spend("menu")
        if why:
            return Outcome(why, error=True)
        if not self.marked:
            return Outcome("mark dice with space first: r re-rolls the marked dice", error=True)
        return _checked(table, Reroll(tuple(self.marked)))

    def _swap(self, table: Table, index: int) -> Outcome:
        why = table.cannot_choose("swap")
        if why:
            return Outcome(why, error=True)
        me = table.me
        assert me is not None
        tokens = me.usable_chopsticks if table.moving else me.chopsticks
        if not tokens:
            return Outcome(_no_token(me, "chopsticks", me.fresh_chopsticks), error=True)
        others = table.others()
        if not others:
            return Outcome("no other belt holds a die to swap with", error=True)
        self.swap_from, self.swap_seat, self.swap_cursor = self.cursor, others[0], 0
        return Outcome(self.describe(table))

    def _unswap(self, table: Table, index: int) -> Outcome:
        self.swap_from = self.swap_seat = None
        return Outcome("swap cancelled")

    def _clear(self, table: Table, index: int) -> Outcome:
        if not self.marked:
            return Outcome(self.describe(table))
        self.marked.clear()
        return Outcome("marks cleared")

    def _take(self, table: Table, index: int) -> Outcome:
        why = table.cannot_act()
        if why:
            return Outcome(why, error=True)
        if not table.belt:
            return Outcome("your belt is empty", error=True)
        return _checked(table, Take(self.cursor))

    def _belt(self, table: Table, delta: int) -> Outcome:
        others = table.others()
        if not others:
            self.swap_from = self.swap_seat = None
            return Outcome("no other belt holds a die to swap with", error=True)
        at = others.index(self.swap_seat) if self.swap_seat in others else -delta
        self.swap_seat = others[(at + delta) % len(others)]
        self.swap_cursor = min(self.swap_cursor, len(table.obs.players[self.swap_seat].belt) - 1)
        return Outcome(self.describe(table))

    def _their_step(self, table: Table, delta: int) -> Outcome:
        assert self.swap_seat is not None
        size = len(table.obs.players[self.swap_seat].belt)
        if not size:
            return self._belt(table, 1)
        self.swap_cursor = (self.swap_cursor + delta) % size
        return Outcome(self.describe(table))

    def _their_digit(self, table: Table, index: int) -> Outcome:
        assert self.swap_seat is not None
        size = len(table.obs.players[self.swap_seat].belt)
        if index >= size:
            who = table.name_of(self.swap_seat)
            return Outcome(f"there is no die {index + 1} on {who}'s belt", error=True)
        self.swap_cursor = index
        return Outcome(self.describe(table))

    def _do_swap(self, table: Table, index: int) -> Outcome:
        why = table.cannot_spend("chopsticks")
        if why:
            return Outcome(why, error=True)
        assert self.swap_from is not None and self.swap_seat is not None
        return _checked(table, Swap(self.swap_from, self.swap_seat, self.swap_cursor))

    # -- words ----------------------------------------------------------------------------------

    def describe(self, table: Table) -> str:
        """What the keys would do now, in words."""
        belt = table.belt
        if not belt:
            return ""
        if self.swap_from is not None and self.swap_seat is not None:
            theirs = table.obs.players[self.swap_seat].belt
            mine = belt[self.swap_from] if self.swap_from < len(belt) else None
            other = theirs[self.swap_cursor] if self.swap_cursor < len(theirs) else None
            if mine is None or other is None:
                return ""
            who = table.name_of(self.swap_seat)[:16]
            return (
                f"swap your {FACE_SHORT[mine.face]} for {who}'s {FACE_SHORT[other.face]}:"
                " Enter swaps, Esc cancels"
            )
        die = belt[self.cursor] if self.cursor < len(belt) else None
        if die is None:
            return ""
        text = f"die {self.cursor + 1}: {FACE_NAMES[die.face]}"
        if self.marked:
            marked = ",".join(str(i + 1) for i in self.marked)
            text += f" · marked {marked} (r re-rolls them)"
        return text + " · Enter takes it"


Transition = Callable[[DiceChoice, Table, int], Outcome]
"""What a key does to the choice: (choice, table, index of the die a number key names)."""


def _by(move: Transition, delta: int) -> Transition:
    """An arrow key's transition: `move` by `delta` (an arrow names no die: the index goes unused)."""
    return lambda choice, table, index: move(choice, table, delta)


TRANSITIONS: dict[tuple[Mode, Intent], Transition] = {
    ("choose", "left"): _by(DiceChoice._step, -1),
    ("choose", "up"): _by(DiceChoice._step, -1),
    ("choose", "right"): _by(DiceChoice._step, 1),
    ("choose", "down"): _by(DiceChoice._step, 1),
    ("choose", "digit"): DiceChoice._digit,
    ("choose", "mark"): DiceChoice._mark,
    ("choose", "reroll"): DiceChoice._reroll,
    ("choose", "swap"): DiceChoice._swap,
    ("choose", "enter"): DiceChoice._take,
    ("choose", "cancel"): DiceChoice._clear,
    ("swap", "left"): _by(DiceChoice._their_step, -1),
    ("swap", "right"): _by(DiceChoice._their_step, 1),
    ("swap", "digit"): DiceChoice._their_digit,
    ("swap", "up"): _by(DiceChoice._belt, -1),
    ("swap", "down"): _by(DiceChoice._belt, 1),
    ("swap", "enter"): DiceChoice._do_swap,
    ("swap", "swap"): DiceChoice._unswap,
    ("swap", "cancel"): DiceChoice._unswap,
}
"""Every (mode, key) the turn's choice accepts, and what it does. Marking and re-rolling are
refused while a swap is being chosen (the cursor is on another belt then)."""


def _no_token(me: PlayerView, kind: str, fresh: int) -> str:
    if fresh:
        return f"your {kind} tokens are fresh: usable from your next turn"
    return f"you have no {kind} token to spend"


def _checked(table: Table, action: RollAction) -> Outcome:
    if action not in table.obs.legal_actions():
        return Outcome(f"{action.describe()} is not legal now", error=True)
    return Outcome(_doing(action), action=action)


def _doing(action: RollAction) -> str:
    if isinstance(action, Reroll):
        return f"re-rolling {len(action.dice)} di{'ce' if len(action.dice) > 1 else 'e'}…"
    if isinstance(action, Swap):
        return "swapping…"
    return "taking the die…"


# -- the log --------------------------------------------------------------------------------------


def die_fragment(die: Die) -> tuple[str, str]:
    """A die in the log: its short face name in its kind's colour."""
    return (die_style(die.kind), FACE_SHORT[die.face])


def update_lines(
    before: RollObservation | None,
    seat: int,
    events: tuple[RollEvent, ...],
    auto: bool,
    name_of: Callable[[int], str],
    where: str,
) -> tuple[list[Fragments], list[Fragments]]:
    """The log lines for one ROLL_UPDATE: the action's own (now), and the next round's start
    (held back until the round's scores are logged)."""
    now: list[Fragments] = []
    later: list[Fragments] = []
    who = name_of(seat)
    tail: Fragments = [("class:log.dim", " (auto)")] if auto else []
    slid = False
    for event in events:
        if isinstance(event, Rerolled):
            old = before.players[seat].belt if before is not None else ()
            line: Fragments = [("class:log.dim", f"{where} "), ("class:log.name", who)]
            line.append(("", " re-rolled "))
            for i, (position, die) in enumerate(zip(event.positions, event.dice, strict=False)):
                if i:
                    line.append(("", ", "))
                if position < len(old):
                    line += [die_fragment(old[position]), ("", "→")]
                line.append(die_fragment(die))
            now.append(line + tail)
        elif isinstance(event, Swapped):
            other = name_of(event.other_seat)
            now.append(
                [
                    ("class:log.dim", f"{where} "),
                    ("class:log.name", who),
                    ("", " swapped "),
                    die_fragment(event.given),
                    ("", f" for {other}'s " if other != "you" else " for your "),
                    die_fragment(event.received),
                    *tail,
                ]
            )
        elif isinstance(event, Taken):
            line = [
                ("class:log.dim", f"{where} "),
                ("class:log.name", who),
                ("", " took "),
                die_fragment(event.die),
            ]
            if event.on_wasabi:
                line.append(("class:die.specials", " on wasabi, x3"))
            gains = [
                f"+{n} {what}"
                for n, what in (
                    (event.menu, "menu"),
                    (event.chopsticks, "chopsticks"),
                    (event.puddings, "pudding"),
                )
                if n
            ]
            if gains:
                line.append(("", " (" + ", ".join(gains) + ")"))
            now.append(line + tail)
        elif isinstance(event, BeltsSlid) and not event.between_rounds:
            slid = True
        elif isinstance(event, DiceRolled) and event.cause == "slide" and slid:
            slid = False
            now.append([("class:log.dim", "belts slid left and were rolled")])
        elif isinstance(event, RollRoundStarted):
            later.append(
                [
                    (
                        "class:log.round",
                        f"round {event.round}: {event.dice_per_player} dice each,"
                        f" red belt: {name_of(event.first_seat)}",
                    )
                ]
            )
    return now, later
