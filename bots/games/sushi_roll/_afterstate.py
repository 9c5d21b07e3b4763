"""Sushi Roll afterstates as numbers, and every candidate's afterstates in one matrix.

An afterstate is the table right after a seat's take, before the game goes on
(`_sim.SimState.place`): the die is on the taker's tray, the belts have not slid or rolled yet.
Everything in Sushi Roll is public, so it is the whole table, seen from the taker's seat
(`encode`): the round (one-hot), the cycle, the seats moved this cycle, the token supplies, the
red belt's holder (one-hot, by places to the taker's left), then per seat from the taker
leftwards a block of `BLOCK` numbers: its belt's face counts (17), its tray (dumplings, tempura,
sashimi, maki icons, nigiri points with their wasabi, open wasabi), puddings, menu and
chopsticks tokens, points of finished rounds, the round's points so far if it were scored now,
and the two summed.

`Afterstates` lays out, for every candidate of the search bot (`_search.candidates_of`), the rows
a value network scores: a take's single afterstate; a swap's afterstates of every take from the
belt it leaves; a re-roll's, for each of `samples` sampled rolls, of every take from the belt as
it fell. The encoding is linear in the belts' counts, so each face's afterstate is encoded once
(`SimState.place` on a copy) and every row is that plus the change in the belts and tokens:
a few hundred rows cost a few numpy operations, not a few hundred encodings.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from sushigo.engine.games.sushi_roll import Reroll, RollAction, Swap, Take

from ._sim import FACES, KIND_FACES, KIND_OF, SimState

GLOBAL = 7
"""Round (3, one-hot), cycle, seats moved this cycle, menu and chopsticks supplies."""
BLOCK = FACES + 12
"""Per seat: belt face counts (17), then `_TRAY`'s numbers."""
_TRAY = 12
_MENU, _CHOP = FACES + 7, FACES + 8
"""Where a seat's menu and chopsticks tokens sit in its block."""
_MENU_LEFT, _CHOP_LEFT = 5, 6

_KIND_FACES = np.array(KIND_FACES, dtype=np.int64)


def size(players: int) -> int:
    """The length of an afterstate's row for `players` seats."""
    return GLOBAL + players + players * BLOCK


def encode(state: SimState, me: int) -> list[float]:
    """The afterstate `state` as seat `me` sees it (see the module docstring)."""
    n = state.n
    points = state.round_points()
    out: list[float] = [0.0, 0.0, 0.0]
    out[min(state.round, 3) - 1] = 1.0
    out += (state.cycle, state.moved, state.menu_left, state.chop_left)
    red = [0.0] * n
    red[(state.red - me) % n] = 1.0
    out += red
    for r in range(n):
        s = (me + r) % n
        counts = [0] * FACES
        for f in state.belts[s]:
            counts[f] += 1
        out += counts
        out += (
            state.dumpling[s],
            state.tempura[s],
            state.sashimi[s],
            state.maki[s],
            state.nigiri[s],
            state.wasabi[s],
            state.pudding[s],
            state.menu[s],
            state.chop[s],
            state.score[s],
            points[s],
            state.score[s] + points[s],
        )
    return out


_SEAT_LISTS = (
    "dumpling",
    "tempura",
    "sashimi",
    "maki",
    "nigiri",
    "wasabi",
    "pudding",
    "menu",
    "chop",
    "fresh_menu",
    "fresh_chop",
)
"""`SimState`'s lists by seat that `SimState.place` changes."""
_POINTS = FACES + 10
"""Where a seat's points of the round so far sit in its block (its total follows)."""


def face_rows(state: SimState, me: int, faces: list[int]) -> Any:
    """For each of `faces`, the afterstate of seat `me` (to move) taking a die showing it, with
    the die still counted on its belt: `encode` once, then only what a take changes (the seat's
    tray and tokens, the supplies, the seats moved, the round's points). `state` is changed and
    put back as it was."""
    n = state.n
    base = np.array(encode(state, me), dtype=np.float32)
    base[4] += 1  # the seats moved this cycle
    mine = GLOBAL + n
    lists = [getattr(state, name) for name in _SEAT_LISTS]
    saved = [values[me] for values in lists]
    supplies = (state.menu_left, state.chop_left, state.moved)
    table = np.tile(base, (len(faces), 1))
    for i, face in enumerate(faces):
        state.place(face)
        row = table[i]
        row[_MENU_LEFT] = state.menu_left
        row[_CHOP_LEFT] = state.chop_left
        row[mine + FACES : mine + FACES + 9] = [values[me] for values in lists[:9]]
        # Maki change every seat's award; anything else only the taker's points.
        seats = range(n) if state.maki[me] != saved[3] else (me,)
        for s in seats:
            at = mine + ((s - me) % n) * BLOCK + _POINTS
            row[at] = points = state.seat_points(s)
            row[at + 1] = state.score[s] + points
        for values, value in zip(lists, saved, strict=True):
            values[me] = value
        state.menu_left, state.chop_left, state.moved = supplies
        row[mine + face] -= 1.0  # the die is off the belt
    return table


