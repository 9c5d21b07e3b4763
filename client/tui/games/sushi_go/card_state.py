"""Sushi Go!'s board as state: the hand, the choice of a pick (chopsticks' two cards in order,
the dummy's card), the card game's words in the log and its scores. How it looks is
`card_board`'s."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from prompt_toolkit.filters import Filter
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from sushigo.client.tui.board import Fragments, Shell
from sushigo.client.tui.observed import ObservedBoard
from sushigo.engine import (
    Action,
    Card,
    GameOver,
    Observation,
    RoundPoints,
    RoundScored,
    TableauView,
)
from sushigo.engine.games.sushi_go.events import ChopsticksReturned, RoundStarted, WasabiUsed
from sushigo.engine.games.sushi_go.observation import wasabi_placements
from sushigo.protocol import TurnResult

from .cards import SHORT, card_style

__all__ = ["CardState", "action_fragments", "after_picks"]


class CardState(ObservedBoard[Observation, TableauView]):
    """The card game on screen, but for drawing."""

    def __init__(self, shell: Shell, kind: str) -> None:
        super().__init__(shell, kind)
        self.marked: list[int] = []
        """Hand indices marked for the pick, in order (two with chopsticks)."""
        self.dummy_index: int | None = None
        """The hand index given to the dummy (when we control it)."""
        self.round_scores: list[RoundScored[RoundPoints]] = []
        self.game_over: GameOver | None = None
        """The game's end as the rules tell it (the puddings' points with the totals)."""

    # -- what the game shows ---------------------------------------------------------------------

    @property
    def hand(self) -> tuple[Card, ...]:
        obs = self.obs
        return obs.hand if obs is not None else ()

    def seat_views(self, obs: Observation) -> tuple[TableauView, ...]:
        """Every tableau (the seats', then the dummy's)."""
        return obs.tableaus

    @property
    def controls_dummy(self) -> bool:
        obs = self.obs
        return obs is not None and obs.seat is not None and obs.dummy_controller == obs.seat

    def seat_name(self, seat: int) -> str | None:
        obs = self.obs
        return "dummy" if obs is not None and seat >= obs.players else None

    # -- the choice ------------------------------------------------------------------------------

    def new_step(self) -> None:
        self.marked.clear()
        self.dummy_index = None
        self.cursor = 0

    def fit(self) -> None:
        self.cursor = min(self.cursor, max(0, len(self.hand) - 1))

    def move(self, delta: int) -> None:
        """Move the cursor through the hand (wrapping)."""
        if self.hand:
            self.cursor = (self.cursor + delta) % len(self.hand)
            self.shell.notify()

    def select(self, index: int) -> None:
        """Put the cursor on hand card `index` (from 0), as a number key does."""
        if index < len(self.hand):
            self.cursor = index
            self.shell.notify()
        else:
            self.shell.say(f"there is no card {index + 1} in your hand", error=True)

    def toggle_mark(self) -> None:
        """Add the card under the cursor to the pick, or take it out (order kept)."""
        if not self.hand:
            return
        index = self.cursor
        if index in self.marked:
            self.marked.remove(index)
            self.shell.say(self.describe_choice())
            return
        if len(self.marked) >= 2:
            self.shell.say(
                "two cards are marked already: space on one of them unmarks it", error=True
            )
            return
        if self.dummy_index == index:
            self.dummy_index = None
        self.marked.append(index)
        me = self.me
        if len(self.marked) == 2 and (me is None or not me.chopsticks_ready):
            self.shell.say(
                "two cards need chopsticks played on an earlier turn: Enter will refuse this",
                error=True,
            )
            return
        self.shell.say(self.describe_choice())

    def toggle_dummy(self) -> None:
        """Give the card under the cursor to the dummy, or take it back."""
        if not self.controls_dummy:
            self.shell.say("you do not control the dummy this turn", error=True)
            return
        index = self.cursor
        if self.dummy_index == index:
            self.dummy_index = None
        else:
            if index in self.marked:
                self.marked.remove(index)
            self.dummy_index = index
        self.shell.say(self.describe_choice())

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
        obs = self.obs
        if obs is None or self.final is not None or obs.is_over:
            return None, "no game is running"
        if obs.seat is None:
            return None, "you are watching: spectators do not pick"
        if self.my_pick is not None:
            return None, f"you picked {self.my_pick.describe()} already: waiting for the others"
        if not self.waiting:
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

    def make_key_bindings(self, playing: Filter) -> KeyBindings:
        """Move through the hand, mark, give the dummy a card, play."""
        kb = KeyBindings()

        @kb.add("up", filter=playing)
        @kb.add("left", filter=playing)
        @kb.add("k", filter=playing)
        def _prev(event: KeyPressEvent) -> None:
            self.move(-1)

        @kb.add("down", filter=playing)
        @kb.add("right", filter=playing)
        @kb.add("j", filter=playing)
        def _next(event: KeyPressEvent) -> None:
            self.move(1)

        for digit in "1234567890":

            @kb.add(digit, filter=playing)
            def _select(event: KeyPressEvent, index: int = (int(digit) + 9) % 10) -> None:
                self.select(index)

        @kb.add("space", filter=playing)
        def _mark(event: KeyPressEvent) -> None:
            self.toggle_mark()

        @kb.add("d", filter=playing)
        def _dummy(event: KeyPressEvent) -> None:
            self.toggle_dummy()

        @kb.add("enter", filter=playing)
        def _play(event: KeyPressEvent) -> None:
            self.play_chosen()

        return kb

    # -- game messages ---------------------------------------------------------------------------

    def turn_result(self, msg: TurnResult) -> None:
        """The picks are open: the board shows them played (every tableau with its card, our
        hand without it, a scored round's totals) until the next turn's start replaces it. After
        a game's last turn no start follows, so the game-over screen is this view."""
        super().turn_result(msg)
        obs = self.obs
        if obs is not None:
            actions = [opening.action for opening in msg.openings]
            scored = [e for e in msg.events if isinstance(e, RoundScored)]
            self.observation = after_picks(
                obs, self.acting, actions, scored[-1] if scored else None
            )

    # -- the log ---------------------------------------------------------------------------------

    def action_fragments(self, action: Any) -> Fragments:
        return action_fragments(action)

    def event(self, event: Any) -> None:
        shell = self.shell
        if isinstance(event, WasabiUsed):
            shell.log_line(
                [
                    ("class:log.name", f"{shell.name_of(event.tableau)}: "),
                    (card_style(event.card), SHORT[event.card]),
                    ("class:card.wasabi", " on wasabi, x3"),
                ]
            )
        elif isinstance(event, ChopsticksReturned):
            shell.log_line(
                [
                    ("class:log.name", f"{shell.name_of(event.seat)} "),
                    ("class:card.chopsticks", "used chopsticks"),
                    ("", " (back into the hand)"),
                ]
            )
        elif isinstance(event, RoundScored):
            self.round_scores = [r for r in self.round_scores if r.round != event.round]
            self.round_scores.append(event)
            shell.summary = "round"
            text = "  ".join(
                f"{shell.name_of(t, short=True)[:8]} {total}"
                for t, total in enumerate(event.totals)
            )
            shell.log_line([("class:log.round", f"round {event.round} scored: "), ("", text)])
        elif isinstance(event, RoundStarted) and event.round > 1:
            way = "left" if event.pass_direction > 0 else "right"
            shell.log_line(
                [
                    (
                        "class:log.round",
                        f"round {event.round}: {event.hand_size} cards each, passing {way}",
                    )
                ]
            )
        elif isinstance(event, GameOver):
            self.game_over = event


def action_fragments(action: Action) -> Fragments:
    """An action in the log: short card names in their colours."""
    out: Fragments = [(card_style(action.first), SHORT[action.first])]
    if action.second is not None:
        out += [("", "+"), (card_style(action.second), SHORT[action.second])]
    if action.dummy is not None:
        out += [("class:log.dim", " dummy:"), (card_style(action.dummy), SHORT[action.dummy])]
    return out


def after_picks(
    obs: Observation,
    seats: Sequence[int],
    actions: Sequence[Action],
    scored: RoundScored[RoundPoints] | None = None,
) -> Observation:
    """`obs` with the revealed `actions` of `seats` played: each card on its tableau (a used
    chopsticks card back in the hand, the dummy's card on its tableau), our hand and every hand's
    size without them, and, when the turn ended a round (`scored`), its totals. The next deal is
    not known here: what the next turn's start shows, this only plays out the one turn."""
    tableaus = list(obs.tableaus)
    hand = list(obs.hand)
    for seat, action in zip(seats, actions, strict=False):
        if seat >= len(tableaus):
            continue
        view = tableaus[seat]
        cards = [*view.cards, action.first]
        played = [action.first]
        if action.second is not None:
            cards.append(action.second)
            played.append(action.second)
            if Card.CHOPSTICKS in cards:
                cards.remove(Card.CHOPSTICKS)  # the oldest: played on an earlier turn
        if action.dummy is not None:
            played.append(action.dummy)
            dummy = len(tableaus) - 1
            if dummy != seat and tableaus[dummy].is_dummy:
                tableaus[dummy] = _with_cards(
                    tableaus[dummy], [*tableaus[dummy].cards, action.dummy]
                )
        if seat == obs.seat:
            for card in played:
                if card in hand:
                    hand.remove(card)
            if action.second is not None:
                hand.append(Card.CHOPSTICKS)
        size = max(0, view.hand_size - 1 - (action.dummy is not None))
        tableaus[seat] = _with_cards(view, cards, size)
    if scored is not None:
        tableaus = [
            dataclasses.replace(
                view,
                score=scored.totals[t],
                round_scores=(*view.round_scores, scored.points[t].total),
            )
            if t < len(scored.totals)
            else view
            for t, view in enumerate(tableaus)
        ]
    return dataclasses.replace(obs, hand=tuple(sorted(hand)), tableaus=tuple(tableaus))


def _with_cards(view: TableauView, cards: list[Card], hand_size: int | None = None) -> TableauView:
    """`view` holding `cards` (in play order), with what follows from them."""
    on_wasabi, open_wasabi = wasabi_placements(tuple(cards))
    size = view.hand_size if hand_size is None else hand_size
    puddings = view.puddings + cards.count(Card.PUDDING) - view.cards.count(Card.PUDDING)
    return dataclasses.replace(
        view,
        cards=tuple(cards),
        on_wasabi=on_wasabi,
        open_wasabi=open_wasabi,
        puddings=puddings,
        hand_size=size,
        chopsticks_ready=not view.is_dummy and size > 0 and Card.CHOPSTICKS in cards,
    )
