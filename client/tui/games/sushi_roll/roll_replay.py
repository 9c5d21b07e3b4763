"""Sushi Roll in the replay viewer: the dice table through its board (`RollBoard.players`), seen
from the seat that moves, so the dice it re-rolls or swaps carry the board's own marks, with what
it does and what each seat took this cycle."""

from __future__ import annotations

from typing import Any

from sushigo.client.tui.board import Fragments
from sushigo.client.tui.replay_draw import ReplayDrawer, joined
from sushigo.engine.games.sushi_roll import Reroll, RollObservation, Swap, Take

from .dice import FACE_SHORT
from .roll import die_fragment, update_lines
from .roll_board import RollBoard


class RollDrawer(ReplayDrawer):
    """Sushi Roll: the dice table through its board, seen from the seat that moves, with what
    it does and what each seat took this cycle."""

    def where(self) -> str:
        obs: RollObservation = self.replay.game.observation(None)
        if self.replay.step is None:
            return super().where()
        return f"round {obs.round}/3 · cycle {obs.cycle}/{obs.options.dice_per_player}"

    def seats(self) -> Fragments:
        replay = self.replay
        self._at_end()
        board = self.board
        assert isinstance(board, RollBoard)
        picks = replay.picks()
        mover = next(iter(picks), None)
        board.observation = replay.game.observation(mover)
        board.dice.reset()
        board.did = self._took()
        if mover is not None:
            action = picks[mover][0]
            if isinstance(action, Reroll):
                board.dice.marked = list(action.dice)
            elif isinstance(action, Swap):
                board.dice.swap_from, board.dice.swap_seat = action.mine, action.other_seat
                board.dice.swap_cursor = action.theirs
        out = board.players()
        if mover is not None:
            action, auto = picks[mover]
            out += [
                ("", "\n"),
                ("class:title", f" {self.shell.name_of(mover)} "),
                *self.action(action),
                ("class:dim", " (auto)" if auto else ""),
            ]
        return out

    def _took(self) -> dict[int, str]:
        """What each seat took earlier in this cycle (the board's status column)."""
        replay = self.replay
        step = replay.step
        did: dict[int, str] = {}
        k = replay.index - 1
        while step is not None and k >= 0:
            earlier = replay.record.steps[k]
            if (earlier.round, earlier.turn) != (step.round, step.turn):
                break
            action = earlier.openings[0].action
            if isinstance(action, Take) and earlier.seats[0] not in did:
                belt = replay.states[k].observation(None).players[earlier.seats[0]].belt
                if action.position < len(belt):
                    did[earlier.seats[0]] = f"took {FACE_SHORT[belt[action.position].face]}"
            k -= 1
        return did

    def action(self, action: Any) -> Fragments:
        """The mover's action with the faces of the dice it concerns."""
        obs: RollObservation = self.replay.game.observation(None)
        mover = obs.to_move
        belt = obs.players[mover].belt if mover is not None else ()
        if isinstance(action, Take) and action.position < len(belt):
            return [("", "takes "), die_fragment(belt[action.position])]
        if isinstance(action, Reroll):
            out: Fragments = [("", "re-rolls ")]
            for i, position in enumerate(action.dice):
                if position < len(belt):
                    out += [("", ", " if i else ""), die_fragment(belt[position])]
            return out
        if isinstance(action, Swap) and action.mine < len(belt):
            theirs = obs.players[action.other_seat].belt
            if action.theirs < len(theirs):
                return [
                    ("", "swaps "),
                    die_fragment(belt[action.mine]),
                    ("", f" for {self.shell.name_of(action.other_seat)}'s "),
                    die_fragment(theirs[action.theirs]),
                ]
        return [("", self.board.describe(action))]

    def happened(self) -> Fragments:
        replay = self.replay
        if not replay.index:
            return []
        k = replay.index - 1
        step = replay.record.steps[k]
        before = replay.states[k].observation(None)
        now, later = update_lines(
            before,
            step.seats[0],
            replay.events[k],
            step.openings[0].auto,
            self.shell.name_of,
            f"R{step.round}C{step.turn}",
        )
        self.shell.lines.clear()
        for event in replay.events[k]:
            self.board.event(event)  # a round's scores, the game's end
        return joined([*now, *self.shell.lines, *later])
