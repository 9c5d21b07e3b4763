"""The `learned` strategy: a one-ply search over a value network trained by self-play.

For every legal action the bot builds the *afterstate* its seat would see right after playing it
(its tableau with the cards placed, wasabi and chopsticks included, and the hand it passes on),
encoded as the PettingZoo environments encode observations (`bots.games.sushi_go._pz_encoding`, from
its own `SeatMemory`), plus each tableau's provisional points. A small network scores each
afterstate, its chance to win and its expected final margin over the others. With three to five
players the bot looks one turn ahead (`bots.games.sushi_go._learned_table`): each pick is worth
the best afterstate of its next turn, the others' picks predicted by the same network from their
seats (about 0.6 ms a move); from three cards in hand, every hand known, it searches to the
round's end instead (`bots.games.sushi_go._learned_roundend`). With two players it searches a
matrix of its picks against the opponent's instead, each pair's position valued by the duel network
(`bots.games.sushi_go._learned_duel`, about 0.4 ms a move): once both hands are known, against the
opponent's hand; on a round's first turn, against a few hands dealt to it from the unseen cards.
Its last few turns of a round it searches to the round's end and scores by the rules
(`bots.games.sushi_go._learned_endgame`).

The weights are bots/games/sushi_go/learned_go.npz, one network per player count (2 to 5), and
the duel network's learned_duel.npz, made by ``scripts/train_learned.py`` (docs/BOTS.md, "The
learned bot"). Variants play with the
network of their player count: the soy sauce card and the passing direction are in the encoding;
with the dummy variant the dummy's tableau is left out, and the card given to the dummy only
changes the hand passed on. numpy comes from the optional extra ``rl``; without it the strategy
refuses to start with a one-line reason.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sushigo.engine import Action, Card, GameOptions, Observation
from sushigo.engine.games.sushi_go.cards import NUM_KINDS, ROUNDS

from ._base import StrategyError
from .games.sushi_go._learned_duel import search as duel_search
from .games.sushi_go._learned_endgame import (
    MAX_LEAVES,
    kept_index,
    position_of,
    round_points,
    solve,
)
from .games.sushi_go._learned_roundend import MAX_ROWS as ROUND_ROWS
from .games.sushi_go._learned_roundend import search as round_search
from .games.sushi_go._learned_search import (
    MAX_ROWS,
    SAMPLED_ROWS,
    TEMPERATURE,
    choose_row,
    matrix,
    sampled_values,
)
from .games.sushi_go._learned_table import MAX_ROWS as TABLE_ROWS
from .games.sushi_go._learned_table import lookahead
from .games.sushi_go._memory import SeatMemory

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Matrix = npt.NDArray[np.float32]
else:
    Matrix = Any

WEIGHTS = Path(__file__).parent / "games" / "sushi_go" / "learned_go.npz"
"""The shipped weights."""
DUEL_WEIGHTS = WEIGHTS.with_name("learned_duel.npz")
"""The shipped duel network (``scripts/train_learned.py --duel-only``), used with the shipped
weights: a file of its own, so the afterstate networks and it are retrained apart."""

MARGIN_WEIGHT = 0.5
"""How much the predicted margin (final points over the others' mean, divided by `MARGIN_SCALE`)
counts beside the chance to win when actions are compared: it separates actions whose win
chances are alike (early in a game, or a game already decided)."""
MARGIN_SCALE = 20.0

SAMPLES = 2
"""Hands dealt to the opponent at random on a round's first turn with two players (its hand is
then unknown), each searched as a known hand
(`bots.games.sushi_go._learned_search.sampled_values`)."""

ENDGAME = 5
"""With two players, from a round's second turn on, the rest of the round is searched exactly
(`bots.games.sushi_go._learned_endgame`) once our hand holds at most this many cards and the
tree fits in `MOVE_LEAVES` (with 5 cards, about one position in five)."""

ROUND_END = 3
"""With three to five players, the rest of the round is searched to its end
(`bots.games.sushi_go._learned_roundend`) once our hand holds at most this many cards and every
hand is known (0: never; the look-ahead plays instead)."""

ROUND_TOP = 0
"""When the round's end search would score more than its rows (`ROUND_ROWS`), it is tried again
with our picks cut to this many, the best by one ply (0: the look-ahead plays instead)."""

OTHERS_TEMPERATURE = 0.05
"""How sharply each other seat prefers its better picks at the round's last choice in that search
(a softmax of its afterstate values; 0: its best pick only)."""

AHEAD_TEMPERATURE = 0.1
"""In the look-ahead, how sharply the seat whose hand we get prefers its better picks (a softmax
over its best two; 0: its best pick only). 0.1 fits how `ismcts` and `heuristic` seats choose
between the two picks the network likes best."""

LAST_ROUND_END = -1
"""In round 3, the hand size from which the round's end search plays (-1: `ROUND_END`, as in
rounds 1 and 2): there it scores the game's end by the rules."""

