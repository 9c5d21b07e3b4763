"""Legal actions from a hand, computed once per distinct situation and cached.

A hand is packed into one int: 4 bits of count per card kind (`count(c) = code >> 4*c & 15`; a hand
never holds more than 11 cards). Without chopsticks the legal actions depend only on which kinds are
present; with chopsticks, also on which kinds are held twice or more. Both are a few bit operations
on the packed code (one bit per nibble), which makes a cache key with a very high hit rate. The
dummy's controller, whose options depend on exact counts, is keyed by the whole code.
Every `Action` value is interned, so the cache holds references to a few thousand shared tuples.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

from sushigo.engine.errors import IllegalActionError, MalformedActionError

from .actions import Action
from .cards import CARDS, NIGIRI_POINTS, NUM_KINDS, Card
from .errors import CardNotInHandError, ChopsticksUnavailableError, DummyPickError

Entry = tuple[Action, int, int, int]
"""An interned action; the packed cards it takes out of the hand (less a chopsticks card it puts
back); what it adds to the seat's own tableau code (those cards less the dummy's, with their plain
nigiri points, see `NIGIRI_SHIFT`); and what placing it needs beyond that addition, one of the
`PLAIN`, `ONE_WASABI`, `ONE_CHOPSTICKS` and `MORE` codes below (true when not `PLAIN`). A plain
nigiri needs more only when its seat has a wasabi waiting, which the game checks per seat."""

PLAIN, ONE_WASABI, ONE_CHOPSTICKS, MORE = 0, 1, 2, 3
"""An `Entry`'s last field: nothing more to do; a single wasabi, which waits for a nigiri; a
single chopsticks card, ready from the next turn; anything else (a chopsticks pair, a dummy pick),
which the game places card by card."""


LegalSet = tuple[Action, ...]
"""A seat's legal actions, in a fixed order: one shared tuple per distinct situation. An action
is checked by its `Entry` (`entry_of`, one small index of every action ever legal) and by its
membership of the seat's tuple (a scan by identity, which finds an interned action at once)."""


_CACHE: dict[int, LegalSet] = {}
_DUMMY_CACHE: dict[int, LegalSet] = {}
_CACHE_LIMIT = 1 << 16
_LOW_BITS = sum(1 << (4 * c) for c in range(NUM_KINDS))
"""Bit 0 of every card's nibble."""
_CHOP_KEY = 1 << (4 * NUM_KINDS + 1)

_SINGLE = [Action(c) for c in CARDS]
_PAIR = [[Action(a, b) for b in CARDS] for a in CARDS]
_WITH_DUMMY: dict[tuple[Card, Card | None, Card], Action] = {}
"""The dummy variant's actions by their cards, made the first time a legal set needs them (2,184
actions: a millisecond of start-up that only the variant needs)."""


def _with_dummy() -> dict[tuple[Card, Card | None, Card], Action]:
    if not _WITH_DUMMY:
        _WITH_DUMMY.update(
            ((own.first, own.second, d), Action(own.first, own.second, d))
            for own in [*_SINGLE, *(p for row in _PAIR for p in row)]
            for d in CARDS
        )
    return _WITH_DUMMY


def pack(cards: Iterable[int]) -> int:
    """The packed code of a hand."""
    code = 0
    for card in cards:
        code += 1 << (card << 2)
    return code


def unpack(code: int) -> tuple[Card, ...]:
    """The hand of a packed code, sorted by card value (cached: a server unpacks every seat's
    hand every turn)."""
    found = _UNPACKED.get(code)
    if found is None:
        if len(_UNPACKED) >= _CACHE_LIMIT:
            _UNPACKED.clear()
        found = _UNPACKED[code] = tuple(
            card for card in CARDS for _ in range(code >> (card << 2) & 15)
        )
    return found


_UNPACKED: dict[int, tuple[Card, ...]] = {}


def count(code: int, card: int) -> int:
    """How many of `card` the packed hand holds."""
    return code >> (card << 2) & 15


