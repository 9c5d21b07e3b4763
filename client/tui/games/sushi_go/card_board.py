"""Sushi Go!'s board as it looks: the round and pass direction, every tableau on a line, the hand
with its marks and scoring hints, and the scores by category.

Monochrome first: the cursor is reverse video and a ``▸``, marked cards carry ``[1]``/``[2]``/``[D]``.
Colour only adds.
"""

from __future__ import annotations

from sushigo.client.tui.board import MENU_WIDTH, Fragments, fit_row, panel_line, terminal_size
from sushigo.engine import Card, Observation, TableauView
from sushigo.engine.games.sushi_go.cards import MAKI_ICONS, NIGIRI_POINTS

from .card_state import CardState
from .cards import KIND_ORDER, NAMES, SHORT, card_style, family, hint

__all__ = ["HELP", "SCORING", "CardBoard", "tableau_fragments"]

HELP: Fragments = [
    ("", "Game    ↑↓←→ or 1-9, 0 move to a card · Enter play it\n"),
    ("", "        space marks cards for a chopsticks double pick, in order\n"),
    ("", "        d gives the card under the cursor to the dummy (when you control it)\n"),
]
"""The help overlay's lines on the card keys."""

SCORING: Fragments = [
    ("class:title", "Scoring\n"),
    ("", "maki most 6, second 3 · tempura pair 5 · sashimi three 10\n"),
    ("", "dumplings 1 3 6 10 15 · nigiri 1/2/3, x3 on wasabi\n"),
    ("", "pudding at game end: most +6, fewest -6 · chopsticks: 2 cards later\n"),
]
"""The help overlay's scoring lines."""

_COMMIT_WORDS = {
    "": "choosing",
    "picked": "picked",
    "committed": "committed",
    "auto": "auto",
    "revealed": "revealed",
}

_HEADS = {"maki": "maki", "tempura": "temp", "sashimi": "sash", "dumpling": "dump"}
_HEADS |= {"nigiri": "nigi", "soy_sauce": " soy"}
"""The score categories in the order of the tables' columns, and their headings."""


def tableau_fragments(view: TableauView) -> Fragments:
    """A tableau grouped by kind: maki icons summed, wasabi shown with its nigiri."""
    groups: dict[str, Fragments] = {}
    counts: dict[Card, int] = {}
    icons = 0
    open_wasabi = 0
    nigiri: list[tuple[Card, bool]] = []
    for card in view.cards:
        if card in MAKI_ICONS:
            icons += MAKI_ICONS[card]
        elif card is Card.WASABI:
            open_wasabi += 1
        elif card in NIGIRI_POINTS:
            nigiri.append((card, open_wasabi > 0))
            open_wasabi -= 1 if open_wasabi else 0
        else:
            counts[card] = counts.get(card, 0) + 1
    if icons:
        groups["maki"] = [(card_style(Card.MAKI1), f"maki:{icons}")]
    for card, n in counts.items():
        style = card_style(card)
        groups[family(card)] = [(style, SHORT[card] + (f"×{n}" if n > 1 else ""))]
    parts: Fragments = []
    for card, on_wasabi in nigiri:
        if parts:
            parts.append(("", " "))
        if on_wasabi:
            parts += [("class:card.wasabi", "W+"), (card_style(card), SHORT[card])]
        else:
            parts.append((card_style(card), SHORT[card]))
    if parts:
        groups["nigiri"] = parts
    if open_wasabi:
        groups["wasabi"] = [
            ("class:card.wasabi", "W+_" + (f"×{open_wasabi}" if open_wasabi > 1 else ""))
        ]
    out: Fragments = []
    for kind in KIND_ORDER:
        if kind in groups:
            if out:
                out.append(("", " "))
            out.extend(groups[kind])
    return out or [("class:dim", "(nothing yet)")]