BEST_WEIGHT = 0.0
"""In round 3's exact scoring, the share of the margin counted over the best other seat rather
than over the others' mean (0: the mean; 1: the best other seat)."""

DEALS = 6
"""With three to five players, the deals of the hands this seat cannot know yet (a round's first
lap) the look-ahead averages over (`bots.games.sushi_go._learned_table`); 0 plays one ply. Six
deals win more than three at four players for about a quarter more CPU time a move
(docs/BENCHMARKS.md)."""

MOVE_MULTIPLIES = 40_000_000
"""The networks' multiply-adds a move may do at most (about 1 ms of one core); the searches stay
within it by their limits on rows (`_learned_search.MAX_ROWS`, `_learned_duel.MAX_ROWS` in `bots.games.sushi_go`)."""

MOVE_LEAVES = MAX_LEAVES
"""The exact endgame's leaves a move may search at most (`bots.games.sushi_go._learned_endgame.MAX_LEAVES`)."""

_GLOBAL = 8
_TABLEAU = NUM_KINDS + 8
_HAND = _GLOBAL  # the hand's 13 counts follow the global numbers
_MINE = _GLOBAL + NUM_KINDS  # then the seat's own tableau
# Within a tableau block: counts, then nigiri on wasabi (egg, salmon, squid), open wasabi,
# chopsticks ready, puddings, score, hand size.
_ON_WASABI = NUM_KINDS
_OPEN = NUM_KINDS + 3
_READY = NUM_KINDS + 4
_PUDDINGS = NUM_KINDS + 5
_EGG, _SALMON, _SQUID = int(Card.EGG), int(Card.SALMON), int(Card.SQUID)
_WASABI, _CHOP, _PUDDING = int(Card.WASABI), int(Card.CHOPSTICKS), int(Card.PUDDING)
_THEIR_HAND = NUM_KINDS  # the opponent's hand in an endgame position's row


def numpy_or_error() -> Any:
    """The numpy module; `StrategyError` naming the extra to install when it is missing."""
    try:
        import numpy  # noqa: PLC0415  # optional: the extra rl
    except ImportError:
        raise StrategyError(
            "the learned strategy needs numpy: install the extra 'rl' (pip install 'sushigo[rl]')"
        ) from None
    return numpy


_BLAS: list[Any] = []


def blas_controller() -> Any:
    """A `threadpoolctl.ThreadpoolController`, made once per process (it looks up the loaded
    libraries). The search holds numpy's BLAS to one thread: a few hundred rows are too few to
    gain from threads, and on a busy machine waiting for a second one took tens of milliseconds."""
    if not _BLAS:
        try:
            from threadpoolctl import ThreadpoolController  # noqa: PLC0415  # optional: extra rl
        except ImportError:
            raise StrategyError(
                "the learned strategy needs threadpoolctl: install the extra 'rl' "
                "(pip install 'sushigo[rl]')"
            ) from None
        _BLAS.append(ThreadpoolController())
    return _BLAS[0]


