"""Sushi Roll's board as it looks: round, cycle and who moves; every seat's belt and tray with
its tokens; our belt die by die with marks and scoring hints; the scores by category.

Monochrome first, as for the cards: the red belt is written ``RED``, the seat to move carries
``moving``, the die under the cursor is reverse video with a ``▸``, dice marked for a re-roll carry
``[x]`` (``[S]`` for the die being swapped away), and every face is named; colour (per kind of die)
only adds.
"""

from __future__ import annotations

from sushigo.client.tui.board import MENU_WIDTH, Fragments, fit_row, panel_line, terminal_size
from sushigo.engine.games.sushi_roll import PlayerView, RollObservation

from .dice import FACE_NAMES, FACE_SHORT, die_style, face_hint, tray_fragments
from .roll_state import RollState

__all__ = ["ROLL_HELP", "ROLL_SCORING", "RollBoard"]

ROLL_HELP: Fragments = [
    ("", "Dice    ←→ or 1-8 choose a die on your belt · Enter takes it (ends turn)\n"),
    ("", "        space marks dice, r re-rolls the marked ones (1 menu token)\n"),
    ("", "        s swaps the die under the cursor: ↑↓ other belt, ←→/1-8 its die,\n"),
    ("", "        Enter swaps (1 chopsticks token), Esc cancels\n"),
]
"""The help overlay's lines on the dice keys."""


ROLL_SCORING: Fragments = [
    ("class:title", "Scoring\n"),
    ("", "maki most 6, second 3 · nigiri 1/2/3, x3 on wasabi\n"),
    ("", "1/2/3 icons: dumpling 2 4 8 · tempura 1 5 10 · sashimi 0 6 13, repeating\n"),
    ("", "game end: pudding most +6, fewest -6 · 1 point per 2 unused tokens\n"),
]
"""The help overlay's scoring lines in a Sushi Roll game."""


_HEADS = {
    "maki": "maki",
    "dumpling": "dump",
    "tempura": "temp",
    "sashimi": "sash",
    "nigiri": "nigi",
}


def _tokens(view: PlayerView) -> str:
    menu = f"menu {view.usable_menu}" + (f"+{view.fresh_menu}" if view.fresh_menu else "")
    chop = f"chop {view.usable_chopsticks}" + (
        f"+{view.fresh_chopsticks}" if view.fresh_chopsticks else ""
    )
    return f"{menu:<7} {chop:<7} pud {view.puddings:<2}"


def _label(name: str) -> Fragments:
    """The start of a seat's belt or tray line."""
    return [("", "   "), ("class:dim", name), ("", " ")]