def legal_actions(
    code: int, size: int, chopsticks: bool, controls_dummy: bool
) -> tuple[Action, ...]:
    """Every legal action, in a fixed order: single picks, then chopsticks pairs, by card value.

    `size` is the number of cards in the hand. Chopsticks need a second card in hand (a third for the
    dummy's controller, who also gives the dummy one card from the same hand).
    """
    return legal_set(code, size, chopsticks, controls_dummy)


def legal_set(code: int, size: int, chopsticks: bool, controls_dummy: bool) -> LegalSet:
    """The legal actions (see `legal_actions`), from the shared cache."""
    cache = _CACHE
    if controls_dummy:
        cache, key = _DUMMY_CACHE, code << 5 | size << 1 | chopsticks
    elif size > _SMALL_COUNTS:
        # (Two or three players: a kind may fill a nibble, so its bits are folded instead.)
        if chopsticks and size >= 2:
            twice = (code >> 1 | code >> 2 | code >> 3) & _LOW_BITS
            key = (code | twice) & _LOW_BITS | twice << 1 | _CHOP_KEY
        else:
            key = ((t := code | code >> 1) | t >> 2) & _LOW_BITS
    elif chopsticks and size >= 2:
        key = (code + _SEVENS) & _HIGH_BITS | ((code + _SIXES) & _HIGH_BITS) >> 1 | _CHOP_KEY
    else:
        key = (code + _SEVENS) & _HIGH_BITS  # see `presence_sets`
    found = cache.get(key)
    if found is None:
        if len(cache) >= _CACHE_LIMIT:
            cache.clear()
        found = cache[key] = _compute(code, size, chopsticks, controls_dummy)
    return found


_EXACT: dict[int, LegalSet] = {}
EXACT_MAX_SIZE = 5
"""The exact cache holds hands of at most this many cards. Bigger hands are so varied (a
four-player game deals one of tens of thousands of 8-card hands, and a 7-card key still missed one
time in six after 5,000 random games) that working out their presence key costs less than a miss;
small hands are few (under 10,000 keys with 5 cards or fewer, chopsticks included), so the cache
fills once and then always hits, and never needs clearing."""
CHOPSTICKS_KEY = 1 << 62
"""Added to a packed hand, in `turn_sets`' keys, when its seat has chopsticks ready."""


def turn_sets(
    hands: list[int], size: int, chop_keys: list[int], controller: int | None
) -> tuple[LegalSet, ...]:
    """Every seat's legal set at the start of a turn (the game's hot path).

    For hands of up to `EXACT_MAX_SIZE` cards, a second cache keyed by the exact packed hand plus
    `chop_keys[s]` (`CHOPSTICKS_KEY` when seat s has chopsticks ready, else 0) makes the common case
    one C-level `map` over the seats; misses, bigger hands and the dummy's controller take
    `legal_set`.
    """
    small = size <= EXACT_MAX_SIZE
    found: Sequence[LegalSet | None]
    if small:
        found = tuple(map(_EXACT.get, map(operator.or_, hands, chop_keys)))
    elif controller is None:
        found = presence_sets(hands, size, chop_keys)
    else:
        found = (None,) * len(hands)
    if controller is None and None not in found:
        return found  # type: ignore[return-value]  # None was just ruled out
    out = []
    for s, code in enumerate(hands):
        chopsticks = chop_keys[s] != 0
        cached = found[s]
        if s == controller:
            cached = legal_set(code, size + 1, chopsticks, True)
        elif cached is None:
            cached = legal_set(code, size, chopsticks, False)
            if small:
                _EXACT[code | chop_keys[s]] = cached
        out.append(cached)
    return tuple(out)


