"""The terminal client's one state object: everything the screen shows, and every change to it.

`AppState` holds no widget and does no IO. Server messages come in through `apply`, keystrokes
through the selection methods (the card game: `move`, `select`, `toggle_mark`, `toggle_dummy`,
`chosen_action`; Sushi Roll: `die_move`, `die_select`, `die_mark`, `swap_start`, `swap_belt`,
`swap_cancel`, `roll_action`), and each change ends with `notify()`, which redraws the screen (the
app installs `app.invalidate` as a listener) and wakes whoever waits for a change (tests). The
clock is passed in (`now`), so the turn countdown is tested without waiting.

A Sushi Roll turn is a little state machine of its own, in one table (`ROLL_KEYS`): while it is
our move we may mark dice and re-roll them (a menu token), choose one of our dice and then a die
on another belt to swap (a chopsticks token), and finally take a die, which ends the turn.
"""

from __future__ import annotations

import dataclasses
import re
import time
from collections import deque
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from prompt_toolkit.formatted_text import StyleAndTextTuples

from sushigo.client.connection import Client, Fairness
from sushigo.engine import Action, Card, GameOver, Observation, RoundScored, TableauView
from sushigo.engine.events import ChopsticksReturned, Event, RoundStarted, WasabiUsed
from sushigo.engine.roll import GameOver as RollGameOverEvent
from sushigo.engine.roll import PlayerView, RollAction, RollObservation, Take
from sushigo.engine.roll import RoundScored as RollRoundScored
from sushigo.protocol import (
    ChatMessage,
    Commitments,
    Error,
    GameEnded,
    GameKind,
    GameStarted,
    GameStarting,
    Message,
    Opening,
    Phase,
    Resumed,
    RollGameOver,
    RollRoundScores,
    RollTurn,
    RollUpdate,
    RoundScores,
    Spectating,
    TableInfo,
    TableJoined,
    TableLeft,
    TableList,
    TableUpdate,
    TurnResult,
    TurnStart,
)

from .cards import SHORT, card_style
from .dice import FACE_SHORT
from .form import BOT_STRATEGIES, GAME_TITLES, CreateForm
from .roll import DiceChoice, Intent, Table, update_lines

__all__ = ["BOT_STRATEGIES", "AppState", "CreateForm", "Fragments"]

Fragments = StyleAndTextTuples
"""prompt_toolkit formatted text: (style, text) pairs."""