class GoFeatures:
    """One seat's afterstate features over one game (it keeps the seat's `SeatMemory`).

    `rows(obs, actions)` must see every observation of the game in order (the last, forced pick
    included), as a strategy's `choose` does.
    """

    def __init__(self) -> None:
        self._np = numpy_or_error()
        from sushigo.bots.games.sushi_go._pz_encoding import (  # noqa: PLC0415  # needs numpy
            SushiGoEncoding,
            knowledge_from_memory,
        )

        self._encoding_class = SushiGoEncoding
        self._knowledge = knowledge_from_memory
        self._memory = SeatMemory()
        self._encodings: dict[GameOptions, Any] = {}
        self.base: Matrix = self._np.zeros(0, dtype=self._np.float32)
        """The last `raw_rows`' position before the pick (for the search with 3-5 players)."""

    def reset(self) -> None:
        """Forget the game."""
        self._memory.reset()

    @property
    def memory(self) -> SeatMemory:
        """The seat's card tracking (as of the last `rows`)."""
        return self._memory

    def rows(self, obs: Observation, actions: Sequence[Action]) -> Matrix:
        """The features of the afterstate of each of `actions` (float32, one row each)."""
        return self.with_points(self.raw_rows(obs, actions), obs.players)

    def observe(self, obs: Observation) -> None:
        """Take in the seat's observation of this turn (`raw_rows` does too)."""
        self._memory.observe(obs)

    def raw_rows(self, obs: Observation, actions: Sequence[Action]) -> Matrix:
        """`rows` without the provisional points appended."""
        np = self._np
        self._memory.observe(obs)
        options = obs.options
        encoding = self._encodings.get(options)
        if encoding is None:
            encoding = self._encodings[options] = self._encoding_class(options)
        known, past = self._knowledge(self._memory)
        base = encoding.encode(obs, known, past)
        n = options.players
        if options.dummy:
            # The networks know the seats' tableaus only: the dummy's block goes.
            start = _MINE + _TABLEAU * n
            base = np.concatenate((base[:start], base[start + _TABLEAU :]))
        self.base = base
        x = np.tile(base, (len(actions), 1))
        for i, (first, second, dummy) in enumerate(actions):
            row = x[i]
            _place(row, first)
            row[_HAND + first] -= 1
            if second is not None:
                _place(row, second)
                row[_HAND + second] -= 1
                row[_HAND + _CHOP] += 1  # the used chopsticks card goes back into the hand
                row[_MINE + _CHOP] -= 1
            if dummy is not None:
                row[_HAND + dummy] -= 1
            row[_MINE + _READY] = 1.0 if row[_MINE + _CHOP] > 0 else 0.0
        return x  # type: ignore[no-any-return]

    def with_points(self, x: Matrix, n: int) -> Matrix:
        """`x` with each tableau's provisional points of the round (sets, dumplings, nigiri with
        their wasabi) and maki icons appended: sums a network would otherwise have to learn."""
        np = self._np
        # Every tableau at once: (rows, n, block) over the tableau blocks, which lie side by side.
        c = x[:, _MINE : _MINE + _TABLEAU * n].reshape(x.shape[0], n, _TABLEAU)
        extra = np.empty((x.shape[0], n, 2), dtype=np.float32)
        extra[..., 0], extra[..., 1] = round_points(np, c)
        extra = extra.reshape(x.shape[0], 2 * n)
        return np.concatenate((x, extra), axis=1)  # type: ignore[no-any-return]


def _place(row: Matrix, card: int) -> None:
    """Put `card` on the seat's own tableau block of `row`, as the engine places it."""
    row[_MINE + card] += 1
    if _EGG <= card <= _SQUID:
        if row[_MINE + _OPEN] > 0:
            row[_MINE + _OPEN] -= 1
            row[_MINE + _ON_WASABI + card - _EGG] += 1
    elif card == _WASABI:
        row[_MINE + _OPEN] += 1
    elif card == _PUDDING:
        row[_MINE + _PUDDINGS] += 1


