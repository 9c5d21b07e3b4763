"""Sushi Roll's board as state: the dice table seen from our seat, the choice on our belt (marks,
a swap being chosen: `roll.DiceChoice`), what each seat did this cycle, and the dice game's words
in the log and its scores. How it looks is `roll_board`'s.

A Sushi Roll turn is an open step: the mover re-rolls and swaps, each an action the table answers
with ACTED (``more`` set), then takes a die, which ends the turn. Our actions go one at a time:
the next waits for the answer to the last (`Board.pending`)."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from prompt_toolkit.filters import Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from sushigo.client.tui.board import Fragments, Shell
from sushigo.client.tui.observed import ObservedBoard
from sushigo.engine.games.sushi_roll import (
    Face,
    GameOver,
    PlayerView,
    RollObservation,
    RoundPoints,
    RoundScored,
    Take,
    Taken,
)
from sushigo.protocol import Acted, Resumed, TurnStart

from .dice import FACE_SHORT
from .roll import DiceChoice, Intent, Table, update_lines

__all__ = ["ROLL_BINDINGS", "RollState"]

ROLL_BINDINGS: tuple[tuple[tuple[str, ...], Intent], ...] = (
    (("left", "h"), "left"),
    (("right", "l"), "right"),
    (("up", "k"), "up"),
    (("down", "j"), "down"),
    (("space",), "mark"),
    (("r",), "reroll"),
    (("s",), "swap"),
    (("enter",), "enter"),
    (("escape",), "cancel"),
)
"""Sushi Roll's keys and what each asks of the turn's choice (`roll.TRANSITIONS` says what it
does in each mode)."""


class RollState(ObservedBoard[RollObservation, PlayerView]):
    """The dice game on screen, but for drawing."""

    def __init__(self, shell: Shell, kind: str) -> None:
        super().__init__(shell, kind)
        self.secret = False
        self.dice = DiceChoice()
        """The cursor, the dice marked for a re-roll and the swap being chosen."""
        self.rounds: list[RoundScored[RoundPoints]] = []
        """Each round's scores so far."""
        self.game_over: GameOver | None = None
        """The game's end as the rules tell it (puddings and leftover tokens)."""
        self.did: dict[int, str] = {}
        """Per seat, what it did last this cycle ("took salmon"), for the belts' status."""
        self._later: list[Fragments] = []
        self._said = ""
        """The last action's log line, in plain words (for the status line)."""

    def seat_views(self, obs: RollObservation) -> tuple[PlayerView, ...]:
        """Every seat's place at the dice table: its belt, tray and tokens."""
        return obs.players

    @property
    def moving(self) -> bool:
        """It is our move and nothing of ours awaits an answer."""
        return self.waiting and self.pending is None and self.final is None

    # -- game messages ---------------------------------------------------------------------------

    def turn_start(self, msg: TurnStart) -> None:
        new_turn = self.is_new_step(msg.round, msg.turn, msg.seats)
        previous = self.position
        super().turn_start(msg)
        obs = self.obs
        if obs is None:
            return
        if previous is None or previous[0] != obs.round:
            self.did = {}  # a new round: last round's trays are gone
        elif new_turn and obs.to_move is not None:
            self.did.pop(obs.to_move, None)
        if new_turn:
            self.dice.swap_from = self.dice.swap_seat = None

    def new_step(self) -> None:
        self.dice.marked.clear()
        self.dice.swap_from = self.dice.swap_seat = None
        self.dice.cursor = 0

    def fit(self) -> None:
        obs = self.obs
        if obs is not None:
            self.dice.fit(obs)

    def acted(self, msg: Acted) -> None:
        before = self.obs
        mine = msg.seat == self.seat and self.seat is not None
        super().acted(msg)
        obs = self.obs
        if obs is not None and obs.is_over and before is not None:
            # The game's last take scored the round, which clears every tray: the game-over
            # screen shows the trays as they were scored instead.
            self.observation = obs = trays_scored(obs, before, msg.events)
        action = msg.action
        verb = action.describe()
        if isinstance(action, Take) and before is not None:
            belt = before.players[msg.seat].belt
            if action.position < len(belt):
                verb = f"took {FACE_SHORT[belt[action.position].face]}"
        self.did[msg.seat] = verb + (" (auto)" if msg.auto else "")
        for line in self._later:  # the next round's start, after this round's scores
            self.shell.log_line(line)
        self._later = []
        if mine:
            if msg.auto and not msg.more:
                self.shell.set_status("time ran out: the server took a die for you", error=True)
            elif msg.auto:
                self.shell.set_status(f"the server played {verb} for you", error=True)
            else:
                # What "re-rolling…" or "swapping…" said was under way is done: say how it went
                # (the take ends the turn, and the status goes back to who moves now).
                self.shell.set_status(self._said if msg.more else "")
            if not msg.more or type(action) is not Take:
                # Our belt changed under the choice: positions no longer mean the same dice.
                self.dice.marked.clear()
                self.dice.swap_from = self.dice.swap_seat = None
            if not msg.more:
                self.dice.cursor = 0
        elif (
            before is not None
            and obs is not None
            and self.seat is not None
            and len(before.players[self.seat].belt) != len(obs.players[self.seat].belt)
        ):
            self.dice.marked.clear()  # the belts slid: other dice now
        self.fit()

    def log_acted(self, msg: Acted, before: Any) -> None:
        where = f"R{msg.round}C{msg.turn}"
        now, self._later = update_lines(
            before, msg.seat, msg.events, msg.auto, self._short_name, where
        )
        for line in now:
            self.shell.log_line(line)
        # The action's line without its place in the game: "you re-rolled egg→salmon".
        self._said = "".join(text for _, text, *_ in now[0][1:]) if now else ""

    def _short_name(self, seat: int) -> str:
        return self.shell.name_of(seat, short=True)[:12]

    def event(self, event: Any) -> None:
        if isinstance(event, RoundScored):
            self.rounds = [r for r in self.rounds if r.round != event.round] + [event]
            self.shell.summary = "round"
            text = "  ".join(
                f"{self.shell.name_of(s, short=True)[:8]} {total}"
                for s, total in enumerate(event.totals)
            )
            self.shell.log_line([("class:log.round", f"round {event.round} scored: "), ("", text)])
        elif isinstance(event, GameOver):
            self.game_over = event

    def resumed(self, reply: Resumed) -> None:
        super().resumed(reply)
        self.fit()

    # -- the choice ------------------------------------------------------------------------------

    def table(self) -> Table | None:
        """What the dice keys see (None: no dice game on screen)."""
        obs = self.obs
        if obs is None:
            return None
        return Table(obs, self.moving, self.pending, self.shell.name_of)

    def roll_key(self, intent: Intent, index: int = 0) -> Any:
        """One key of the dice screen: move, mark, choose a swap; returns the action to send when
        the key plays one (already checked legal), else None (the status line says why)."""
        table = self.table()
        if table is None:
            self.shell.say("no game is running", error=True)
            return None
        outcome = self.dice.key(table, intent, index)
        self.shell.say(outcome.text, error=outcome.error)
        return outcome.action

    def press(self, intent: Intent, index: int = 0) -> bool:
        """A key of the dice screen: change the choice, or send the action it plays (re-roll,
        swap, take) if it is legal now; else say why and send nothing."""
        action = self.roll_key(intent, index)
        return action is not None and self.play(action)

    def make_key_bindings(self, playing: Filter) -> KeyBindings:
        """Walk the belt, mark dice and re-roll them, choose a swap, take a die."""
        kb = KeyBindings()
        for keys, intent in ROLL_BINDINGS:

            def _key(event: KeyPressEvent, intent: Intent = intent) -> None:
                self.press(intent)

            for key in keys:
                kb.add(key, filter=playing)(_key)

        for digit in "12345678":

            @kb.add(digit, filter=playing)
            def _select(event: KeyPressEvent, index: int = int(digit) - 1) -> None:
                self.press("digit", index)

        return kb

    def action_fragments(self, action: Any) -> Fragments:
        return [("", action.describe())]


def trays_scored(
    obs: RollObservation, before: RollObservation, events: Sequence[Any]
) -> RollObservation:
    """`obs` (the game over) with every tray as the last round was scored: the trays of `before`
    (the last observation before the last take) and the die that take moved onto its tray."""
    players = list(obs.players)
    for seat, view in enumerate(before.players[: len(players)]):
        tray, on_wasabi, open_wasabi = view.tray, view.on_wasabi, view.open_wasabi
        for event in events:
            if isinstance(event, Taken) and event.seat == seat:
                if event.on_wasabi:
                    on_wasabi, open_wasabi = (*on_wasabi, len(tray)), open_wasabi - 1
                elif event.die.face is Face.WASABI:
                    open_wasabi += 1
                tray = (*tray, event.die)
        players[seat] = dataclasses.replace(
            players[seat], tray=tray, on_wasabi=on_wasabi, open_wasabi=open_wasabi
        )
    return dataclasses.replace(obs, players=tuple(players))