@dataclass(eq=False)
class AppState:
    """Everything the terminal client shows. One instance per application."""

    client: Client | None = None
    """The connection (None in rendering tests)."""
    now: Callable[[], float] = time.monotonic
    """The clock, in seconds; the countdown is `deadline - now()`."""
    address: str = ""
    """``host:port`` of the server, for the header."""

    # -- lobby --------------------------------------------------------------------------------
    tables: tuple[TableInfo, ...] = ()
    table_cursor: int = 0
    form: CreateForm | None = None
    """The create-table form while it is open."""
    quick_kind: GameKind = GameKind.SUSHI_GO
    """The game a quick match asks for (g switches it)."""
    table: TableInfo | None = None
    """Our table (seated or watching)."""
    seat: int | None = None

    # -- the game -----------------------------------------------------------------------------
    names: tuple[str, ...] = ()
    """Display names in seat order."""
    observation: Observation | None = None
    deadline: float | None = None
    """When the turn timer runs out, on the `now` clock; None: no timer."""
    picking: bool = False
    """A turn is waiting for our pick."""
    my_pick: Action | None = None
    """What we committed to this turn."""
    commits: list[str] = field(default_factory=list)
    """Per seat this turn: "" (choosing), "picked", "committed", "auto" or "revealed"."""
    cursor: int = 0
    """The hand card under the cursor."""
    marked: list[int] = field(default_factory=list)
    """Hand indices marked for the pick, in order (two with chopsticks)."""
    dummy_index: int | None = None
    """The hand index given to the dummy (when we control it)."""
    round_scores: list[RoundScored] = field(default_factory=list)
    final: GameOver | RollGameOverEvent | None = None
    """The game's end (either game's: totals, places and winners alike)."""
    summary: str | None = None
    """The summary shown over the game: "round" or "game"; None when dismissed."""
    log: deque[Fragments] = field(default_factory=lambda: deque(maxlen=200))
    chat: deque[Fragments] = field(default_factory=lambda: deque(maxlen=100))
    _deferred: list[Fragments] = field(default_factory=list)
    """Log lines held back until the round's scores are logged."""

    # -- Sushi Roll ---------------------------------------------------------------------------
    kind: GameKind = GameKind.SUSHI_GO
    """The game on screen (from GAME_STARTING, or the table's settings)."""
    roll: RollObservation | None = None
    """The dice table, seen from our seat (nil seat when watching)."""
    roll_moving: bool = False
    """It is our move and the server is not busy with an action of ours."""
    roll_pending: RollAction | None = None
    """Our action sent and not answered yet."""
    dice: DiceChoice = field(default_factory=DiceChoice)
    """The cursor, the dice marked for a re-roll and the swap being chosen."""
    roll_rounds: list[RollRoundScored] = field(default_factory=list)
    """Each Sushi Roll round's scores so far."""
    roll_turn: tuple[int, int, int | None] | None = None
    """(round, cycle, seat to move) of the last ROLL_TURN."""
    roll_did: dict[int, str] = field(default_factory=dict)
    """Per seat, what it did last this cycle ("took salmon"), for the belts' status column."""

    # -- the frame ----------------------------------------------------------------------------
    show_help: bool = False
    confirm_quit: bool = False
    chatting: bool = False
    status: str = ""
    status_error: bool = False
    reconnecting: bool = False
    reconnects: int = 0
    """Times the connection was taken back."""
    own_fairness: Fairness = field(default_factory=Fairness)
    """Used when there is no client (rendering tests)."""
    listeners: list[Callable[[], None]] = field(default_factory=list)
    spawn: Callable[[Coroutine[Any, Any, None]], None] | None = None
    """Runs a network operation in the background (installed by the app)."""
    version: int = 0
    """Counts changes."""

    # -- notification -------------------------------------------------------------------------

    def notify(self) -> None:
        """Something changed: redraw, and wake whoever waits."""
        self.version += 1
        for listener in list(self.listeners):
            listener()

    def say(self, text: str, error: bool = False) -> None:
        """Put a message in the status line."""
        self.status, self.status_error = text, error
        self.notify()

    # -- derived ------------------------------------------------------------------------------

    @property
    def fairness(self) -> Fairness:
        """What has been verified of this game."""
        return self.client.fairness if self.client is not None else self.own_fairness

    @property
    def in_game(self) -> bool:
        """The game screen is up (a game runs, or its end is still shown)."""
        return self.observation is not None or self.roll is not None or self.final is not None

    @property
    def is_roll(self) -> bool:
        """The game on screen is Sushi Roll."""
        return self.kind == GameKind.SUSHI_ROLL

    @property
    def hand(self) -> tuple[Card, ...]:
        obs = self.observation
        return obs.hand if obs is not None else ()

    @property
    def me(self) -> TableauView | None:
        """Our own tableau, when seated in a game."""
        obs = self.observation
        if obs is None or obs.seat is None:
            return None
        return obs.tableaus[obs.seat]

    @property
    def controls_dummy(self) -> bool:
        obs = self.observation
        return obs is not None and obs.seat is not None and obs.dummy_controller == obs.seat

    @property
    def is_host(self) -> bool:
        client = self.client
        return self.table is not None and client is not None and self.table.host == client.player_id

    def name_of(self, tableau: int, short: bool = False) -> str:
        """A tableau's owner: "you", a player's name, or "dummy". Server bots ("greedy-bot-2")
        show as "greedy-bot2", or "bot2" when `short`."""
        obs = self.observation
        if obs is not None and tableau >= obs.players and not self.is_roll:
            return "dummy"
        if tableau == self.seat and self.seat is not None:
            return "you"
        if tableau < len(self.names):
            name = self.names[tableau]
            bot = re.fullmatch(r"(.*)-bot-(\d+)", name)
            if bot is None:
                return name
            return f"bot{bot.group(2)}" if short else f"{bot.group(1)[:7]}-bot{bot.group(2)}"
        return f"seat {tableau + 1}"

    # -- the hand -----------------------------------------------------------------------------

    def _clear_choice(self) -> None:
        self.marked.clear()
        self.dummy_index = None
        self.cursor = 0

    def move(self, delta: int) -> None:
        """Move the cursor through the hand (wrapping)."""
        if self.hand:
            self.cursor = (self.cursor + delta) % len(self.hand)
            self.notify()

    def select(self, index: int) -> None:
        """Put the cursor on hand card `index` (from 0), as a number key does."""
        if index < len(self.hand):
            self.cursor = index
            self.notify()
        else:
            self.say(f"there is no card {index + 1} in your hand", error=True)

    def toggle_mark(self) -> None:
        """Add the card under the cursor to the pick, or take it out (order kept)."""
        if not self.hand:
            return
        index = self.cursor
        if index in self.marked:
            self.marked.remove(index)
            self.say(self.describe_choice())
            return
        if len(self.marked) >= 2:
            self.say("two cards are marked already: space on one of them unmarks it", error=True)
            return
        if self.dummy_index == index:
            self.dummy_index = None
        self.marked.append(index)
        me = self.me
        if len(self.marked) == 2 and (me is None or not me.chopsticks_ready):
            self.say(
                "two cards need chopsticks played on an earlier turn: Enter will refuse this",
                error=True,
            )
            return
        self.say(self.describe_choice())

    def toggle_dummy(self) -> None:
        """Give the card under the cursor to the dummy, or take it back."""
        if not self.controls_dummy:
            self.say("you do not control the dummy this turn", error=True)
            return
        index = self.cursor
        if self.dummy_index == index:
            self.dummy_index = None
        else:
            if index in self.marked:
                self.marked.remove(index)
            self.dummy_index = index
        self.say(self.describe_choice())

    def describe_choice(self) -> str:
        """What Enter would play now, in words."""
        hand = self.hand
        if not hand:
            return ""
        picks = self.marked or [self.cursor]
        text = " then ".join(SHORT[hand[i]] for i in picks if i < len(hand))
        if self.dummy_index is not None and self.dummy_index < len(hand):
            text += f"; dummy gets {SHORT[hand[self.dummy_index]]}"
        return f"pick: {text} (Enter plays it)"

    def chosen_action(self) -> tuple[Action | None, str]:
        """The action Enter would commit, or None and the reason it cannot be played."""
        obs = self.observation
        if obs is None or self.final is not None or obs.is_over:
            return None, "no game is running"
        if obs.seat is None:
            return None, "you are watching: spectators do not pick"
        if self.my_pick is not None:
            return None, f"you picked {self.my_pick.describe()} already: waiting for the others"
        if not self.picking:
            return None, "not your turn to pick: wait for the next turn"
        hand = obs.hand
        if not hand:
            return None, "your hand is empty"
        picks = list(self.marked) or [self.cursor]
        if any(i >= len(hand) for i in picks):
            return None, "that card is no longer in your hand"
        me = obs.tableaus[obs.seat]
        if len(picks) == 2 and not me.chopsticks_ready:
            return None, (
                "two cards need chopsticks played on an earlier turn (space unmarks a card)"
            )
        dummy: Card | None = None
        if self.controls_dummy:
            if self.dummy_index is None:
                return None, "you control the dummy: put the cursor on a card and press d for it"
            if self.dummy_index in picks:
                return None, "the dummy's card cannot be yours too"
            dummy = hand[self.dummy_index]
        action = Action(hand[picks[0]], hand[picks[1]] if len(picks) == 2 else None, dummy)
        if action not in obs.legal_actions():
            return None, f"{action.describe()} is not a legal pick now"
        return action, ""

    def picked(self, action: Action) -> None:
        """Our pick was committed."""
        self.my_pick = action
        self.picking = False
        if self.seat is not None and self.seat < len(self.commits):
            self.commits[self.seat] = "picked"
        self.say(f"you picked {action.describe()}: waiting for the others")

    # -- server messages ----------------------------------------------------------------------

    def apply(self, msg: Message) -> None:
        """Take in one server message and redraw."""
        if isinstance(msg, TableList):
            self.tables = msg.tables
            self.table_cursor = min(self.table_cursor, max(0, len(msg.tables) - 1))
        elif isinstance(msg, TableJoined):
            self.table, self.seat = msg.table, msg.seat
            self.form = None
            self._log([("", f"joined table {msg.table.table_id} at seat {msg.seat + 1}")])
        elif isinstance(msg, Spectating):
            self.table, self.seat = msg.table, None
            self._log([("", f"watching table {msg.table.table_id}")])
        elif isinstance(msg, TableUpdate):
            self._table_update(msg.table)
        elif isinstance(msg, TableLeft):
            self.left_table()
            self.status, self.status_error = f"left the table. {msg.reason}".strip(), False
        elif isinstance(msg, ChatMessage):
            self.chat.append([("class:chat.name", f"{msg.name}: "), ("", msg.text)])
        elif isinstance(msg, GameStarting):
            self._game_starting(msg)
        elif isinstance(msg, GameStarted):
            self._log([("class:log.dim", "seeds in: the deal is fixed and will be verified")])
        elif isinstance(msg, TurnStart):
            self._turn_start(msg.observation, msg.deadline_ms)
        elif isinstance(msg, Commitments):
            self._commitments(msg)
        elif isinstance(msg, TurnResult):
            self._turn_result(msg.round, msg.turn, msg.openings, msg.events)
        elif isinstance(msg, RoundScores):
            self.record_round(msg.event())
        elif isinstance(msg, GameEnded):
            self.record_game_over(GameOver(msg.pudding_points, msg.totals, msg.places, msg.winners))
        elif isinstance(msg, RollTurn):
            self._roll_turn(msg)
        elif isinstance(msg, RollUpdate):
            self._roll_update(msg)
        elif isinstance(msg, RollRoundScores):
            self.record_roll_round(msg.event())
        elif isinstance(msg, RollGameOver):
            self.record_game_over(
                RollGameOverEvent(
                    msg.pudding_points, msg.token_bonus, msg.totals, msg.places, msg.winners
                )
            )
        elif isinstance(msg, Error):
            if self.roll_pending is not None and (
                self.client is None or self.client.roll_pending is None
            ):
                # Our action was refused (it changed nothing): we may choose again.
                self.roll_pending = None
                self.roll_moving = self.roll is not None and self.roll.to_move == self.seat
            self.status, self.status_error = f"server: {msg.message}", True
        self.notify()

    def left_table(self) -> None:
        """We are back in the lobby: no table, no game on screen."""
        self.table = self.observation = self.final = self.roll = None
        self.seat, self.summary, self.picking = None, None, False
        self.roll_moving, self.roll_pending = False, None
        self.dice.reset()

    def _table_update(self, table: TableInfo) -> None:
        if self.table is not None and self.table.table_id == table.table_id:
            self.table = table
        self.tables = tuple(table if t.table_id == table.table_id else t for t in self.tables)

    def _game_starting(self, msg: GameStarting) -> None:
        self.names, self.seat = msg.players, msg.seat
        self.observation, self.final, self.summary = None, None, None
        self.round_scores = []
        self.commits = [""] * len(msg.players)
        self.my_pick, self.picking = None, False
        self.kind, self.roll, self.roll_rounds, self.roll_turn = msg.kind, None, [], None
        self.roll_moving, self.roll_pending, self.roll_did = False, None, {}
        self.dice.reset()
        self.form = None
        title = GAME_TITLES.get(msg.kind, str(msg.kind))
        self._log([("class:log.round", f"{title} starting: " + ", ".join(msg.players))])

    def _turn_start(self, obs: Observation, deadline_ms: int) -> None:
        self._flush_deferred()
        old = self.observation
        if old is None or (old.round, old.turn) != (obs.round, obs.turn):
            self._clear_choice()
            self.my_pick = None
        self.observation = obs
        self.seat = obs.seat
        if not self.names:
            self.names = tuple(f"seat {i + 1}" for i in range(obs.players))
        self.commits = [""] * obs.players
        self.picking = obs.seat is not None and not obs.is_over
        self.deadline = self.now() + deadline_ms / 1000 if deadline_ms else None
        self.cursor = min(self.cursor, max(0, len(obs.hand) - 1))
        self.status, self.status_error = "", False

    def _commitments(self, msg: Commitments) -> None:
        self.commits = ["auto" if c is None else "committed" for c in msg.commitments]
        self.deadline = None
        if self.picking and self.my_pick is None:
            self.picking = False
            self.status, self.status_error = "time ran out: the server picked for you", True

    def _turn_result(
        self, round_: int, turn: int, openings: tuple[Opening, ...], events: tuple[Event, ...]
    ) -> None:
        self.commits = ["auto" if o.auto else "revealed" for o in openings]
        self.picking = False
        line: Fragments = [("class:log.dim", f"R{round_}T{turn} ")]
        for seat, opening in enumerate(openings):
            if seat:
                line.append(("", " "))
            line.append(("class:log.name", f"{self.name_of(seat, short=True)[:8]}:"))
            line.extend(action_fragments(opening.action))
            if opening.auto:
                line.append(("class:log.dim", "(auto)"))
        self._log(line)
        for event in events:
            if isinstance(event, WasabiUsed):
                self._log(
                    [
                        ("class:log.name", f"{self.name_of(event.tableau)}: "),
                        (card_style(event.card), SHORT[event.card]),
                        ("class:card.wasabi", " on wasabi, x3"),
                    ]
                )
            elif isinstance(event, ChopsticksReturned):
                self._log(
                    [
                        ("class:log.name", f"{self.name_of(event.seat)} "),
                        ("class:card.chopsticks", "used chopsticks"),
                        ("", " (back into the hand)"),
                    ]
                )
            elif isinstance(event, RoundStarted):
                # Logged after the round's scores, which come in their own message next.
                way = "left" if event.pass_direction > 0 else "right"
                self._deferred.append(
                    [
                        (
                            "class:log.round",
                            f"round {event.round}: {event.hand_size} cards each, passing {way}",
                        )
                    ]
                )

    def record_round(self, event: RoundScored) -> None:
        """A round was scored: keep it and show the round summary."""
        self.round_scores = [r for r in self.round_scores if r.round != event.round] + [event]
        self.summary = "round"
        text = "  ".join(
            f"{self.name_of(t, short=True)[:8]} {total}" for t, total in enumerate(event.totals)
        )
        self._log([("class:log.round", f"round {event.round} scored: "), ("", text)])
        self._flush_deferred()

    def record_game_over(self, event: GameOver | RollGameOverEvent) -> None:
        """The game ended: show the final summary (and the seed check, by now complete)."""
        self.final = event
        self.summary = "game"
        self.picking, self.deadline = False, None
        self.roll_moving, self.roll_pending = False, None
        names = ", ".join(self.name_of(s) for s in event.winners)
        verb = "share the win" if len(event.winners) > 1 else "wins"
        if event.winners == (self.seat,):
            verb = "win"
        self._log([("class:log.round", f"game over: {names} {verb}")])
        self.status, self.status_error = f"game over: {names} {verb}", False

    def resumed(self, reply: Resumed) -> None:
        """The connection was taken back: pick up the seat where it was."""
        client = self.client
        self.reconnecting = False
        self.reconnects += 1
        if client is not None and (self.is_roll or client.game_kind == GameKind.SUSHI_ROLL):
            self.table, self.seat = client.table, client.seat
            self.kind = GameKind.SUSHI_ROLL
            if client.roll_observation is not None:
                self.roll = client.roll_observation
                self.dice.fit(self.roll)
            self.roll_pending = None
            self.roll_moving = client.proto.phase is Phase.ROLL_MOVING
            snap = reply.snapshot
            if snap is not None and snap.deadline_ms:
                self.deadline = self.now() + snap.deadline_ms / 1000
        elif client is not None:
            self.table, self.seat = client.table, client.seat
            obs = client.observation
            if obs is not None and self.observation is not None:
                old = self.observation
                if (old.round, old.turn) != (obs.round, obs.turn):
                    self._clear_choice()
                    self.my_pick = None
                self.observation = obs
            self.picking = client.proto.phase is Phase.COMMITTING and self.my_pick is None
            snap = reply.snapshot
            if snap is not None and snap.deadline_ms:
                self.deadline = self.now() + snap.deadline_ms / 1000
        where = f" at seat {self.seat + 1}" if self.seat is not None else ""
        self.say(f"reconnected: the session is back{where}")

    # -- Sushi Roll ---------------------------------------------------------------------------

    def _short_name(self, seat: int) -> str:
        return self.name_of(seat, short=True)[:12]

    @property
    def roll_me(self) -> PlayerView | None:
        """Our own place at the dice table, when seated in a Sushi Roll game."""
        obs = self.roll
        if obs is None or obs.seat is None:
            return None
        return obs.players[obs.seat]

    def roll_table(self) -> Table | None:
        """What the dice keys see (None: no dice game on screen)."""
        obs = self.roll
        if obs is None:
            return None
        moving = self.roll_moving and self.final is None
        return Table(obs, moving, self.roll_pending, self.name_of)

    def roll_key(self, intent: Intent, index: int = 0) -> RollAction | None:
        """One key of the dice screen: move, mark, choose a swap; returns the action to send when
        the key plays one (already checked legal), else None (the status line says why)."""
        table = self.roll_table()
        if table is None:
            self.say("no game is running", error=True)
            return None
        outcome = self.dice.key(table, intent, index)
        self.say(outcome.text, error=outcome.error)
        return outcome.action

    def rolled(self, action: RollAction) -> None:
        """Our action was sent: wait for the server's answer."""
        self.roll_pending = action
        self.notify()

    def _roll_turn(self, msg: RollTurn) -> None:
        self._flush_deferred()
        obs = msg.observation
        turn = (obs.round, obs.cycle, obs.to_move)
        new_turn, previous, self.roll_turn = turn != self.roll_turn, self.roll_turn, turn
        if previous is None or previous[0] != obs.round:
            self.roll_did = {}  # a new round: last round's trays are gone
        elif new_turn and obs.to_move is not None:
            self.roll_did.pop(obs.to_move, None)
        self.roll = obs
        self.seat = obs.seat
        if not self.names:  # watching a game under way: its start (with the names) was not shown
            seats = self.table.seats if self.table is not None else ()
            self.names = tuple(
                (seats[i].name if i < len(seats) else None) or f"seat {i + 1}"
                for i in range(obs.player_count)
            )
        self.kind = GameKind.SUSHI_ROLL
        self.roll_moving = msg.moving
        self.roll_pending = None
        if msg.moving and new_turn:
            self.dice.swap_from = self.dice.swap_seat = None
        self.dice.fit(obs)
        self.deadline = self.now() + msg.deadline_ms / 1000 if msg.deadline_ms else None
        if new_turn:  # the same turn again (after a resume) keeps what the status line says
            self.status, self.status_error = "", False

    def _roll_update(self, msg: RollUpdate) -> None:
        before = self.roll
        obs = dataclasses.replace(msg.observation, seat=self.seat)
        where = f"R{msg.round}C{msg.cycle}"
        now, later = update_lines(before, msg.seat, msg.events, msg.auto, self._short_name, where)
        for line in now:
            self._log(line)
        self._deferred.extend(later)
        mine = msg.seat == self.seat and self.seat is not None
        action = msg.action
        verb = action.describe()
        if isinstance(action, Take) and before is not None:
            belt = before.players[msg.seat].belt
            if action.position < len(belt):
                verb = f"took {FACE_SHORT[belt[action.position].face]}"
        self.roll_did[msg.seat] = verb + (" (auto)" if msg.auto else "")
        self.roll = obs
        if mine:
            self.roll_pending = None
            self.roll_moving = not msg.ends_turn
            if msg.auto and msg.ends_turn:
                self.status, self.status_error = "time ran out: the server took a die for you", True
            elif msg.auto:
                self.status, self.status_error = f"the server played {verb} for you", True
            if msg.ends_turn or type(action) is not Take:
                # Our belt changed under the choice: positions no longer mean the same dice.
                self.dice.marked.clear()
                self.dice.swap_from = self.dice.swap_seat = None
            if msg.ends_turn:
                self.dice.cursor = 0
                self.deadline = None
        elif (
            before is not None
            and self.seat is not None
            and len(before.players[self.seat].belt) != len(obs.players[self.seat].belt)
        ):
            self.dice.marked.clear()  # the belts slid: other dice now
        self.dice.fit(obs)

    def record_roll_round(self, event: RollRoundScored) -> None:
        """A Sushi Roll round was scored: keep it and show the round summary."""
        self.roll_rounds = [r for r in self.roll_rounds if r.round != event.round] + [event]
        self.summary = "round"
        text = "  ".join(
            f"{self.name_of(s, short=True)[:8]} {total}" for s, total in enumerate(event.totals)
        )
        self._log([("class:log.round", f"round {event.round} scored: "), ("", text)])
        self._flush_deferred()

    def _log(self, line: Fragments) -> None:
        self.log.append(line)

    def _flush_deferred(self) -> None:
        for line in self._deferred:
            self._log(line)
        self._deferred.clear()


def action_fragments(action: Action) -> Fragments:
    """An action in the log: short card names in their colours."""
    out: Fragments = [(card_style(action.first), SHORT[action.first])]
    if action.second is not None:
        out += [("", "+"), (card_style(action.second), SHORT[action.second])]
    if action.dummy is not None:
        out += [("class:log.dim", " dummy:"), (card_style(action.dummy), SHORT[action.dummy])]
    return out