class Mlp:
    """A multilayer perceptron with ReLUs, in numpy (here: afterstate features in, win logit and
    margin out; the duel network: a position in, its value out; Sushi Roll's: an observation in,
    a score per action out). The input's normalization is folded into the first layer.

    Every forward pass holds numpy's BLAS to one thread (`blas_controller`): a move's few hundred
    rows gain nothing from a second thread, and on a busy server waiting for one took tens of
    milliseconds. A bot must not take a core it was not given."""

    def __init__(self, layers: Sequence[tuple[Matrix, Matrix]], mean: Matrix, std: Matrix) -> None:
        np = numpy_or_error()
        (w0, b0), *rest = layers
        # A number that never changed in training (the training scripts add 1e-3 to every
        # standard deviation, so its std is exactly that) always reached the network as 0: its
        # weights never learned anything. Elsewhere (a variant's soy sauce count or passing
        # direction) it must still count as 0, not as a thousandfold random input.
        w0 = np.where((std > 2e-3)[:, None], w0, 0.0)
        self._blas = blas_controller()
        with self._blas.limit(limits=1, user_api="blas"):
            # (x - mean) / std @ w0 + b0 == x @ (w0 / std) + (b0 - (mean / std) @ w0)
            scaled = (w0 / std[:, None]).astype(np.float32)
            shift = (b0 - (mean / std) @ w0).astype(np.float32)
        self._layers = [(scaled, shift), *((w, b) for w, b in rest)]
        self._np = np
        self.per_row = sum(w.size for w, _ in self._layers)
        """Multiply-adds to value one row."""
        self.work = 0
        """Multiply-adds done so far (what a move costs, counted for tests and benchmarks)."""

    def __call__(self, x: Matrix) -> Matrix:
        """The outputs of each row of `x`."""
        np = self._np
        self.work += len(x) * self.per_row
        *hidden, (w, b) = self._layers
        with self._blas.limit(limits=1, user_api="blas"):
            for wh, bh in hidden:
                x = x @ wh
                x += bh
                np.maximum(x, 0.0, out=x)
            return x @ w + b  # type: ignore[no-any-return]


_ARRAYS: dict[tuple[Path, int], dict[str, Any]] = {}
"""Arrays by weights file (and its modification time: training rewrites its file), each read
once per process, and the networks made from them."""


def _arrays(path: Path) -> dict[str, Any]:
    """The arrays of a weights file (with the networks made of them so far, by key `nets` and
    `duel`); `StrategyError` if it cannot be read."""
    np = numpy_or_error()
    try:
        key = (path, path.stat().st_mtime_ns)
        found = _ARRAYS.get(key)
        if found is not None:
            return found
        with np.load(path) as data:
            arrays = {name: data[name] for name in data.files}
    except (OSError, ValueError) as exc:
        raise StrategyError(f"cannot read the learned bot's weights {str(path)!r}: {exc}") from None
    _ARRAYS[key] = arrays
    return arrays


def _mlp(arrays: dict[str, Any], prefix: str) -> Mlp:
    """The network stored under `prefix` (``w0``, ``b0``, ``w1``, ... ``mean``, ``std``)."""
    layers: list[tuple[Matrix, Matrix]] = []
    while f"{prefix}w{len(layers)}" in arrays:
        k = len(layers)
        layers.append((arrays[f"{prefix}w{k}"], arrays[f"{prefix}b{k}"]))
    return Mlp(layers, arrays[f"{prefix}mean"], arrays[f"{prefix}std"])


def load_nets(path: Path = WEIGHTS) -> dict[int, Mlp]:
    """The networks of a weights file by player count; `StrategyError` if it cannot be read."""
    arrays = _arrays(path)
    nets: dict[int, Mlp] | None = arrays.get("nets")
    if nets is None:
        nets = {p: _mlp(arrays, f"p{p}_") for p in range(2, 6) if f"p{p}_w0" in arrays}
        if not nets:
            raise StrategyError(f"the weights file {str(path)!r} holds no network")
        arrays["nets"] = nets
    return nets


def load_duel(path: Path = WEIGHTS) -> Mlp | None:
    """The two-player duel network of a weights file (`bots.games.sushi_go._learned_duel`), for
    the shipped weights `DUEL_WEIGHTS`'s; None without one."""
    arrays = _arrays(path)
    if "duel" not in arrays:
        if "d2_w0" in arrays:
            arrays["duel"] = _mlp(arrays, "d2_")
        elif path == WEIGHTS and DUEL_WEIGHTS.exists():
            arrays["duel"] = load_duel(DUEL_WEIGHTS)
        else:
            arrays["duel"] = None
    return arrays["duel"]  # type: ignore[no-any-return]