def presence_sets(hands: list[int], size: int, chop_keys: list[int]) -> tuple[LegalSet | None, ...]:
    """Every seat's legal set for hands of `size` cards, two or more, none the dummy's
    controller's, from `legal_set`'s cache (None where it is not cached yet), in one
    comprehension: its keys without `legal_set`'s call for each seat. `chop_keys` as for
    `turn_sets`.

    The key says which kinds the hand holds. In a hand of at most 8 cards (`_SMALL_COUNTS`) no
    count passes 8, so adding 7 to every nibble carries into none and sets a nibble's top bit
    exactly when its kind is present: two operations on the packed code (each makes a new int).
    With chopsticks ready the key also says which kinds the hand holds twice or more (adding 6,
    shifted one bit down). Bigger hands (two or three players) fold each nibble's bits instead."""
    get = _CACHE.get
    if size > _SMALL_COUNTS:
        return _folded_sets(hands, chop_keys)
    high = _HIGH_BITS
    if not any(chop_keys):
        return tuple([get((c + _SEVENS) & high) for c in hands])
    return tuple(
        [
            get((c + _SEVENS) & high | ((c + _SIXES) & high) >> 1 | _CHOP_KEY)
            if k
            else get((c + _SEVENS) & high)
            for c, k in zip(hands, chop_keys)  # noqa: B905 (equal lengths; strict=True is slow)
        ]
    )


def _folded_sets(hands: list[int], chop_keys: list[int]) -> tuple[LegalSet | None, ...]:
    """`presence_sets` for hands of more than 8 cards, keyed as `legal_set` keys them: a kind is
    present when any bit of its nibble is (`t = code | code >> 1` folds each nibble's bits 1 and 3
    onto bits 0 and 2, and `t | t >> 2` bit 2 onto bit 0), held twice when any of bits 1 to 3 is."""
    get = _CACHE.get
    low = _LOW_BITS
    if not any(chop_keys):
        return tuple([get(((t := c | c >> 1) | t >> 2) & low) for c in hands])
    return tuple(
        [
            get((c & low | (w := (c >> 1 | c >> 2 | c >> 3) & low)) | w << 1 | _CHOP_KEY)
            if k
            else get(((t := c | c >> 1) | t >> 2) & low)
            for c, k in zip(hands, chop_keys)  # noqa: B905 (equal lengths; strict=True is slow)
        ]
    )


_SMALL_COUNTS = 8
"""Hands of up to this many cards take `presence_sets`' two-operation keys."""
_SEVENS = 7 * _LOW_BITS
_SIXES = 6 * _LOW_BITS
_HIGH_BITS = 8 * _LOW_BITS
"""Bit 3 of every card's nibble."""


NIGIRI_SHIFT = 4 * NUM_KINDS
"""A tableau's code (a hand's never) also keeps the tableau's nigiri points this round, wasabi
included, from this bit up: just above the kinds' nibbles, where reading a kind's count never sees
them (and the code stays under 2**60, a two-digit int for CPython)."""
NIGIRI_CODES = [NIGIRI_POINTS.get(card, 0) << NIGIRI_SHIFT for card in CARDS]
"""Each card's plain nigiri points, placed in a tableau code."""

_CHOP_BIT = 1 << (Card.CHOPSTICKS << 2)


_ENTRIES: dict[Action, Entry] = {}
"""Every action's `Entry`, shared by all the legal sets that hold the action."""


def _entry(action: Action) -> Entry:
    found = _ENTRIES.get(action)
    if found is None:
        found = _ENTRIES[action] = _new_entry(action)
    return found


def _new_entry(action: Action) -> Entry:
    first, second, dummy = action
    cards = 1 << (first << 2)
    nigiri = NIGIRI_CODES[first]
    if second is not None or dummy is not None:
        special = MORE
    elif first == Card.WASABI:
        special = ONE_WASABI
    elif first == Card.CHOPSTICKS:
        special = ONE_CHOPSTICKS
    else:
        special = PLAIN
    if second is not None:
        cards += (1 << (second << 2)) - _CHOP_BIT
        nigiri += NIGIRI_CODES[second]
    taken = cards if dummy is None else cards + (1 << (dummy << 2))
    return action, taken, cards + nigiri, special


