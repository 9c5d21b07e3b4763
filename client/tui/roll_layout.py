"""The Sushi Roll screen's widgets, each drawing from the `AppState` alone (`layout` shows them in
the card game's windows when the game on screen is Sushi Roll).

Monochrome first, as for the cards: the red belt is written ``RED``, the seat to move carries
``moving``, the die under the cursor is reverse video with a ``▸``, dice marked for a re-roll carry
``[x]`` (``[S]`` for the die being swapped away), and every face is named; colour (per kind of die)
only adds.
"""

from __future__ import annotations

from sushigo.engine.roll import PlayerView

from .dice import FACE_NAMES, FACE_SHORT, die_style, face_hint, tray_fragments
from .state import AppState, Fragments

__all__ = [
    "ROLL_HELP",
    "ROLL_SCORING",
    "belts_text",
    "my_belt_text",
    "roll_default_status",
    "roll_fairness_text",
    "roll_game_summary_text",
    "roll_header_text",
    "roll_keys",
    "roll_round_summary_text",
]

PANEL_WIDTH = 42
"""The belt panel's width (the card game's hand window)."""

ROLL_HELP: tuple[tuple[str, str], ...] = (
    ("class:title", "Sushi Roll\n"),
    ("", "Dice    ←→ or 1-8 choose a die on your belt · Enter takes it (ends turn)\n"),
    ("", "        space marks dice, r re-rolls the marked ones (1 menu token)\n"),
    ("", "        s swaps the die under the cursor: ↑↓ other belt, ←→/1-8 its die,\n"),
    ("", "        Enter swaps (1 chopsticks token), Esc cancels\n"),
)
"""The help overlay's lines on the dice keys."""

ROLL_SCORING: tuple[tuple[str, str], ...] = (
    ("class:title", "Scoring\n"),
    ("", "maki most 6, second 3 · nigiri 1/2/3, x3 on wasabi\n"),
    ("", "1/2/3 icons: dumpling 2 4 8 · tempura 1 5 10 · sashimi 0 6 13, repeating\n"),
    ("", "game end: pudding most +6, fewest -6 · 1 point per 2 unused tokens\n"),
)
"""The help overlay's scoring lines in a Sushi Roll game."""


def roll_header_text(state: AppState) -> Fragments:
    """Top bar: round, cycle, who is to move, the turn countdown."""
    obs = state.roll
    out: Fragments = [("class:header", " Sushi Roll ")]
    if obs is None:
        return out
    dice = obs.options.dice_per_player
    out.append(("", f" round {obs.round}/3 · cycle {obs.cycle}/{dice}"))
    if obs.to_move is not None and state.final is None:
        mover = state.name_of(obs.to_move)
        out.append(("class:title", " · your move" if mover == "you" else f" · {mover} to move"))
    if state.deadline is not None and state.final is None:
        left = max(0, int(state.deadline - state.now() + 0.999))
        out.append(("class:status.error" if left <= 10 else "class:title", f" · time {left}s"))
    return out


def _tokens(view: PlayerView) -> str:
    menu = f"menu {view.usable_menu}" + (f"+{view.fresh_menu}" if view.fresh_menu else "")
    chop = f"chop {view.usable_chopsticks}" + (
        f"+{view.fresh_chopsticks}" if view.fresh_chopsticks else ""
    )
    return f"{menu:<7} {chop:<7} pud {view.puddings:<2}"


def _belt_fragments(state: AppState, seat: int) -> Fragments:
    """A belt's dice by short name; the swap's two dice and our marked dice stand out."""
    obs = state.roll
    assert obs is not None
    choice = state.dice
    mine = seat == obs.seat
    out: Fragments = []
    for i, die in enumerate(obs.players[seat].belt):
        style = die_style(die.kind)
        text = FACE_SHORT[die.face]
        if mine and i == choice.swap_from:
            style, text = "class:cursor " + style, f"[S]{text}"
        elif mine and i in choice.marked:
            style, text = "class:marked " + style, f"[x]{text}"
        elif seat == choice.swap_seat and choice.swap_from is not None and i == choice.swap_cursor:
            style, text = "class:cursor " + style, f"▸{text}"
        out += [("", " "), (style, text)]
    return out or [("", " "), ("class:dim", "(empty)")]


