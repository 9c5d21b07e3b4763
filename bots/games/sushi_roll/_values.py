"""What a die face is worth to a seat now: the valuation shared by `greedy` and `heuristic`.

Everything in Sushi Roll is public, so a face's value is computed from the observation alone:
the seat's tray (appetizer counts, open wasabi), every tray's maki icons, every seat's puddings
and the takes left in the round and the game.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sushigo.engine.games.sushi_roll import (
    DIE_FACES,
    Die,
    DieKind,
    Face,
    RollObservation,
    dice,
    maki_points,
    score_puddings,
)
from sushigo.engine.games.sushi_roll.scoring import appetizer_points, nigiri_value
from sushigo.engine.games.sushi_roll.turns import tokens_gained

TOKEN_POINTS = 0.5
"""The end-game rate of a menu or chopsticks token: 1 point per 2 unused tokens."""

_APPETIZERS = (Face.DUMPLING, Face.TEMPURA, Face.SASHIMI)


@dataclass(frozen=True, slots=True)
class Context:
    """The part of an observation a face's value depends on, for the seat `me`."""

    me: int
    counts: dict[Face, int]
    """Appetizer icons on my tray."""
    open_wasabi: int
    icons: tuple[int, ...]
    """Maki icons on every tray."""
    puddings: tuple[int, ...]
    turns_left: int
    """Takes this seat still has this round after the present one."""
    rounds_left: int
    """Rounds after this one."""
    menu_supply: int
    chopsticks_supply: int


def context(obs: RollObservation) -> Context:
    """The valuation context of the seat to move (the observing seat)."""
    me = obs.seat
    assert me is not None
    view = obs.players[me]
    faces = [die.face for die in view.tray]
    return Context(
        me=me,
        counts={face: faces.count(face) for face in _APPETIZERS},
        open_wasabi=view.open_wasabi,
        icons=tuple(sum(dice.MAKI_ICONS.get(d.face, 0) for d in p.tray) for p in obs.players),
        puddings=tuple(p.puddings for p in obs.players),
        turns_left=max(0, len(view.belt) - 1),
        rounds_left=dice.ROUNDS - obs.round,
        menu_supply=obs.menu_supply,
        chopsticks_supply=obs.chopsticks_supply,
    )


def _appetizer_step(face: Face, icons: int) -> int:
    """The points one more icon of appetizer `face` adds to `icons` of them."""
    return appetizer_points(face, icons + 1) - appetizer_points(face, icons)


def appetizer_value(face: Face, icons: int, left: int) -> float:
    """`heuristic_value` of one more icon of appetizer `face` with `icons` of them on the tray and
    `left` takes to go: its step, or with a set unfinished after it, the step and a share of a
    full set weighed by the odds of finishing the set in time."""
    step = _appetizer_step(face, icons)
    have = (icons + 1) % 3
    if have == 0:
        return float(step)
    need = 3 - have
    odds = min(1.0, left / (need * 2.5))
    full = appetizer_points(face, 3)
    return (1 - odds) * step + odds * full / 3 * 1.1


def greedy_value(face: Face, ctx: Context) -> float:
    """Immediate marginal points of taking `face`, as the table stands now.

    Appetizers: the set step, an unfinished set credited half its share of a full set; nigiri its
    points (tripled on an open wasabi); maki the change in this round's race; puddings the change
    in the pudding race; tokens the end-game rate (0.5 each); wasabi a token 1 point.
    """
    if face in dice.APPETIZER_POINTS:
        n = ctx.counts[face]
        step = _appetizer_step(face, n)
        if (n + 1) % 3 == 0:
            return float(step)
        return 0.5 * step + 0.5 * dice.APPETIZER_POINTS[face][3] / 3
    if face in dice.NIGIRI_POINTS:
        return float(nigiri_value(dice.NIGIRI_POINTS[face], ctx.open_wasabi))
    if face in dice.MAKI_ICONS:
        return float(_maki_delta(ctx, dice.MAKI_ICONS[face]))
    if face in dice.PUDDING_TOKENS:
        return 0.5 * _pudding_delta(ctx, dice.PUDDING_TOKENS[face])
    if face in dice.MENU_TOKENS:
        return TOKEN_POINTS * tokens_gained(dice.MENU_TOKENS[face], ctx.menu_supply)
    if face in dice.CHOPSTICKS_TOKENS:
        return TOKEN_POINTS * tokens_gained(dice.CHOPSTICKS_TOKENS[face], ctx.chopsticks_supply)
    return 1.0  # wasabi


def heuristic_value(face: Face, ctx: Context) -> float:
    """Expected points of taking `face`: `greedy_value` with the takes still to come in mind.

    Unfinished appetizer sets are credited by the odds of finishing them in the takes left; a
    wasabi by the nigiri likely to land on it; maki by the race change plus a little per icon (the
    race is not over); puddings by the race change weighted by the rounds left plus their chance
    of swinging it later; tokens at the end-game rate plus their use while the game lasts.
    """
    left = ctx.turns_left
    if face in dice.APPETIZER_POINTS:
        return appetizer_value(face, ctx.counts[face], left)
    if face in dice.NIGIRI_POINTS:
        return float(nigiri_value(dice.NIGIRI_POINTS[face], ctx.open_wasabi))
    if face in dice.MAKI_ICONS:
        icons = dice.MAKI_ICONS[face]
        return _maki_delta(ctx, icons) * (0.7 if left else 1.0) + 0.6 * icons * min(1, left)
    if face in dice.PUDDING_TOKENS:
        p = dice.PUDDING_TOKENS[face]
        return 0.6 * _pudding_delta(ctx, p) + 0.8 * p
    use = 0.25 * min(left, 3) + 0.5 * ctx.rounds_left
    if face in dice.MENU_TOKENS:
        gained = tokens_gained(dice.MENU_TOKENS[face], ctx.menu_supply)
        return gained * (TOKEN_POINTS + 0.3 * use)
    if face in dice.CHOPSTICKS_TOKENS:
        gained = tokens_gained(dice.CHOPSTICKS_TOKENS[face], ctx.chopsticks_supply)
        return gained * (TOKEN_POINTS + 0.3 * use)
    # wasabi: a later nigiri on it gains twice its points (avg 2, so +4), if one comes in time
    if left == 0:
        return 0.0
    return 4.0 * min(1.0, left / 3) / (1 + ctx.open_wasabi)


def _maki_delta(ctx: Context, icons: int) -> float:
    before = maki_points(ctx.icons)[ctx.me]
    after = list(ctx.icons)
    after[ctx.me] += icons
    return float(maki_points(after)[ctx.me] - before)


def _pudding_delta(ctx: Context, tokens: int) -> float:
    before = score_puddings(ctx.puddings)[ctx.me]
    after = list(ctx.puddings)
    after[ctx.me] += tokens
    return float(score_puddings(after)[ctx.me] - before)


def kind_faces(kind: DieKind) -> Sequence[Face]:
    """The six faces a die of `kind` may roll, equally likely."""
    return DIE_FACES[kind]


def die_value(die: Die, ctx: Context, *, greedy: bool) -> float:
    """The value of taking `die` for the context's seat."""
    return greedy_value(die.face, ctx) if greedy else heuristic_value(die.face, ctx)
