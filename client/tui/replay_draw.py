"""How a game looks in the replay viewer: every seat at one moment of a finished game, what it
chose there, and what the step before did, drawn through the game's own board where it fits.

`ReplayDrawer` is the plain drawer, any game's without one of its own: the rules' words for every
seat's action. A game's own (its ``REPLAY_DRAWER``, `client.tui.games`) subclasses it: the game is
over, so nothing is hidden (Sushi Go!'s, `games.sushi_go.card_replay`, shows every hand). The
boards' log lines and final tables come through a `ReplayShell`, which stands in for the terminal
client's shell.
"""

from __future__ import annotations

from typing import Any

from sushigo.client.checks import Fairness
from sushigo.client.connection import Client
from sushigo.protocol import GameEnded, SignedRecord

from .board import Board, Fragments, player_label
from .replay_state import Replay

__all__ = ["ReplayDrawer", "ReplayShell", "joined"]

_NO_RECORD = SignedRecord(record=b"-", signature=bytes(64), server_key=bytes(32))
"""What a replay's GAME_OVER stands-in carries as its record: the boards read only the totals,
places and winners of `Shell.final`."""


class ReplayShell:
    """What a board sees of the terminal client (`board.Shell`), for drawing a replay: the
    seats' names, the game's end once the viewer stands there, and the log lines a board writes
    (kept in `lines`)."""

    client: Client | None = None
    seat: int | None = None
    deadline: float | None = None
    summary: str | None = None
    is_host = False

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.board: Board | None = None
        """The board drawing through this shell (it may name a seat of its own: the dummy)."""
        self.final: GameEnded | None = None
        self.lines: list[Fragments] = []
        self._fairness = Fairness()

    def now(self) -> float:
        return 0.0

    @property
    def fairness(self) -> Fairness:
        return self._fairness

    def name_of(self, seat: int, short: bool = False) -> str:
        special = self.board.seat_name(seat) if self.board is not None else None
        if special is not None:
            return special
        if seat < len(self.names):
            return player_label(self.names[seat], short)
        return f"seat {seat + 1}"

    def seat_note(self, seat: int) -> str:
        return ""  # a replay shows the game, not who was away during it

    def log_line(self, line: Fragments) -> None:
        self.lines.append(line)

    def set_status(self, text: str, error: bool = False) -> None:
        pass

    def say(self, text: str, error: bool = False) -> None:
        pass

    def notify(self) -> None:
        pass


class ReplayDrawer:
    """The plain drawer, for any game: each seat's score and action in the rules' words."""

    def __init__(self, replay: Replay, board_type: type[Board] = Board) -> None:
        self.replay = replay
        self.shell = ReplayShell(replay.names)
        self.board = self.shell.board = board_type(self.shell, replay.record.game)
        self.board.observation = replay.game.observation(None)
        for events in (replay.initial_events, *replay.events):
            for event in events:  # the board keeps what its final table needs (round scores)
                self.board.event(event)
        self.shell.lines.clear()

    # -- what the viewer asks -------------------------------------------------------------------

    def where(self) -> str:
        """Where the moment on screen stands in the game, for the header."""
        replay = self.replay
        step = replay.step
        if step is None:
            return "game over" if replay.complete else "the end of the record"
        return f"round {step.round} · turn {step.turn}"

    def seats(self) -> Fragments:
        """Every seat at the moment on screen."""
        replay = self.replay
        self._at_end()
        picks = replay.picks()
        scores = replay.game.scores()
        out: Fragments = []
        for seat in range(len(replay.names)):
            name = self.shell.name_of(seat)
            out += [
                ("", "\n" if seat else ""),
                ("class:title", f" {name[:13]:<13}"),
                ("", f"{scores[seat] if seat < len(scores) else 0:>5}pt  "),
                *self.status(seat, picks),
            ]
        return out

    def status(self, seat: int, picks: dict[int, tuple[Any, bool]]) -> Fragments:
        """What a seat does at this moment (its place, at the end)."""
        final = self.shell.final
        if final is not None and seat < len(final.places):
            star = " ★" if seat in final.winners else ""
            return [("class:title", f"place {final.places[seat]}{star}")]
        if seat not in picks:
            return []
        action, auto = picks[seat]
        out: Fragments = [("class:dim", "picks "), *self.action(action)]
        if auto:
            out.append(("class:dim", " (auto)"))
        return out

    def action(self, action: Any) -> Fragments:
        return [("class:title", self.board.describe(action))]

    def happened(self) -> Fragments:
        """What the step that led here did: every seat's action, then its notable events in the
        board's words (a wasabi used, a round's scores and the next round's deal, ...)."""
        replay = self.replay
        self.shell.lines.clear()
        if replay.index:
            step = replay.record.steps[replay.index - 1]
            line: Fragments = [("class:log.dim", f"R{step.round}T{step.turn}")]
            for seat, opening in zip(step.seats, step.openings, strict=False):
                line += [("class:log.name", f" {self.shell.name_of(seat, short=True)[:8]}:")]
                line += self.action(opening.action)
                if opening.auto:
                    line.append(("class:log.dim", "(auto)"))
            self.shell.lines.append(line)
        for event in replay.previous_events:
            self.board.event(event)
        return joined(self.shell.lines)

    def summary(self) -> Fragments:
        """At the end: who won, and the final table by category."""
        final = self._at_end()
        if final is None:
            return []
        names = [self.shell.name_of(s) for s in final.winners]
        title = " and ".join(names) + (" share the win" if len(names) > 1 else " wins")
        return [("class:title", f"Game over · {title}\n"), *self.board.game_summary()]

    def _at_end(self) -> GameEnded | None:
        """The game's end as the boards read it, once the viewer stands there."""
        replay, final = self.replay, None
        game = replay.game
        if replay.at_end and game.is_terminal():
            final = GameEnded(
                totals=game.scores(),
                places=game.places(),
                winners=game.winners(),
                server_seed=replay.record.server_seed,
                record=_NO_RECORD,
            )
        self.shell.final = final
        return final


def joined(lines: list[Fragments]) -> Fragments:
    out: Fragments = []
    for line in lines:
        if out:
            out.append(("", "\n"))
        out += line
    return out
