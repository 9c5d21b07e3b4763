"""Sushi Go! in the replay viewer: every seat's hand with its picks bracketed, its tableau, its
score (the game is over, so nothing is hidden)."""

from __future__ import annotations

from typing import Any

from sushigo.client.tui.board import Fragments
from sushigo.client.tui.replay_draw import ReplayDrawer
from sushigo.engine import Action, Card, Observation, TableauView
from sushigo.engine.games.sushi_go.cards import MAKI_ICONS
from sushigo.protocol import GameEnded

from .card_board import tableau_fragments
from .cards import SHORT, card_style


class CardDrawer(ReplayDrawer):
    """Sushi Go!: every seat's hand with its picks bracketed, its tableau, its score."""

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