class LearnedStrategy:
    """Scores the afterstate of every legal action with the value network of its player count and
    plays the best (ties broken with `rng`), searching a turn ahead where it can (`search`).

    `weights` names another weights file (as ``scripts/train_learned.py`` writes them);
    `explore` is the chance of a uniformly random legal action instead, for self-play;
    `margin` how much the predicted margin counts beside the chance to win (`MARGIN_WEIGHT`);
    `roundend`, `others`, `roundrows` and `roundtop` the round's end search with 3-5 players
    (`ROUND_END`, `OTHERS_TEMPERATURE`, `ROUND_ROWS`, `ROUND_TOP`), `lookrows` the
    look-ahead's next-turn positions at most (`bots.games.sushi_go._learned_table.MAX_ROWS`).
    `ahead` the look-ahead's model of the seat whose hand comes next (`AHEAD_TEMPERATURE`);
    `lastround` and `best` the round's end search in round 3 (`LAST_ROUND_END`, `BEST_WEIGHT`).
    """

    name = "learned"

    def __init__(
        self,
        weights: str = "",
        explore: float = 0.0,
        search: int = 1,
        temp: float = TEMPERATURE,
        samples: int = SAMPLES,
        endgame: int = ENDGAME,
        duel: int = 1,
        rows: int = MAX_ROWS,
        leaves: int = MOVE_LEAVES,
        deals: int = DEALS,
        margin: float = MARGIN_WEIGHT,
        roundend: int = ROUND_END,
        others: float = OTHERS_TEMPERATURE,
        roundrows: int = ROUND_ROWS,
        roundtop: int = ROUND_TOP,
        lookrows: int = TABLE_ROWS,
        ahead: float = AHEAD_TEMPERATURE,
        lastround: int = LAST_ROUND_END,
        best: float = BEST_WEIGHT,
    ) -> None:
        path = Path(weights) if weights else WEIGHTS
        self._nets = load_nets(path)
        self._features = GoFeatures()
        self._explore = float(explore)
        self._search = bool(int(search))
        self._temp = float(temp)
        self._samples = max(0, int(samples))
        self._endgame = int(endgame)
        # The searches' limits: positions scored by the matrix search (three quarters of them on
        # a round's first turn, whose picks are the most varied) and the exact endgame's leaves.
        self._rows = max(1, int(rows))
        self._leaves_limit = min(MOVE_LEAVES, max(0, int(leaves)))
        self._np = numpy_or_error()
        self._duel = load_duel(path) if duel else None
        self._deals = max(0, int(deals))
        self._lookrows = max(1, int(lookrows))
        self._margin = float(margin)
        self._roundend = int(roundend)
        self._others = max(0.0, float(others))
        self._round_rows = max(0, int(roundrows))
        self._round_top = max(0, int(roundtop))
        self._ahead = max(0.0, float(ahead))
        self._lastround = int(lastround)
        self._best = float(best)
        self._leaves = 0
        self.last_work = (0, 0)
        """The last move's work: the networks' multiply-adds and the exact endgame's leaves
        (within `MOVE_MULTIPLIES` and `MOVE_LEAVES`)."""

    def reset(self) -> None:
        """Forget the previous game."""
        self._features.reset()

    def _net(self, players: int) -> Mlp:
        net = self._nets.get(players)
        if net is None:
            raise StrategyError(f"no learned network for {players} players")
        return net

    def _score(self, raw: Matrix, players: int) -> Matrix:
        """The value (chance to win plus the margin's share) of raw afterstate rows."""
        np = self._np
        out = self._net(players)(self._features.with_points(raw, players))
        win = 0.5 + 0.5 * np.tanh(0.5 * out[:, 0])  # the logistic function, without overflow
        return win + self._margin * out[:, 1]  # type: ignore[no-any-return]

    def values(self, observation: Observation, legal: Sequence[Action]) -> Matrix:
        """The value of each of `legal` (chance to win plus the margin's share)."""
        self._net(observation.players)
        return self._score(self._features.raw_rows(observation, legal), observation.players)

    def choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The legal action of highest value; with two players, the best row of the duel search
        (`bots.games.sushi_go._learned_duel`) or the exact endgame against the opponent's hand, known or dealt;
        with three to five, the best one turn ahead (`bots.games.sushi_go._learned_table`)."""
        nets = [self._net(observation.players), *([self._duel] if self._duel else [])]
        before = sum(net.work for net in nets)
        self._leaves = 0
        action = self._choose(observation, legal, rng)
        self.last_work = (sum(net.work for net in nets) - before, self._leaves)
        return action

    def _choose(
        self, observation: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        players = observation.players
        self._features.observe(observation)
        if len(legal) == 1:
            return legal[0]
        if self._explore and rng.random() < self._explore:
            return legal[rng.randrange(len(legal))]
        if self._search and players == 2 and not observation.options.dummy:
            found = self._two_players(observation, legal, rng)
            if found is not None:
                return found
        if self._search and players > 2 and self._deals and not observation.options.dummy:
            return self._many_players(observation, legal, rng)
        return self._one_ply(self._features.raw_rows(observation, legal), players, legal, rng)

    def _two_players(
        self, obs: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action | None:
        """With two players: the exact endgame once both hands are known and ours holds at most
        `endgame` cards, else the duel search against the opponent's hand, known or dealt (the
        afterstates' matrix search with the soy sauce variant, whose cards the duel network
        does not score). None where neither applies."""
        seat = obs.seat
        if seat is None:
            return None
        theirs = self._features.memory.hands[1 - seat]
        if theirs.unknown == 0 and len(obs.hand) <= self._endgame:
            found_end = self._exact_end(obs, legal, theirs.known)
            if found_end is not None:
                return found_end
        if self._duel is not None and not obs.options.soy_sauce:
            if theirs.unknown and not self._samples:
                return None  # no hand dealt to search against: one ply
            return self._duel_move(obs, legal, theirs.known, theirs.unknown, rng)
        raw = self._features.raw_rows(obs, legal)
        if theirs.unknown > 0:
            if self._samples:
                found_first = self._first_turn(raw, seat, rng)
                if found_first is not None:
                    return legal[found_first]
            return None
        np = self._np
        hand = np.array(theirs.known, dtype=np.float32)
        first = self._score(raw, 2)
        found = matrix(np, raw, first, hand, lambda rows: self._score(rows, 2), self._rows)
        if found is None:
            return None
        m, rows = found
        return legal[int(rows[choose_row(np, m, self._temp)])]

    def _duel_move(
        self,
        obs: Observation,
        legal: Sequence[Action],
        known: list[int],
        unknown: int,
        rng: random.Random,
    ) -> Action | None:
        """The duel search (`bots.games.sushi_go._learned_duel`) against the opponent's hand: `known` cards and
        `unknown` more, dealt `samples` times from the cards this seat has not seen."""
        np = self._np
        pos = position_of(np, obs, known)
        roots = pos.row[None]
        if unknown:
            memory = self._features.memory
            pool = [card for card, n in enumerate(memory.unseen()) for _ in range(n)]
            roots = np.repeat(roots, self._samples, axis=0)
            for hand in roots[:, _THEIR_HAND : _THEIR_HAND + NUM_KINDS]:
                for card in rng.sample(pool, min(unknown, len(pool))):
                    hand[card] += 1
        found = duel_search(
            np,
            self._duel,
            roots,
            pos.scores[0] - pos.scores[1],
            pos.puddings[0] - pos.puddings[1],
            pos.round,
            self._temp,
        )
        if found is None:
            return None
        values, picks = found
        best = int(picks[int(np.argmax(values))])
        for action in legal:
            if kept_index(np, action) == best:
                return action
        return None

    def _exact_end(
        self, obs: Observation, legal: Sequence[Action], theirs: list[int]
    ) -> Action | None:
        """The round's last few turns with both hands known: the row of the exact endgame's root
        matrix (`bots.games.sushi_go._learned_endgame`) our opponent model likes best; None when the
        tree is too big or the rules differ from those it scores (soy sauce)."""
        if obs.options.soy_sauce or obs.seat is None or self._leaves_limit < 1:
            return None
        np = self._np
        found = solve(np, position_of(np, obs, theirs), self._leaves_limit)
        if found is None:
            return None
        m, rows, _, self._leaves = found
        row = int(rows[choose_row(np, m, self._temp)])
        for action in legal:
            if kept_index(np, action) == row:
                return action
        return None

    def _first_turn(self, raw: Matrix, seat: int, rng: random.Random) -> int | None:
        """A round's first turn with two players: the matrix search against `samples` hands
        dealt to the opponent from the cards this seat has not seen; the index of the action."""
        np = self._np
        memory = self._features.memory
        theirs = memory.hands[1 - seat]
        pool = [card for card, n in enumerate(memory.unseen()) for _ in range(n)]
        hands = np.tile(np.array(theirs.known, dtype=np.float32), (self._samples, 1))
        for hand in hands:
            for card in rng.sample(pool, min(theirs.unknown, len(pool))):
                hand[card] += 1
        first = self._score(raw, 2)
        limit = self._rows * SAMPLED_ROWS // MAX_ROWS
        found = sampled_values(
            np, raw, first, hands, lambda rows: self._score(rows, 2), self._temp, limit
        )
        if found is None:
            return None
        values, kept = found
        return int(kept[int(np.argmax(values))])

    def _one_ply(
        self, raw: Matrix, players: int, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """The action of the best afterstate (ties broken with `rng`)."""
        values = self._score(raw, players)
        scores = values.tolist()  # Python floats: a float32 cannot hold top - 1e-6 near 30
        top = max(scores)
        best = [i for i, v in enumerate(scores) if v > top - 1e-6]
        return legal[best[0] if len(best) == 1 else best[rng.randrange(len(best))]]

    def _round_end(self, obs: Observation, raw: Matrix, known: Matrix) -> int | None:
        """The round's end search (`bots.games.sushi_go._learned_roundend`) from our afterstates
        `raw`, every hand `known`: the index of the best; when the tree is over `roundrows`, the
        best of our `roundtop` picks best by one ply searched again; None when it is still over."""
        np = self._np
        n = obs.players

        def run(after: Matrix) -> Matrix | None:
            return round_search(
                np,
                obs,
                self._features.base[None],
                known,
                after,
                np.zeros(len(after), dtype=np.intp),
                lambda rows: self._score(rows, n),
                self._others,
                self._margin,
                self._round_rows,
                self._best,
            )

        found = run(raw)
        if found is not None:
            return int(np.argmax(found))
        if not 0 < self._round_top < len(raw):
            return None
        first = self._score(raw, n)
        top = np.sort(np.argsort(-first, kind="stable")[: self._round_top])
        found = run(raw[top])
        return None if found is None else int(top[int(np.argmax(found))])

    def _many_players(
        self, obs: Observation, legal: Sequence[Action], rng: random.Random
    ) -> Action:
        """With three to five players: the pick best one turn ahead, the others' picks predicted
        by the network (`bots.games.sushi_go._learned_table`), over a few deals of the hands not
        known yet; in a round's last `roundend` turns, every hand known, the best to the round's
        end (`bots.games.sushi_go._learned_roundend`)."""
        np = self._np
        n = obs.players
        features = self._features
        raw = features.raw_rows(obs, legal)
        memory = features.memory
        seat = obs.seat
        assert seat is not None
        order = [memory.hands[(seat + r) % n] for r in range(n)]
        unknown = [h.unknown for h in order]
        limit = self._roundend
        if obs.round == ROUNDS and self._lastround >= 0:
            limit = self._lastround
        if 2 <= len(obs.hand) <= limit and not any(unknown) and not obs.options.soy_sauce:
            known = np.array([[h.known for h in order]], dtype=np.float32)
            found = self._round_end(obs, raw, known)
            if found is not None:
                return legal[found]
        deals = self._deals if any(unknown) else 1
        hands = np.tile(np.array([h.known for h in order], dtype=np.float32), (deals, 1, 1))
        if any(unknown):
            # Deal the cards not located yet to the hands' unknown places, at random.
            pool = [card for card, count in enumerate(memory.unseen()) for _ in range(count)]
            need = sum(unknown)
            for d in range(deals):
                cards = rng.sample(pool, need) if need <= len(pool) else pool
                at = 0
                for r, u in enumerate(unknown):
                    for card in cards[at : at + u]:
                        hands[d, r, card] += 1
                    at += u
        values, kept = lookahead(
            np,
            raw,
            features.base,
            hands,
            n,
            obs.pass_direction,
            lambda rows: self._score(rows, n),
            self._lookrows,
            neighbour=self._ahead,
        )
        return legal[int(kept[int(np.argmax(values))])]
