"""The deterministic generator behind every shuffle and die roll (version 1).

`random.shuffle` promises nothing across Python versions, and a game record must replay to the same
deal on any machine, in any language. So the engine draws from SHA-256 in counter mode, specified
byte by byte here and in docs/PROTOCOL.md:

    prefix  = b"sushigo/rng/v1" || u32be(len(seed)) || seed || u32be(len(stream)) || stream
    block_i = SHA-256(prefix || u64be(i))            for i = 0, 1, 2, ...
    words   = the blocks concatenated, read as big-endian u32s, in order

`below(n)` takes words until one is under `2**32 - 2**32 % n` (rejection sampling, so every result is
exactly equally likely) and returns it modulo n. `shuffle(items)` is Fisher-Yates from the end:
for i = len-1 down to 1, j = below(i + 1), swap items[i] and items[j].

A `stream` name keeps independent uses of one seed apart (b"deck" for the card deck; the dice game
names its own streams), so adding a new use never changes an old one's numbers.
"""

from __future__ import annotations

import functools
import hashlib
import struct
from typing import TypeVar

T = TypeVar("T")

VERSION = 1
_TAG = b"sushigo/rng/v1"
_WORDS_PER_BLOCK = 8
_U32 = 1 << 32


class DeterministicRng:
    """A stream of uniform integers from (seed, stream), identical on every platform."""

    __slots__ = ("_base", "_counter", "_pos", "_words")

    def __init__(self, seed: bytes, stream: bytes) -> None:
        if not isinstance(seed, bytes) or not isinstance(stream, bytes):
            raise TypeError("seed and stream must be bytes")
        prefix = (
            _TAG + len(seed).to_bytes(4, "big") + seed + len(stream).to_bytes(4, "big") + stream
        )
        self._base = hashlib.sha256(prefix)
        self._counter = 0
        self._words: tuple[int, ...] = ()
        self._pos = 0

    def _refill(self, blocks: int) -> None:
        """Append `blocks` more blocks to the unread words (one unpack for all of them)."""
        chunks = []
        for _ in range(blocks):
            h = self._base.copy()
            h.update(self._counter.to_bytes(8, "big"))
            chunks.append(h.digest())
            self._counter += 1
        fresh = struct.unpack(f">{blocks * _WORDS_PER_BLOCK}I", b"".join(chunks))
        self._words = self._words[self._pos :] + fresh
        self._pos = 0

    def word(self) -> int:
        """The next raw u32."""
        if self._pos >= len(self._words):
            self._refill(1)
        w = self._words[self._pos]
        self._pos += 1
        return w

    def below(self, n: int) -> int:
        """A uniform integer in [0, n), 1 <= n <= 2**32."""
        if not 1 <= n <= _U32:
            raise ValueError(f"below() needs 1 <= n <= 2**32, got {n}")
        limit = _U32 - _U32 % n
        while True:
            w = self.word()
            if w < limit:
                return w % n

    def shuffle(self, items: list[T]) -> None:
        """Shuffle `items` in place: Fisher-Yates from the end, as the module docstring says."""
        n = len(items)
        if n < 2:
            return
        # Fetch all the words one pass needs in one go (rejections are rare: odds below 2**-24 per
        # draw for decks this size); a rejection reads on from the same stream, so the result is
        # exactly that of calling below() n - 1 times.
        need = n - 1 - (len(self._words) - self._pos)
        if need > 0:
            self._refill(-(-need // _WORDS_PER_BLOCK))
        words = self._words
        pos = self._pos
        limits = _limits(n)
        for i in range(n - 1, 0, -1):
            w = words[pos]
            pos += 1
            if w >= limits[i]:
                self._pos = pos
                w = self._redraw(limits[i], i - 1)
                words, pos = self._words, self._pos
            j = w % (i + 1)
            items[i], items[j] = items[j], items[i]
        self._pos = pos
        if pos >= len(words):
            self._words, self._pos = (), 0

    def _redraw(self, limit: int, still_needed: int) -> int:
        """After a rejection: read on until a word is under `limit`, then make sure the unread
        words still cover the `still_needed` draws of the rest of the shuffle."""
        while (w := self.word()) >= limit:
            pass
        short = still_needed - (len(self._words) - self._pos)
        if short > 0:
            self._refill(-(-short // _WORDS_PER_BLOCK))
        return w


@functools.cache
def _limits(n: int) -> tuple[int, ...]:
    """limits[i]: the rejection bound for a draw below i + 1."""
    return tuple(_U32 - _U32 % (i + 1) for i in range(n))