# The entries of every action without a dummy pick, made now (a long game keeps meeting hands it
# has not seen, chopsticks pairs above all, so `_compute` stays on the hot path and makes none of
# these); those with a dummy pick are made when a legal set first holds them (thousands, and only
# in the two-player variant).
for _action in [*_SINGLE, *(p for row in _PAIR for p in row)]:
    _entry(_action)
entry_of = _ENTRIES.get
"""An action's `Entry` (None for an action never legal anywhere): every legal set's actions have
theirs, made when the set was (the game checks an action's membership of its seat's set apart)."""


def _compute(code: int, size: int, chopsticks: bool, controls_dummy: bool) -> LegalSet:
    kinds = [card for card in CARDS if code >> (card << 2) & 15]
    own = [_SINGLE[card] for card in kinds]
    if chopsticks and size >= (3 if controls_dummy else 2):
        # The pairs (a, b) by a then b, both in the hand (a twice for a == b): by rows of C-level
        # look-ups, a itself left out of its row when the hand holds one only.
        for i, a in enumerate(kinds):
            row = _PAIR[a].__getitem__
            if code >> (a << 2) & 15 >= 2:
                own += map(row, kinds)
            else:
                own += map(row, kinds[:i])
                own += map(row, kinds[i + 1 :])
    if controls_dummy:
        with_dummy = _with_dummy()
        out = []
        for action in own:
            left = code - sum(1 << (c << 2) for c in action.cards)
            out += [with_dummy[action.first, action.second, d] for d in kinds if count(left, d)]
        own = out
        for action in own:
            _entry(action)  # every legal action has its entry (`entry_of`)
    return tuple(own)


NO_ACTIONS: LegalSet = ()
"""The legal set of a seat once the game is over."""

exact_set = _EXACT.get
"""The exact cache of `turn_sets` by key (a packed hand of at most `EXACT_MAX_SIZE` cards, plus
`CHOPSTICKS_KEY` when its seat has chopsticks ready): the seat's `LegalSet`, or None when it is
not cached yet."""


def refusal(
    seat: int, action: object, hand: int, chopsticks: bool, held: int, controls_dummy: bool
) -> IllegalActionError:
    """The specific error for `action`, which `seat` may not take now: its `hand` (packed),
    whether it has chopsticks ready, how many cards it holds (the dummy's drawn card included), and
    whether it controls the dummy this turn. Worked out only once an action is refused, so the legal
    sets need not say why."""
    s, a = seat, action
    if not isinstance(a, tuple) or len(a) != 3:
        return MalformedActionError(s, f"expected an Action, got {type(a).__name__}")
    first, second, dummy = a
    if first.__class__ is not Card:
        return MalformedActionError(s, f"not a card: {first!r}")
    for card in (second, dummy):
        if card is not None and card.__class__ is not Card:
            return MalformedActionError(s, f"not a card: {card!r}")
    h = hand
    if not h >> (first << 2) & 15:
        return CardNotInHandError(s, f"{first.label} is not in the hand")
    h -= 1 << (first << 2)
    if second is not None:
        if not chopsticks:
            return ChopsticksUnavailableError(
                s, "a second card needs a chopsticks card played on an earlier turn"
            )
        if held < (3 if controls_dummy else 2):
            return ChopsticksUnavailableError(s, "too few cards in hand to use chopsticks")
        if not h >> (second << 2) & 15:
            return CardNotInHandError(s, f"{second.label} (second pick) is not in the hand")
        h -= 1 << (second << 2)
    if dummy is None and controls_dummy:
        return DummyPickError(s, "the dummy's controller must also pick a card for the dummy")
    if dummy is not None:
        if not controls_dummy:
            return DummyPickError(s, "this seat does not control the dummy this turn")
        if not h >> (dummy << 2) & 15:
            return CardNotInHandError(s, f"{dummy.label} (dummy pick) is not in the hand")
    return IllegalActionError(s, f"{Action(*a).describe()} is not a legal action")
