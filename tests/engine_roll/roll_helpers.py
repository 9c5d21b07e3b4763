"""Shared helpers for the Sushi Roll engine tests: crafted positions, a reference scorer written
from RULES.md section 2 (deliberately not reusing `engine.games.sushi_roll.scoring`), and random
playouts.

Imported as ``roll_helpers`` (pytest puts this folder on ``sys.path``); the name is unique in the
repository so it cannot clash with other test folders' helpers.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from sushigo.engine.games.sushi_roll import (
    Die,
    DieKind,
    Face,
    PlayerView,
    RollAction,
    RollEvent,
    RollGame,
    RollObservation,
    RollOptions,
    Take,
)

KIND_OF = {
    **dict.fromkeys(("dumpling", "tempura", "sashimi"), DieKind.APPETIZER),
    **dict.fromkeys(("maki1", "maki2", "maki3"), DieKind.MAKI),
    **dict.fromkeys(("egg", "salmon", "squid"), DieKind.NIGIRI),
    **dict.fromkeys(("wasabi", "chopsticks1", "chopsticks2", "menu1", "menu2"), DieKind.SPECIALS),
    **dict.fromkeys(("pudding1", "pudding2", "pudding3"), DieKind.PUDDING),
}


def die(label: str) -> Die:
    """The die showing the face `label`."""
    return Die(KIND_OF[label], Face.from_label(label))


def dice(*labels: str) -> tuple[Die, ...]:
    return tuple(die(label) for label in labels)


def crafted(
    belts: Sequence[Sequence[str]],
    *,
    to_move: int = 0,
    red: int = 0,
    trays: Sequence[Sequence[str]] | None = None,
    menu: Sequence[int] | None = None,
    chopsticks: Sequence[int] | None = None,
    puddings: Sequence[int] | None = None,
    round_: int = 1,
    seed: bytes = b"crafted",
) -> RollGame:
    """A game in a chosen position (via `RollGame.from_observation`): belts and trays by face
    label, indexed by seat. Wasabi placements on crafted trays follow the tray order."""
    n = len(belts)
    trays = trays or [[] for _ in range(n)]
    views = []
    for s in range(n):
        tray = dice(*trays[s])
        on, open_wasabi = [], 0
        for i, d in enumerate(tray):
            if d.face is Face.WASABI:
                open_wasabi += 1
            elif d.kind is DieKind.NIGIRI and open_wasabi:
                open_wasabi -= 1
                on.append(i)
        views.append(
            PlayerView(
                belt=dice(*belts[s]),
                has_red_belt=s == red,
                tray=tray,
                on_wasabi=tuple(on),
                open_wasabi=open_wasabi,
                menu=3 if menu is None else menu[s],
                chopsticks=2 if chopsticks is None else chopsticks[s],
                fresh_menu=0,
                fresh_chopsticks=0,
                puddings=0 if puddings is None else puddings[s],
                score=0,
                round_scores=(0,) * (round_ - 1),
                taken_this_cycle=(s - red) % n < (to_move - red) % n,
            )
        )
    obs = RollObservation(
        options=RollOptions(n),
        seat=None,
        round=round_,
        cycle=1,
        to_move=to_move,
        red_belt=red,
        players=tuple(views),
        bag=0,
        menu_supply=0,
        chopsticks_supply=0,
        is_over=False,
    )
    return RollGame.from_observation(obs, seed)


# -- reference scorer (RULES.md section 2, by face label) ---------------------------------------

_APPETIZER = {"dumpling": (2, 4, 8), "tempura": (1, 5, 10), "sashimi": (0, 6, 13)}
_NIGIRI = {"egg": 1, "salmon": 2, "squid": 3}
_MAKI = {"maki1": 1, "maki2": 2, "maki3": 3}


def ref_round(trays: Sequence[Sequence[str]]) -> list[int]:
    """Round points, written independently from the rules text."""
    icons = [sum(_MAKI.get(f, 0) for f in tray) for tray in trays]
    ranks = sorted({i for i in icons if i}, reverse=True)
    out = []
    for tray, mine in zip(trays, icons, strict=True):
        points = 0
        if mine and mine == ranks[0]:
            points += 6
        elif mine and len(ranks) > 1 and mine == ranks[1]:
            points += 3
        for name, table in _APPETIZER.items():
            n = list(tray).count(name)
            while n >= 3:
                points += table[2]
                n -= 3
            if n:
                points += table[n - 1]
        waiting = 0
        for f in tray:
            if f == "wasabi":
                waiting += 1
            elif f in _NIGIRI:
                points += _NIGIRI[f] * (3 if waiting else 1)
                waiting -= 1 if waiting else 0
        out.append(points)
    return out


def ref_puddings(puddings: Sequence[int]) -> list[int]:
    top, bottom = max(puddings), min(puddings)
    if top == bottom:
        return [0] * len(puddings)
    return [6 if p == top else -6 if p == bottom and len(puddings) > 2 else 0 for p in puddings]


# -- playouts -----------------------------------------------------------------------------------

Policy = Callable[[RollGame, int], RollAction]


def random_policy(rng: random.Random, take_bias: float = 0.5) -> Policy:
    """A policy choosing a take with probability `take_bias`, else any legal action uniformly (so
    re-rolls and swaps are common but turns still end)."""

    def choose(game: RollGame, seat: int) -> RollAction:
        legal = game.legal_actions(seat)
        if rng.random() < take_bias:
            takes = [a for a in legal if type(a) is Take]
            return rng.choice(takes)
        return rng.choice(legal)

    return choose


def play_out(
    game: RollGame,
    policy: Policy,
    check: Callable[[RollGame, int, RollAction, list[RollEvent]], None] | None = None,
) -> list[RollEvent]:
    """Play `game` to the end; `check(game, seat, action, events)` after every action."""
    log: list[RollEvent] = list(game.initial_events())
    while not game.is_terminal():
        seat = game.to_move
        assert seat is not None
        action = policy(game, seat)
        events = game.apply(seat, action)
        log.extend(events)
        if check is not None:
            check(game, seat, action, events)
    return log