class CardBoard(CardState):
    """The card game on screen."""

    help_lines = HELP
    scoring_lines = SCORING

    def draw_header(self, obs: Observation) -> Fragments:
        """Round and turn, and the way the hands pass (at the end: that the game is over)."""
        if self.final is not None:
            return [("", f" round {obs.round}/3 · game over")]
        way = "passing left →" if obs.pass_direction > 0 else "← passing right"
        return [("", f" round {obs.round}/3 · turn {obs.turn}/{obs.options.hand_size} · {way}")]

    def draw_players(self, obs: Observation) -> Fragments:
        """One line per tableau: name, score, puddings, hand size, this turn's commit, the
        cards (a long tableau goes on below itself while the screen has rows to spare)."""
        out: Fragments = []
        final = self.final
        columns = terminal_size()[0]
        spare = self.spare_rows(len(obs.tableaus), self.draw_panel(obs))
        for t, view in enumerate(obs.tableaus):
            mine = t == obs.seat
            name = self.shell.name_of(t)
            if obs.dummy_controller is not None and t == obs.dummy_controller:
                name = name[:9] + "(D)"
            if final is not None and t < len(final.places):
                status = f"place {final.places[t]}"
            elif not view.is_dummy and self.shell.seat_note(t):
                status = self.shell.seat_note(t)
            elif view.is_dummy:
                status = ""
            else:
                status = _COMMIT_WORDS.get(self.commits[t] if t < len(self.commits) else "", "")
            score = final.totals[t] if final is not None and t < len(final.totals) else view.score
            head: Fragments = [
                ("class:me" if mine else "", ("▸" if mine else " ") + f"{name[:13]:<13}"),
                ("", f"{score:>4}pt p{view.puddings:<2}h{view.hand_size:<2} "),
                ("class:dim" if status in ("choosing", "") else "", f"{status:<9}"),
                ("class:dim", "│ "),
            ]
            row, used = fit_row(head, tableau_fragments(view), columns, spare)
            spare -= used
            out += [("", "\n" if t else ""), *row]
        return out

    def draw_panel(self, obs: Observation) -> Fragments:
        """The hand: number, marks, name in its colour, and a scoring hint; the cursor
        reversed."""
        if obs.seat is None:
            return [("class:title", "Watching"), ("", "\nspectators see no hand")]
        me = obs.tableaus[obs.seat]
        title = "Your hand"
        if self.final is not None:
            title = "Game over"
        elif self.my_pick is not None:
            title = f"Picked {self.my_pick.describe()}"
        elif not self.waiting:
            title = "Your hand (waiting)"
        notes = []
        if me.chopsticks_ready:
            notes.append("chopsticks ready")
        if self.controls_dummy:
            notes.append("you pick for the dummy")
        out: Fragments = [("class:title", title[: MENU_WIDTH - 1])]
        if notes:
            out.append(("class:card.chopsticks", "\n" + ", ".join(notes)))
        for i, card in enumerate(obs.hand):
            if i in self.marked:
                mark = f"[{self.marked.index(i) + 1}]"
            elif i == self.dummy_index:
                mark = "[D]"
            else:
                mark = "[ ]" if me.chopsticks_ready or self.controls_dummy else "   "
            number = str(i + 1) if i < 9 else ("0" if i == 9 else " ")
            at_cursor = i == self.cursor and self.waiting
            style, name = card_style(card), NAMES[card]
            out += panel_line(at_cursor, number, mark, style, name, hint(card, me), focus=True)
        if not obs.hand:
            out.append(("class:dim", "\n(empty)"))
        return out

    def playing_status(self, obs: Observation) -> str:
        if self.waiting:
            if self.controls_dummy and self.dummy_index is None:
                return "your pick, and the dummy's: choose a card, d gives it to the dummy"
            return "your pick: choose a card and press Enter"
        if self.my_pick is None:
            return "waiting for the turn"
        return "waiting for the others"

    def keys(self) -> str:
        """The keys of a turn, on one line that fits the terminal (at 80 columns too, with
        chopsticks ready and the dummy to feed)."""
        parts = ["↑↓/1-9: choose", "Enter: play"]
        me = self.me
        if me is not None and me.chopsticks_ready:
            parts.insert(1, "space: mark 2")
        if self.controls_dummy:
            parts.insert(1, "d: dummy's card")
        line = " · ".join([*parts, "c: chat", "?: help", "q: quit"])
        if len(line) >= terminal_size()[0] - 1:
            line = line.replace("↑↓/1-9: choose", "↑↓/1-9").replace("dummy's card", "dummy")
        return line

    def _columns(self) -> dict[str, str]:
        obs = self.obs
        soy = obs is not None and obs.options.soy_sauce
        return _HEADS if soy else {c: h for c, h in _HEADS.items() if c != "soy_sauce"}

    def round_summary(self) -> Fragments:
        """After a round: points by category per player, the round's total and the running
        total."""
        if not self.round_scores:
            return []
        scored = self.round_scores[-1]
        maki = [p.maki for p in scored.points]
        return [
            *self.round_table(scored, self._columns()),
            *self.race("maki", maki, ("most", "second")),
        ]

    def game_summary(self) -> Fragments:
        """Points by category over the game, puddings, totals and places; who won the pudding
        race."""
        puddings = self.game_over.pudding_points if self.game_over is not None else ()
        return [
            *self.game_table(self.round_scores, self._columns(), (("pud", 5, puddings),)),
            *self.race("pudding", puddings, ("most", "fewest")),
        ]