class Afterstates:
    """The rows to score for the seat to move of `state`, candidate by candidate (`add`), and
    each candidate's value from the rows' values (`values`).

    A take is one row. A swap or a re-roll is one or more outcomes (belts as they would stand:
    the swap's one, each sampled roll), and each outcome one row per face on the seat's belt
    then (the take after it); its value is the mean over its outcomes of the best of them."""

    def __init__(self, state: SimState) -> None:
        self.state = state
        self.me = me = state.to_move
        self.n = n = state.n
        self.width = size(n)
        self._mine = GLOBAL + n  # where the seat's own block starts
        counts = [0] * FACES
        for f in state.belts[me]:
            counts[f] += 1
        self.counts = counts
        self._takes: list[int] = []
        """Per candidate: the face it takes, or -1 for a swap or a re-roll."""
        self._sizes: list[int] = []
        """Per swap or re-roll: its outcomes."""
        self._base: list[list[int]] = []
        """Per outcome: the seat's belt counts before any sampled roll."""
        self._swaps: list[tuple[int, int, int, int]] = []
        """Per swap: its outcome, the other seat's block, the faces given and taken."""
        self._rolls: list[tuple[int, int, list[int]]] = []
        """Per re-roll: its first outcome, its outcomes, the kinds of the dice rolled."""
        self._gen: Any = None
        """numpy's generator for the sampled rolls, seeded from the caller's `rng` once."""
        self._outcomes: Any = None

    def add(self, action: RollAction, samples: int, rng: random.Random) -> None:
        """Lay out candidate `action` (a re-roll sampled `samples` times)."""
        belt = self.state.belts[self.me]
        if type(action) is Take:
            self._takes.append(belt[action.position])
            return
        start = len(self._base)
        counts = self.counts[:]
        if type(action) is Swap:
            theirs = self.state.belts[action.other_seat][action.theirs]
            mine = belt[action.mine]
            other = GLOBAL + self.n + ((action.other_seat - self.me) % self.n) * BLOCK
            counts[mine] -= 1
            counts[theirs] += 1
            self._base.append(counts)
            self._swaps.append((start, other, mine, theirs))
            self._sizes.append(1)
        else:
            assert type(action) is Reroll
            for p in action.dice:
                counts[belt[p]] -= 1
            self._base.extend([counts] * samples)
            self._rolls.append((start, samples, [KIND_OF[belt[p]] for p in action.dice]))
            self._sizes.append(samples)
            if self._gen is None:
                self._gen = np.random.default_rng(rng.getrandbits(63))
        self._takes.append(-1)

    def matrix(self) -> Any:
        """Every row to score: the takes', then every outcome's takes."""
        mine = self._mine
        takes = np.array([f for f in self._takes if f >= 0], dtype=np.int64)
        count = len(self._base)
        outcomes = np.array(self._base, dtype=np.float32).reshape(count, FACES)
        deltas = np.zeros((count, self.width), dtype=np.float32)
        for at, other, given, taken in self._swaps:
            deltas[at, other + taken] -= 1
            deltas[at, other + given] += 1
            deltas[at, mine + _CHOP] -= 1
            deltas[at, _CHOP_LEFT] += 1
        if self._rolls:
            rows: list[int] = []
            kinds: list[int] = []
            for start, samples, rolled_kinds in self._rolls:
                for row in range(start, start + samples):
                    rows += [row] * len(rolled_kinds)
                    kinds += rolled_kinds
                deltas[start : start + samples, mine + _MENU] -= 1
                deltas[start : start + samples, _MENU_LEFT] += 1
            rolled = _KIND_FACES[kinds, self._gen.integers(0, 6, size=len(kinds))]
            np.add.at(outcomes, (np.array(rows, dtype=np.int64), rolled), 1)
        deltas[:, mine : mine + FACES] += outcomes - np.array(self.counts, dtype=np.float32)
        self._outcomes = outcomes
        self._which, faces = np.nonzero(outcomes)
        self._faces = faces
        self._count = count
        needed = np.union1d(takes, faces)
        table = face_rows(self.state, self.me, needed.tolist())
        lookup = np.zeros(FACES, dtype=np.int64)
        lookup[needed] = np.arange(len(needed))
        return np.concatenate((table[lookup[takes]], table[lookup[faces]] + deltas[self._which]))

    def outcomes(self) -> list[Any]:
        """Every swap's and re-roll's outcomes, in the order added: the seat's belt counts
        (17 ints) as each would leave it."""
        return list(self._outcomes.astype(np.int64))

    def values(self, scores: Any) -> list[float]:
        """Each candidate's value from its rows' `scores` (in `matrix`'s order): a take's own; a
        swap's or a re-roll's mean over its outcomes of the best take."""
        taken = len(self._takes) - len(self._sizes)
        dense = np.full((self._count, FACES), -np.inf, dtype=np.float64)
        dense[self._which, self._faces] = scores[taken:]
        best = dense.max(axis=1) if self._count else dense[:, 0]
        out: list[float] = []
        t = o = k = 0
        for face in self._takes:
            if face >= 0:
                out.append(float(scores[t]))
                t += 1
            else:
                m = self._sizes[k]
                out.append(float(best[o : o + m].mean()))
                o += m
                k += 1
        return out
