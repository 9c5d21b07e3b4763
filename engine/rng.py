"""The deterministic generator behind every shuffle and die roll (version 1).

`random.shuffle` promises nothing across Python versions, and a game record must replay to the same
deal on any machine, in any language. So the engine draws from SHA-256 in counter mode, specified
byte by byte here and in docs/PROTOCOL.md:

    prefix  = b"sushigo/rng/v1" || u32be(len(seed)) || seed || u32be(len(stream)) || stream
    block_i = SHA-256(prefix || u64be(i))            for i = 0, 1, 2, ...
    words   = the blocks concatenated, read as big-endian u16s, in order (16 per block)

`below(n)`, for 1 <= n <= 65536, takes words until one is under `65536 - 65536 % n` (rejection
sampling, so every result is exactly equally likely) and returns it modulo n. (16-bit words halve the
hashing of 32-bit ones; a deck of 111 cards still rejects under 0.2% of draws.) `shuffle(items)` is Fisher-Yates from the end:
for i = len-1 down to 1, j = below(i + 1), swap items[i] and items[j].

A `stream` name keeps independent uses of one seed apart (b"deck" for the card deck; the dice game
names its own streams), so adding a new use never changes an old one's numbers.
"""

from __future__ import annotations

import functools
import hashlib
import operator
import struct
from typing import TypeVar

T = TypeVar("T")

VERSION = 1
_TAG = b"sushigo/rng/v1"
_WORDS_PER_BLOCK = 16
_SPAN = 1 << 16
_HIGH = bytes(6)
"""The top six bytes of u64be(i), zero for every block i under 2**16."""
_LOW = [i.to_bytes(2, "big") for i in range(256)]
"""The last two bytes of u64be(i) for the first blocks (a game's deck needs seven)."""


class DeterministicRng:
    """A stream of uniform integers from (seed, stream), identical on every platform."""

    __slots__ = ("_base", "_counter", "_pos", "_prefix", "_words")

    def __init__(self, seed: bytes, stream: bytes) -> None:
        if not isinstance(seed, bytes) or not isinstance(stream, bytes):
            raise TypeError("seed and stream must be bytes")
        prefix = (
            _TAG + len(seed).to_bytes(4, "big") + seed + len(stream).to_bytes(4, "big") + stream
        )
        self._prefix = prefix
        # The hash of the prefix and the zero top bytes of the counters of blocks 0 to 2**16 - 1:
        # each of those blocks then hashes only its counter's last two bytes. With the usual
        # 32-byte seed and a short stream name, this part is exactly one 64-byte SHA-256 block,
        # hashed once here instead of once per block of words (each would need two).
        self._base = hashlib.sha256(prefix + _HIGH)
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self, blocks: int) -> None:
        """Append `blocks` more blocks to the unread words (one unpack for all of them)."""
        counter = self._counter
        end = counter + blocks
        chunks = []
        if end <= _SPAN:
            copy = self._base.copy
            for low in _LOW[counter:end] if end <= len(_LOW) else _lows(counter, end):
                h = copy()
                h.update(low)
                chunks.append(h.digest())
        else:  # (never in a game: a million words)
            for i in range(counter, end):
                chunks.append(hashlib.sha256(self._prefix + i.to_bytes(8, "big")).digest())
        self._counter = end
        fresh = struct.unpack(f">{blocks * _WORDS_PER_BLOCK}H", b"".join(chunks))
        self._words = self._words[self._pos :] + fresh
        self._pos = 0

    def word(self) -> int:
        """The next raw 16-bit word."""
        if self._pos >= len(self._words):
            self._refill(1)
        w = self._words[self._pos]
        self._pos += 1
        return w

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), 1 <= n <= 65536."""
        if not 1 <= n <= _SPAN:
            raise ValueError(f"below() needs 1 <= n <= 65536, got {n}")
        limit = _SPAN - _SPAN % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def shuffle(self, items: list[T]) -> None:
        """Shuffle `items` in place: Fisher-Yates from the end, as the module docstring says."""
        n = len(items)
        if n < 2:
            return
        if n > _SPAN:
            raise ValueError(f"shuffle() takes at most 65536 items, got {n}")
        # Fetch all the words one pass needs in one go. In the common case, no rejection, the
        # indices come from C-level maps and only the swaps run in Python; after a rejection the
        # draws from that point on take the general path, reading on from the same stream, so the
        # result is always exactly that of calling below() n - 1 times.
        need = n - 1 - (len(self._words) - self._pos)
        if need > 0:
            self._refill(-(-need // _WORDS_PER_BLOCK))
        start = self._pos
        words = self._words[start : start + n - 1]
        limits, bounds, lowest = _tables(n)
        # A pass whose words are all under the lowest limit (nearly every one: the limits are all
        # within n of 65536) skips the word-by-word comparison.
        if max(words) >= lowest and any(map(operator.ge, words, limits)):
            k = next(
                i for i, (w, limit) in enumerate(zip(words, limits, strict=True)) if w >= limit
            )
        else:
            k = n - 1
        # zip without strict=True (both have k items): keyword arguments take a slow call path.
        for i, j in zip(range(n - 1, n - 1 - k, -1), map(operator.mod, words[:k], bounds)):  # noqa: B905
            items[i], items[j] = items[j], items[i]
        self._pos = start + k
        for i in range(n - 1 - k, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]


def _lows(start: int, end: int) -> list[bytes]:
    """The last two bytes of u64be(i) for i from `start` to `end` (at most 2**16)."""
    return [i.to_bytes(2, "big") for i in range(start, end)]


@functools.cache
def _tables(n: int) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """A shuffle of n items draws below n, n-1, ..., 2: their rejection limits, those bounds, and
    the lowest of the limits."""
    bounds = tuple(range(n, 1, -1))
    limits = tuple(_SPAN - _SPAN % b for b in bounds)
    return limits, bounds, min(limits)