class RollBoard(RollState):
    """The dice game on screen."""

    help_lines = ROLL_HELP
    scoring_lines = ROLL_SCORING

    def draw_header(self, obs: RollObservation) -> Fragments:
        """Round, cycle, who is to move."""
        if self.final is not None:
            return [("", f" round {obs.round}/3 · game over")]
        dice = obs.options.dice_per_player
        out: Fragments = [("", f" round {obs.round}/3 · cycle {obs.cycle}/{dice}")]
        if obs.to_move is not None and self.final is None:
            mover = self.shell.name_of(obs.to_move)
            out.append(("class:title", " · your move" if mover == "you" else f" · {mover} to move"))
        return out

    def _belt(self, seat: int) -> Fragments:
        """A belt's dice by short name; the swap's two dice and our marked dice stand out."""
        obs = self.obs
        assert obs is not None
        choice = self.dice
        mine = seat == obs.seat
        out: Fragments = []
        for i, die in enumerate(obs.players[seat].belt):
            style = die_style(die.kind)
            text = FACE_SHORT[die.face]
            if mine and i == choice.swap_from:
                style, text = "class:cursor " + style, f"[S]{text}"
            elif mine and i in choice.marked:
                style, text = "class:marked " + style, f"[x]{text}"
            elif (
                seat == choice.swap_seat
                and choice.swap_from is not None
                and i == choice.swap_cursor
            ):
                style, text = "class:cursor " + style, f"▸{text}"
            out += [("", " "), (style, text)]
        return out or [("", " "), ("class:dim", "(empty)")]

    def draw_players(self, obs: RollObservation) -> Fragments:
        """Every seat: name, the red belt, score, tokens, what it did; its belt; its tray (a line
        too long for the terminal goes on below itself while the screen has rows to spare)."""
        final = self.final
        own_tray_line = obs.player_count <= 3
        columns = terminal_size()[0]
        base = obs.player_count * (3 if own_tray_line else 2)
        spare = self.spare_rows(base, self.draw_panel(obs))
        out: Fragments = []
        for seat, view in enumerate(obs.players):
            mine = seat == obs.seat
            if final is not None and seat < len(final.places):
                status, style = f"place {final.places[seat]}", "class:title"
            elif self.shell.seat_note(seat):
                status, style = self.shell.seat_note(seat), "class:status.error"
            elif seat == obs.to_move:
                status, style = "moving", "class:title"
            else:
                status, style = self.did.get(seat, ""), "class:dim"
            score = (
                final.totals[seat] if final is not None and seat < len(final.totals) else view.score
            )
            out += [
                ("", "\n" if seat else ""),
                (
                    "class:me" if mine else "",
                    ("▸" if mine else " ") + f"{self.shell.name_of(seat)[:12]:<12} ",
                ),
                (
                    "class:status.error" if view.has_red_belt else "",
                    "RED " if view.has_red_belt else "    ",
                ),
                ("", f"{score:>4}pt {_tokens(view)} "),
                (style, status[:24]),
            ]
            belt = self._belt(seat)
            tray = tray_fragments(view)
            rows = [(_label("belt"), belt), (_label("tray"), tray)]
            if not own_tray_line:
                # Two spaces before "tray" (one of them unbreakable: fit_row breaks at spaces).
                gap: Fragments = [("", " "), ("class:dim", "\u00a0tray"), ("", " ")]
                rows = [(_label("belt"), [*belt, *gap, *tray])]
            for head, body in rows:
                row, used = fit_row(head, body, columns, spare, rule="")
                spare -= used
                out += [("", "\n"), *row]
        return out

    def draw_panel(self, obs: RollObservation) -> Fragments:
        """Our belt, one die a line: number, mark, face in its kind's colour, a scoring hint."""
        me = self.me
        if me is None:
            return [("class:title", "Watching"), ("", "\nspectators see every belt above")]
        if self.final is not None:
            title = "Game over"
        elif self.pending is not None:
            title = f"Sent: {self.pending.describe()}"
        elif self.moving:
            title = "Your move"
        else:
            title = "Your belt (waiting)"
        out: Fragments = [
            ("class:title", f"{title} · menu {me.usable_menu} · chop {me.usable_chopsticks}")
        ]
        choice = self.dice
        if choice.swap_from is not None and choice.swap_seat is not None:
            out.append(
                (
                    "class:die.specials",
                    f"\nswap: choose on {self.shell.name_of(choice.swap_seat, short=True)}'s belt"[
                        :MENU_WIDTH
                    ],
                )
            )
        elif choice.marked:
            out.append(("class:die.specials", f"\n{len(choice.marked)} marked: r re-rolls them"))
        active = self.moving or choice.swap_from is not None
        for i, die in enumerate(me.belt):
            if i == choice.swap_from:
                mark = "[S]"
            elif i in choice.marked:
                mark = "[x]"
            else:
                mark = "[ ]" if me.menu else "   "
            at_cursor = i == choice.cursor and choice.swap_from is None
            style, name, tip = die_style(die.kind), FACE_NAMES[die.face], face_hint(die.face, me)
            out += panel_line(at_cursor, str(i + 1), mark, style, name, tip, focus=active)
        if not me.belt:
            out.append(("class:dim", "\n(empty)"))
        return out

    def checking(self) -> str:
        seen = self.shell.fairness.actions_seen
        return f"{seen} action{'' if seen == 1 else 's'} legal · dice checked at the end"

    def checked(self) -> str:
        return f"{self.shell.fairness.actions_seen} actions and their dice replayed"

    def playing_status(self, obs: RollObservation) -> str:
        if self.pending is not None:
            return "waiting for the server…"
        if self.moving:
            if self.dice.swap_from is not None:
                return "choose the die to swap with: ↑↓ belt, ←→ die, Enter swaps, Esc cancels"
            return "your move: re-roll (space, r), swap (s), or take a die (Enter)"
        if obs.to_move is not None:
            return f"{self.shell.name_of(obs.to_move)} is moving"
        return "waiting for the turn"

    def keys(self) -> str:
        """The keys that work now on the dice screen (one line)."""
        if self.dice.swap_from is not None:
            return "↑↓ belt · ←→/1-8 their die · Enter swap · Esc cancel · c chat · ? help"
        return "←→/1-8 die · space mark · r re-roll · s swap · Enter take · c chat · ? help"

    def round_summary(self) -> Fragments:
        """After a round: points by category per seat, the round's total and the running total,
        and every seat's puddings."""
        if not self.rounds:
            return []
        scored = self.rounds[-1]
        puddings = " ".join(str(p) for p in scored.puddings)
        return [
            *self.round_table(scored, _HEADS),
            *self.race("maki", [p.maki for p in scored.points], ("most", "second")),
            ("class:dim", f"puddings: {puddings}\n"),
        ]

    def game_summary(self) -> Fragments:
        """Points by category over the game, puddings, leftover tokens, totals and places; who
        won the pudding race."""
        end = self.game_over
        puddings = end.pudding_points if end is not None else ()
        bonus = end.token_bonus if end is not None else ()
        return [
            *self.game_table(self.rounds, _HEADS, (("pud", 5, puddings), ("tok", 4, bonus))),
            *self.race("pudding", puddings, ("most", "fewest")),
        ]

    def players_height(self) -> int | None:
        """Every belt line is kept (two or three per seat) before the panels below get any."""
        if self.obs is None:
            return None
        return 1 + sum(text.count("\n") for _, text, *_ in self.players())
