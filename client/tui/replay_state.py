"""A finished game, step by step, for the replay viewer: the record checked, the game replayed
through its rules, and where the viewer stands in it.

Pure: no prompt_toolkit, no IO. `open_record` checks a signed record (the signature, then
`protocol.fairness.verify_record`: seeds, commitments, every step, the scores) and replays it;
`Replay` keeps the game as it stood before every step, so moving anywhere is a look-up. What the
viewer shows at a moment is the game then, and the step played from there: every seat's hand and
tableau (the game is over, so nothing is hidden any more) and what each seat chose.

A record that does not verify is still shown as far as it replays, under its problems: the
viewer is where a person sees what is wrong with it. Only one that cannot be read at all, or whose
game is not installed, is refused (`ReplayError`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sushigo.engine import EngineError, rules
from sushigo.engine.api import GameState, Rules
from sushigo.protocol import (
    FairRecord,
    ProtocolError,
    SignedRecord,
    StepRecord,
    verify_record,
)
from sushigo.protocol.records import check_signature, parse_record_bytes

__all__ = ["RecentGames", "Replay", "ReplayError", "open_record"]


class ReplayError(Exception):
    """A record that cannot be shown at all; the message says why, in one line."""


def open_record(
    signed: SignedRecord, server_key: bytes | None = None, names: Sequence[str] = ()
) -> Replay:
    """The replay of a signed record, with every check that failed (`Replay.problems`).

    `server_key`: the key the record must be signed by (the server's, from its key file or its
    WELCOME); None accepts the key the record names, and says so (`Replay.pinned`)."""
    problems: list[str] = []
    try:
        check_signature(signed, server_key)
    except ProtocolError as exc:
        problems.append(f"signature: {exc.message}")
    try:
        record = parse_record_bytes(signed.record)
    except ProtocolError as exc:
        raise ReplayError(f"the record cannot be read: {exc.message}") from None
    try:
        game_rules = rules(record.game)
    except EngineError as exc:
        raise ReplayError(str(exc)) from None
    problems += verify_record(record).problems
    try:
        return Replay(
            record,
            game_rules,
            names,
            problems,
            pinned=server_key is not None,
            key=signed.server_key,
        )
    except (EngineError, TypeError, ValueError) as exc:  # options that make no game
        raise ReplayError(f"the record's game cannot be set up: {exc}") from None


class Replay:
    """A record replayed: the game before every step, and the viewer's place among them.

    Moment ``k`` (0 to `last`) is the game before step ``k`` is played, with that step's actions
    (`step`); moment `last` is the end, after every step that replays. The moves (`next`,
    `home`, `next_round`, ...) change `index` and return whether it moved."""

    def __init__(
        self,
        record: FairRecord,
        game_rules: Rules,
        names: Sequence[str] = (),
        problems: Sequence[str] = (),
        *,
        pinned: bool = False,
        key: bytes = b"",
    ) -> None:
        self.record = record
        self.rules = game_rules
        self.problems = tuple(problems)
        """Every check that failed; empty: the record verified."""
        self.pinned = pinned
        """The signature was checked against the server's own key (not only the record's)."""
        self.key = key
        """The key that signed the record."""
        game = game_rules.new_game(record.options, record.game_seed())
        self.players = game.players
        self.names = tuple(
            names[i] if i < len(names) and names[i] else f"seat {i + 1}"
            for i in range(self.players)
        )
        """Display names in seat order."""
        self.initial_events: tuple[Any, ...] = tuple(game.initial_events())
        self.states: list[GameState] = [game.clone()]
        """The game before each step that replays, then after the last."""
        self.events: list[tuple[Any, ...]] = []
        """The events of each step that replays."""
        for step in record.steps:
            if game.is_terminal():
                break
            try:
                events = game.step([opening.action for opening in step.openings])
            except (EngineError, TypeError, ValueError):
                break  # the problems say which step and why: show the game up to it
            self.events.append(tuple(events))
            self.states.append(game.clone())
        self.index = 0
        """The moment on screen."""

    # -- where we are -----------------------------------------------------------------------------

    @property
    def ok(self) -> bool:
        """Every check passed."""
        return not self.problems

    @property
    def last(self) -> int:
        """The last moment: after every step that replays."""
        return len(self.events)

    @property
    def complete(self) -> bool:
        """Every step of the record replays and the game ends with the last."""
        return self.last == len(self.record.steps) and self.states[-1].is_terminal()

    @property
    def game(self) -> GameState:
        """The game at the moment on screen (do not change it: the replay keeps it)."""
        return self.states[self.index]

    @property
    def step(self) -> StepRecord | None:
        """The step played from the moment on screen (None at the end)."""
        return self.record.steps[self.index] if self.index < self.last else None

    @property
    def previous_events(self) -> tuple[Any, ...]:
        """What the step that led here did (the setup's events at the start)."""
        return self.events[self.index - 1] if self.index else self.initial_events

    @property
    def at_end(self) -> bool:
        return self.index == self.last

    def round_at(self, index: int) -> int:
        """The round of moment `index` (the end: the last step's, or 1 with no step)."""
        steps = self.record.steps
        if index < self.last:
            return steps[index].round
        return steps[self.last - 1].round if self.last else 1

    def picks(self) -> dict[int, tuple[Any, bool]]:
        """The step's actions by seat: (action, chosen by the server)."""
        step = self.step
        if step is None:
            return {}
        return {
            seat: (opening.action, opening.auto)
            for seat, opening in zip(step.seats, step.openings, strict=False)
        }

    # -- moving -----------------------------------------------------------------------------------

    def go(self, index: int) -> bool:
        """Move to moment `index` (kept within the replay)."""
        index = max(0, min(self.last, index))
        moved = index != self.index
        self.index = index
        return moved

    def next(self) -> bool:
        return self.go(self.index + 1)

    def previous(self) -> bool:
        return self.go(self.index - 1)

    def home(self) -> bool:
        return self.go(0)

    def end(self) -> bool:
        return self.go(self.last)

    def next_round(self) -> bool:
        """To the first step of the next round (the end, from the last round)."""
        here = self.round_at(self.index)
        later = (k for k in range(self.index + 1, self.last) if self.round_at(k) > here)
        return self.go(next(later, self.last))

    def previous_round(self) -> bool:
        """To the first step of this round; from there (or from the end), of the round before."""
        index = self.index
        if index == self.last and index:
            index -= 1  # the end belongs to the last round
        start = self._round_start(index)
        if start == self.index and start:
            start = self._round_start(start - 1)
        return self.go(start)

    def _round_start(self, index: int) -> int:
        round_ = self.round_at(index)
        while index and self.round_at(index - 1) == round_:
            index -= 1
        return index


@dataclass
class RecentGames:
    """The lobby's list of our finished games (`my_games`), a page at a time."""

    games: tuple[Any, ...] = ()
    """The page: `protocol.GameSummary` values, newest first."""
    offset: int = 0
    """Where the page starts among all our games."""
    more: bool = False
    """Older games follow this page."""
    cursor: int = 0
    loading: bool = True
    """A request is under way."""
    note: str = ""
    """Why the list is empty or short, when the server said (a guest's games, an old server)."""
    opened: set[str] = field(default_factory=set)
    """Games whose record is being fetched (a second Enter waits for the first)."""
