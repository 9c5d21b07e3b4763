"""How Sushi Roll dice look on screen: face names, short names, colours per kind of die, scoring
hints and a tray's summary, in one place (as `cards` does for the card game).

Colour is never the only signal: every face is also named, and the name tells the kind of die
(a salmon is on a nigiri die), so the screen reads the same on a monochrome terminal.
"""

from __future__ import annotations

from prompt_toolkit.formatted_text import StyleAndTextTuples

from sushigo.client.tui.games.sushi_go.cards import sushi_hint
from sushigo.engine.games.sushi_roll import DieKind, Face, PlayerView, appetizer_points
from sushigo.engine.games.sushi_roll.dice import (
    CHOPSTICKS_TOKENS,
    MAKI_ICONS,
    MENU_TOKENS,
    NIGIRI_POINTS,
    PUDDING_TOKENS,
)

__all__ = ["FACE_NAMES", "FACE_SHORT", "KIND_NAMES", "die_style", "face_hint", "tray_fragments"]

FACE_NAMES: dict[Face, str] = {
    Face.DUMPLING: "dumpling",
    Face.TEMPURA: "tempura",
    Face.SASHIMI: "sashimi",
    Face.MAKI1: "maki roll (1)",
    Face.MAKI2: "maki roll (2)",
    Face.MAKI3: "maki roll (3)",
    Face.EGG: "egg nigiri",
    Face.SALMON: "salmon nigiri",
    Face.SQUID: "squid nigiri",
    Face.WASABI: "wasabi",
    Face.CHOPSTICKS1: "chopsticks ×1",
    Face.CHOPSTICKS2: "chopsticks ×2",
    Face.MENU1: "menu ×1",
    Face.MENU2: "menu ×2",
    Face.PUDDING1: "pudding ×1",
    Face.PUDDING2: "pudding ×2",
    Face.PUDDING3: "pudding ×3",
}
"""A face's name in the belt panel."""

FACE_SHORT: dict[Face, str] = {
    Face.DUMPLING: "dumpl",
    Face.TEMPURA: "tempura",
    Face.SASHIMI: "sashimi",
    Face.MAKI1: "maki1",
    Face.MAKI2: "maki2",
    Face.MAKI3: "maki3",
    Face.EGG: "egg",
    Face.SALMON: "salmon",
    Face.SQUID: "squid",
    Face.WASABI: "wasabi",
    Face.CHOPSTICKS1: "chop1",
    Face.CHOPSTICKS2: "chop2",
    Face.MENU1: "menu1",
    Face.MENU2: "menu2",
    Face.PUDDING1: "pud1",
    Face.PUDDING2: "pud2",
    Face.PUDDING3: "pud3",
}
"""A face's name on the belts, trays and in the log (at most 7 characters)."""

KIND_NAMES: dict[DieKind, str] = {kind: kind.label for kind in DieKind}
"""A kind of die's name: appetizer, maki, nigiri, specials, pudding."""

_APPETIZERS = (Face.DUMPLING, Face.TEMPURA, Face.SASHIMI)

Fragments = StyleAndTextTuples


def die_style(kind: DieKind) -> str:
    """The style class of a kind of die (colours live in the app's Style)."""
    return f"class:die.{kind.label}"


_W = Face.WASABI


def face_hint(face: Face, mine: PlayerView | None = None) -> str:
    """A short scoring hint (at most 22 characters), told against the player's own tray."""
    faces = [die.face for die in mine.tray] if mine is not None else []
    if face in _APPETIZERS:
        have = faces.count(face)
        gain = appetizer_points(face, have + 1) - appetizer_points(face, have)
        if not gain:
            later = appetizer_points(face, have + 2) - appetizer_points(face, have + 1)
            return f"+0 now, then +{later}"
        return f"+{gain} now ({have} on tray)"
    if common := sushi_hint(MAKI_ICONS.get(face, 0), NIGIRI_POINTS.get(face, 0), face is _W, mine):
        return common
    if face in CHOPSTICKS_TOKENS:
        return f"+{CHOPSTICKS_TOKENS[face]} chopsticks"
    if face in MENU_TOKENS:
        return f"+{MENU_TOKENS[face]} menu"
    return f"+{PUDDING_TOKENS.get(face, 0)} pudding; most +6"


def tray_fragments(view: PlayerView) -> Fragments:
    """A tray grouped by kind: maki icons summed, appetizers counted, each nigiri in taken order
    (``W+`` when it lies on a wasabi), uncovered wasabi as ``W+_``, token and pudding faces."""
    icons = sum(MAKI_ICONS.get(die.face, 0) for die in view.tray)
    out: Fragments = []

    def add(style: str, text: str) -> None:
        if out:
            out.append(("", " "))
        out.append((style, text))

    if icons:
        add(die_style(DieKind.MAKI), f"maki:{icons}")
    for face in _APPETIZERS:
        n = sum(1 for die in view.tray if die.face is face)
        if n:
            add(die_style(DieKind.APPETIZER), FACE_SHORT[face] + (f"×{n}" if n > 1 else ""))
    for index, die in enumerate(view.tray):
        if die.face in NIGIRI_POINTS:
            if index in view.on_wasabi:
                add(die_style(DieKind.SPECIALS), "W+")
                out.append((die_style(DieKind.NIGIRI), FACE_SHORT[die.face]))
            else:
                add(die_style(DieKind.NIGIRI), FACE_SHORT[die.face])
    if view.open_wasabi:
        n = view.open_wasabi
        add(die_style(DieKind.SPECIALS), "W+_" + (f"×{n}" if n > 1 else ""))
    for die in view.tray:
        if die.kind is DieKind.PUDDING or die.face in CHOPSTICKS_TOKENS or die.face in MENU_TOKENS:
            add(die_style(die.kind), FACE_SHORT[die.face])
    return out or [("class:dim", "(empty tray)")]