def belts_text(state: AppState) -> Fragments:
    """Every seat: name, the red belt, score, tokens, what it did; its belt; its tray."""
    obs = state.roll
    if obs is None:
        return []
    final = state.final
    own_tray_line = obs.player_count <= 3
    out: Fragments = []
    for seat, view in enumerate(obs.players):
        mine = seat == obs.seat
        if final is not None and seat < len(final.places):
            status, style = f"place {final.places[seat]}", "class:title"
        elif seat == obs.to_move:
            status, style = "moving", "class:title"
        else:
            status, style = state.roll_did.get(seat, ""), "class:dim"
        score = final.totals[seat] if final is not None and seat < len(final.totals) else view.score
        out += [
            ("", "\n" if seat else ""),
            (
                "class:me" if mine else "",
                ("▸" if mine else " ") + f"{state.name_of(seat)[:12]:<12} ",
            ),
            (
                "class:status.error" if view.has_red_belt else "",
                "RED " if view.has_red_belt else "    ",
            ),
            ("", f"{score:>4}pt {_tokens(view)} "),
            (style, status[:24]),
            ("", "\n   "),
            ("class:dim", "belt"),
        ]
        out += _belt_fragments(state, seat)
        out.append(("", "\n   " if own_tray_line else "  "))
        out.append(("class:dim", "tray "))
        out += tray_fragments(view)
    return out


def my_belt_text(state: AppState) -> Fragments:
    """Our belt, one die a line: number, mark, face in its kind's colour, a scoring hint."""
    obs = state.roll
    if obs is None:
        return []
    me = state.roll_me
    if me is None:
        return [("class:title", "Watching"), ("", "\nspectators see every belt above")]
    if state.final is not None:
        title = "Game over"
    elif state.roll_pending is not None:
        title = f"Sent: {state.roll_pending.describe()}"
    elif state.roll_moving:
        title = "Your move"
    else:
        title = "Your belt (waiting)"
    out: Fragments = [
        ("class:title", f"{title} · menu {me.usable_menu} · chop {me.usable_chopsticks}")
    ]
    choice = state.dice
    if choice.swap_from is not None and choice.swap_seat is not None:
        out.append(
            (
                "class:die.specials",
                f"\nswap: choose on {state.name_of(choice.swap_seat, short=True)}'s belt"[
                    :PANEL_WIDTH
                ],
            )
        )
    elif choice.marked:
        out.append(("class:die.specials", f"\n{len(choice.marked)} marked: r re-rolls them"))
    active = state.roll_moving or choice.swap_from is not None
    for i, die in enumerate(me.belt):
        out.append(("", "\n"))
        at_cursor = i == choice.cursor and choice.swap_from is None
        if at_cursor and active:
            out.append(("[SetCursorPosition]", ""))
        if i == choice.swap_from:
            mark = "[S]"
        elif i in choice.marked:
            mark = "[x]"
        else:
            mark = "[ ]" if me.menu else "   "
        line: list[tuple[str, str]] = [
            ("", f"{'▸' if at_cursor else ' '}{i + 1:>2} "),
            ("class:marked" if mark.strip("[ ]") else "", f"{mark} "),
            (die_style(die.kind), f"{FACE_NAMES[die.face]:<13} "),
            ("class:dim", face_hint(die.face, me)[: PANEL_WIDTH - 22]),
        ]
        if at_cursor:
            line = [("class:cursor " + style, text) for style, text in line]
        out.extend(line)
    if not me.belt:
        out.append(("class:dim", "\n(empty)"))
    return out


def roll_fairness_text(state: AppState) -> Fragments:
    """The fairness status of a dice game: actions checked as they come, dice at the end."""
    fair = state.fairness
    if fair.failures:
        return [("class:fair.fail", f"!!! FAIRNESS CHECK FAILED: {fair.failures[0]} !!!")]
    if fair.final == "verified":
        return [
            (
                "class:fair.ok",
                f"fair ✓ {fair.actions_verified} actions and their dice replayed,"
                " seed check passed",
            )
        ]
    if fair.final == "FAILED":
        return [("class:fair.fail", "!!! SEED CHECK FAILED !!!")]
    seen = fair.actions_seen
    return [
        (
            "class:fair.ok",
            f"fair ✓ {seen} action{'' if seen == 1 else 's'} legal · dice checked at the end",
        )
    ]


