"""Player names: which are allowed, how they compare, and which are taken.

A name is a PRECIS nickname (RFC 8266, `precis_i18n`): Unicode NFKC (so full-width "ａｄｍｉｎ"
is "admin", "ﬁ" is "fi"), spaces trimmed and runs of them made one, and no control, format or
other invisible character (zero-width joiners and spaces, bidirectional overrides, soft hyphens)
and no unassigned code point. Its letters must come from one script, or from the scripts Chinese,
Japanese and Korean write beside Latin (Unicode TS #39's "highly restrictive" level), so a Latin
name cannot hide a Cyrillic "а" in "pаypal". Two names are the same name when their NFKC forms
case-fold to the same string ("Alice", "ALICE", "ａｌｉｃｅ"; "Straße" and "STRASSE"), or when they
look alike: their confusable skeletons (Unicode TS #39) are the same ("admın" with a dotless i
is "admin", "сосо" in Cyrillic is "coco", "c0c0" is "coco"; `server.lookalike`).

Among the players connected at once, and those away from a seat that still shows their name (for
their resume window), a name belongs to one player: a login under a name another player holds gets
NAME_TAKEN; so does a name that is, or looks like, a registered identity's (a player who logged in
with a key: its last name, `Storage.name_holders`). The same player (one key) may be connected
several times, under any of its names.
"""

from __future__ import annotations

import precis_i18n
from confusable_homoglyphs import categories

from sushigo.protocol import ErrorCode
from sushigo.server.errors import TableError
from sushigo.server.lookalike import skeleton

from .session import Session

_NICKNAME = precis_i18n.get_profile("NicknameCasePreserved")
MAX_NAME = 24
"""The longest name, in characters, as the protocol's LOGGED_IN and SeatInfo carry it."""

_NEUTRAL = frozenset({"COMMON", "INHERITED"})
"""Scripts of characters every script uses: digits, punctuation, spaces, combining marks."""
_MIXES = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
"""The mixes of scripts a name may use (UTS #39 "highly restrictive"): Japanese, Chinese and
Korean beside Latin. Any other name has the letters of one script."""


def clean_name(text: str) -> str:
    """The name as it is shown (PRECIS-enforced); `TableError` INVALID_NAME, saying why, for a
    name that is not allowed."""
    try:
        name: str = _NICKNAME.enforce(text)
    except UnicodeError as exc:
        raise TableError(ErrorCode.INVALID_NAME, _why(text, exc)) from None
    if len(name) > MAX_NAME:  # NFKC may lengthen it: "ﬃ" is "ffi"
        raise TableError(
            ErrorCode.INVALID_NAME,
            f"a name is at most {MAX_NAME} characters; this one is {len(name)} as shown",
        )
    scripts = {categories.alias(c) for c in name} - _NEUTRAL
    if len(scripts) > 1 and not any(scripts <= mix for mix in _MIXES):
        raise TableError(
            ErrorCode.INVALID_NAME,
            f"a name's letters come from one script; this one mixes {', '.join(sorted(scripts))}"
            " (letters that look alike could pass for another name)",
        )
    return name


def _why(text: str, exc: UnicodeError) -> str:
    reason = getattr(exc, "reason", "")
    if not text.strip() or reason == "empty":
        return "a name needs a visible character"
    start = getattr(exc, "start", None)
    if isinstance(start, int) and 0 <= start < len(text):
        return f"a name may not hold U+{ord(text[start]):04X} (control, invisible or unassigned)"
    return f"not a name: {reason or exc}"


def name_key(name: str) -> str:
    """What two names are compared by: their look-alike key (`server.lookalike.skeleton`: the
    confusable skeleton of the NFKC form, `clean_name`'s, case-folded), so "admın" with a
    dotless i is "admin"'s name, and "сосо" in Cyrillic letters is "coco"'s."""
    return skeleton(name)


class Names:
    """The names held now: each name's key to its player (see `update` for when a session holds
    its name)."""

    def __init__(self) -> None:
        self._held: dict[str, dict[str, int]] = {}
        """Name key -> {player id: its live sessions under that name}, the holder first (a
        session restored after a restart may share a name that was taken while it was away)."""

    def holder(self, name: str) -> str | None:
        """The player who holds `name` now (None: nobody does)."""
        players = self._held.get(name_key(name))
        return next(iter(players)) if players else None

    def check(self, name: str, player_id: str) -> None:
        """`TableError` NAME_TAKEN when another player holds `name`."""
        holder = self.holder(name)
        if holder is not None and holder != player_id:
            raise TableError(
                ErrorCode.NAME_TAKEN,
                f"the name {name!r} is taken by another player (or one that looks like it);"
                " choose another (a player who lost their connection keeps their name while"
                " their seat is held for them)",
            )

    def free_name(self, name: str, player_id: str) -> str:
        """`name`, or, while another player holds it, the first of "NAME-2", "NAME-3", ... that
        nobody else holds: for a player a node of the cluster sends on, whose name was its own
        where it logged in (names are each node's) and need not be here (README's
        ``random-bot-2``)."""
        attempt = 1
        free = name
        while self.holder(free) not in (None, player_id):
            attempt += 1
            free = f"{name[:20]}-{attempt}"
        return free

    def hold(self, name: str, player_id: str) -> None:
        """A session of `player_id` named `name` began."""
        players = self._held.setdefault(name_key(name), {})
        players[player_id] = players.get(player_id, 0) + 1

    def release(self, name: str, player_id: str) -> None:
        """That session ended."""
        key = name_key(name)
        players = self._held.get(key)
        if players is None or player_id not in players:
            return
        players[player_id] -= 1
        if not players[player_id]:
            del players[player_id]
            if not players:
                del self._held[key]

    def update(self, session: Session, ended: bool = False) -> None:
        """Hold or release `session`'s name as `Session.keeps_name` (or its end) says."""
        keep = session.keeps_name and not ended
        if keep and not session.holds_name:
            self.hold(session.name, session.player_id)
        elif session.holds_name and not keep:
            self.release(session.name, session.player_id)
        session.holds_name = keep

    def __len__(self) -> int:
        return len(self._held)
