"""How each game looks in the replay viewer: every seat at one moment of a finished game, what it
chose there, and what the step before did, drawn through the game's own board where it fits.

The game is over, so nothing is hidden: the card game shows every hand (the cards each seat
picks from are bracketed in it), every tableau and the picks; Sushi Roll, whose belts are public
anyway, shows the table through its board (`roll_board.RollBoard.players`) from the mover's seat,
so the dice it re-rolls or swaps carry the board's own marks. A game without a drawer of its own
gets the plain one: the rules' words for every seat's action. The boards' log lines and final
tables come through a `ReplayShell`, which stands in for the terminal client's shell.
"""

from __future__ import annotations

from typing import Any, ClassVar

from sushigo.client.checks import Fairness
from sushigo.client.connection import Client
from sushigo.engine import Action, Card, Observation, TableauView
from sushigo.engine.games.sushi_go.cards import MAKI_ICONS
from sushigo.engine.games.sushi_roll import Reroll, RollObservation, Swap, Take
from sushigo.protocol import GameEnded, SignedRecord

from .board import Board, Fragments, board_class, player_label
from .games.sushi_go.card_board import CardBoard, tableau_fragments
from .games.sushi_go.cards import SHORT, card_style
from .games.sushi_roll.dice import FACE_SHORT
from .games.sushi_roll.roll import die_fragment, update_lines
from .games.sushi_roll.roll_board import RollBoard
from .replay_state import Replay

__all__ = ["ReplayDrawer", "ReplayShell", "drawer_for"]

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

    board_type: ClassVar[type[Board]] = Board

    def __init__(self, replay: Replay) -> None:
        self.replay = replay
        self.shell = ReplayShell(replay.names)
        self.board = self.shell.board = self.board_type(self.shell, replay.record.game)
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
        return _lines(self.shell.lines)

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


class CardDrawer(ReplayDrawer):
    """Sushi Go!: every seat's hand with its picks bracketed, its tableau, its score."""

    board_type = CardBoard

    def where(self) -> str:
        obs: Observation = self.replay.game.observation(None)
        if self.replay.step is None:
            return super().where()
        way = "passing left →" if obs.pass_direction > 0 else "← passing right"
        return f"round {obs.round}/3 · turn {obs.turn}/{obs.options.hand_size} · {way}"

    def seats(self) -> Fragments:
        replay = self.replay
        final = self._at_end()
        game = replay.game
        picks = replay.picks()
        public: Observation = game.observation(None)
        self.board.observation = public  # its final table reads the options (soy sauce)
        out: Fragments = []
        for t, view in enumerate(public.tableaus):
            if t:
                out.append(("", "\n"))
            if view.is_dummy:
                out += self._head(t, "dummy", view, final)
                out += [("class:dim", "table "), *tableau_fragments(view)]
                continue
            name = self.shell.name_of(t)
            if public.dummy_controller == t and final is None:
                name = name[:9] + "(D)"
            hand = game.observation(t).hand
            out += self._head(t, name, view, final)
            out += self.status(t, picks)
            if hand:
                action = picks.get(t, (None, False))[0]
                out += [("", "\n"), ("class:dim", "   hand  "), *_hand(hand, action)]
            out += [("", "\n"), ("class:dim", "   table "), *tableau_fragments(view)]
        return out

    def _head(self, t: int, name: str, view: TableauView, final: GameEnded | None) -> Fragments:
        score = final.totals[t] if final is not None and t < len(final.totals) else view.score
        return [
            ("class:title", f" {name[:13]:<13}"),
            ("", f"{score:>4}pt  pud {view.puddings:<2} "),
        ]

    def action(self, action: Any) -> Fragments:
        return _card_action(action)


def _hand(hand: tuple[Card, ...], action: Action | None) -> Fragments:
    """A hand, each card by name, the cards of `action` bracketed."""
    picked = [] if action is None else [action.first, action.second, action.dummy]
    out: Fragments = []
    for card in hand:
        if card in picked:
            picked.remove(card)
            out.append(("class:cursor " + card_style(card), f"[{_name(card)}]"))
        else:
            out.append((card_style(card), _name(card)))
        out.append(("", " "))
    return out


def _name(card: Card) -> str:
    """A card's short name; a maki with its icons, as a choice between them matters."""
    return f"maki{MAKI_ICONS[card]}" if card in MAKI_ICONS else SHORT[card]


def _card_action(action: Action) -> Fragments:
    """A pick: its cards by short name in their colours, the dummy's card after."""
    out: Fragments = [(card_style(action.first), _name(action.first))]
    if action.second is not None:
        out += [("", "+"), (card_style(action.second), _name(action.second))]
    if action.dummy is not None:
        out += [("class:dim", " dummy:"), (card_style(action.dummy), _name(action.dummy))]
    return out


class RollDrawer(ReplayDrawer):
    """Sushi Roll: the dice table through its board, seen from the seat that moves, with what
    it does and what each seat took this cycle."""

    board_type = RollBoard

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
        return _lines([*now, *self.shell.lines, *later])


def _lines(lines: list[Fragments]) -> Fragments:
    out: Fragments = []
    for line in lines:
        if out:
            out.append(("", "\n"))
        out += line
    return out


_DRAWERS: dict[type[Board], type[ReplayDrawer]] = {CardBoard: CardDrawer, RollBoard: RollDrawer}


def drawer_for(replay: Replay) -> ReplayDrawer:
    """The drawer of the replay's game: the built-in games' own, else the plain one."""
    board = board_class(replay.record.game)
    return _DRAWERS.get(board, ReplayDrawer)(replay)