def roll_default_status(state: AppState) -> str:
    """What to do now, when the status line has nothing else to say."""
    obs = state.roll
    if state.final is not None:
        return "the game is over"
    if obs is None:
        return ""
    if obs.seat is None:
        return "watching the game"
    if state.roll_pending is not None:
        return "waiting for the server…"
    if state.roll_moving:
        if state.dice.swap_from is not None:
            return "choose the die to swap with: ↑↓ belt, ←→ die, Enter swaps, Esc cancels"
        return "your move: re-roll (space, r), swap (s), or take a die (Enter)"
    if obs.to_move is not None:
        return f"{state.name_of(obs.to_move)} is moving"
    return "waiting for the turn"


def roll_keys(state: AppState) -> str:
    """The keys that work now on the dice screen (one line)."""
    if state.dice.swap_from is not None:
        return "↑↓ belt · ←→/1-8 their die · Enter swap · Esc cancel · c chat · ? help"
    return "←→/1-8 die · space mark · r re-roll · s swap · Enter take · c chat · ? help"


_CATEGORIES = ("maki", "dumpling", "tempura", "sashimi", "nigiri")
_HEADS = {
    "maki": "maki",
    "dumpling": "dump",
    "tempura": "temp",
    "sashimi": "sash",
    "nigiri": "nigi",
}


def roll_round_summary_text(state: AppState) -> Fragments:
    """After a round: points by category per seat, the round's total and the running total."""
    if not state.roll_rounds:
        return []
    scored = state.roll_rounds[-1]
    out: Fragments = [("class:title", f"Round {scored.round} scores\n")]
    head = (
        f"{'':<13}" + "".join(f"{_HEADS[c]:>5}" for c in _CATEGORIES) + f"{'round':>6}{'total':>6}"
    )
    out.append(("class:dim", head + "\n"))
    best = max(scored.totals)
    for seat, points in enumerate(scored.points):
        row = f"{state.name_of(seat)[:13]:<13}" + "".join(
            f"{getattr(points, c):>5}" for c in _CATEGORIES
        )
        out.append(("class:me" if seat == state.seat else "", row))
        out.append(("", f"{points.total:>6}{scored.totals[seat]:>6}"))
        out.append(("class:title", " ◂ leads\n" if scored.totals[seat] == best else "\n"))
    out.append(("class:dim", f"puddings: {' '.join(str(p) for p in scored.puddings)}\n"))
    out.append(("class:dim", "\nEnter or space: continue"))
    return out


def roll_game_summary_text(state: AppState, fairness: Fragments) -> Fragments:
    """At game over: points by category over the game, puddings, leftover tokens, totals,
    places and winners, then the fairness verdict."""
    final = state.final
    if final is None:
        return []
    winners = [state.name_of(s) for s in final.winners]
    if len(winners) > 1:
        title = "Tie! " + " and ".join(winners) + " share the win"
    elif final.winners == (state.seat,):
        title = "You win!"
    else:
        title = f"{winners[0]} wins"
    out: Fragments = [("class:title", f"Game over · {title}\n")]
    head = f"{'':<13}" + "".join(f"{_HEADS[c]:>5}" for c in _CATEGORIES)
    head += f"{'pud':>5}{'tok':>4}{'total':>6}  place"
    out.append(("class:dim", head + "\n"))
    bonus = getattr(final, "token_bonus", ())
    for seat, total in enumerate(final.totals):
        sums = [sum(getattr(r.points[seat], c) for r in state.roll_rounds) for c in _CATEGORIES]
        place = f"{final.places[seat]:>5}" if seat < len(final.places) else "    -"
        row = f"{state.name_of(seat)[:13]:<13}" + "".join(f"{n:>5}" for n in sums)
        tokens = bonus[seat] if seat < len(bonus) else 0
        row += f"{final.pudding_points[seat]:>5}{tokens:>4}{total:>6}{place}"
        out.append(("class:me" if seat == state.seat else "", row))
        out.append(("class:title", " ★\n" if seat in final.winners else "\n"))
    out.append(("", "\n"))
    out.extend(fairness)
    out.append(("class:dim", "\n\nEnter: close · " + ("n: new game · " if state.is_host else "")))
    out.append(("class:dim", "l: leave · q: quit"))
    return out
