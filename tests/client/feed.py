"""A game played by its rules, told to the terminal client's state as a server would tell it:
the messages of protocol 2.0 (GAME_STARTING, TURN_START, COMMITMENTS and TURN_RESULT for a
secret step, ACTED for each action of an open one, GAME_OVER), for tests that need no server.
Any installed game works: the card game, the dice game, or a plug-in."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from sushigo.client.tui import AppState
from sushigo.engine.games import rules
from sushigo.protocol import (
    Acted,
    Commitments,
    GameEnded,
    GameStarting,
    Opening,
    SignedRecord,
    TurnResult,
    TurnStart,
)

NAMES = ("ana", "ben", "cy", "dee", "eve", "fay", "gus", "hal")


class Feed:
    """One game of `kind`, seen from `seat` (None: watching), fed into `state`."""

    def __init__(
        self,
        state: AppState,
        kind: str,
        players: int,
        *,
        seat: int | None = 0,
        seed: bytes = b"feed",
        variants: Sequence[str] = (),
    ) -> None:
        self.state, self.kind, self.seat = state, kind, seat
        self.rules = rules(kind)
        self.options = self.rules.options(players, variants)
        self.game = self.rules.new_game(self.options, seed)
        self.names = NAMES[:players]
        self.steps = 0

    def start(self) -> None:
        self.state.apply(
            GameStarting(
                table_id="t1",
                kind=self.kind,
                options=self.options,
                seat=self.seat,
                players=self.names,
                server_seed_hash=bytes(32),
            )
        )

    def turn_start(self, deadline_ms: int = 0) -> None:
        round_, turn = self.game.position
        self.state.apply(
            TurnStart(
                round=round_,
                turn=turn,
                seats=self.game.to_act(),
                secret=self.rules.secret,
                step=self.steps,
                observation=self.game.observation(self.seat),
                deadline_ms=deadline_ms,
            )
        )

    def commitments(self, auto: Sequence[int] = ()) -> None:
        """Every commitment is in (the seats in `auto` sent none)."""
        round_, turn = self.game.position
        acting = self.game.to_act()
        self.state.apply(
            Commitments(
                round=round_,
                turn=turn,
                commitments=tuple(None if s in auto else bytes(32) for s in acting),
            )
        )

    def reveal(self, actions: Sequence[Any], auto: Sequence[int] = ()) -> list[Any]:
        """A secret step's TURN_RESULT with `actions` (one per acting seat); its events."""
        round_, turn = self.game.position
        acting = self.game.to_act()
        events = self.game.step(list(actions))
        self.steps += 1
        openings = tuple(
            Opening(action=a, nonce=None if s in auto else bytes(32), auto=s in auto)
            for s, a in zip(acting, actions, strict=True)
        )
        self.state.apply(
            TurnResult(round=round_, turn=turn, openings=openings, events=tuple(events))
        )
        return events

    def act(self, action: Any, auto: bool = False) -> list[Any]:
        """An open step's ACTED for the seat to move; its events."""
        round_, turn = self.game.position
        (seat,) = self.game.to_act()
        before = (self.game.position, self.game.to_act())
        events = self.game.step([action])
        more = not self.game.is_terminal() and (self.game.position, self.game.to_act()) == before
        self.state.apply(
            Acted(
                round=round_,
                turn=turn,
                step=self.steps,
                seat=seat,
                action=action,
                auto=auto,
                events=tuple(events),
                observation=self.game.observation(self.seat),
                more=more,
            )
        )
        self.steps += 1
        return events

    def play(self, actions: Sequence[Any]) -> list[Any]:
        """One step: commitments and reveal (secret), or one action (open)."""
        if self.rules.secret:
            self.commitments()
            return self.reveal(actions)
        return self.act(actions[0])

    def random_actions(self, rng: random.Random) -> list[Any]:
        return [rng.choice(list(self.game.legal_actions(s))) for s in self.game.to_act()]

    def end(self) -> None:
        game = self.game
        self.state.apply(
            GameEnded(
                totals=game.scores(),
                places=game.places(),
                winners=game.winners(),
                server_seed=bytes(32),
                record=SignedRecord(record=b"{}", signature=bytes(64), server_key=bytes(32)),
            )
        )
