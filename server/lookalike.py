"""When two names look alike: Unicode's confusable skeleton (UTS #39, section 4), case-folded.

``skeleton("admın") == skeleton("admin")`` (a dotless i), and ``skeleton("сосо") ==
skeleton("coco")`` (Cyrillic letters): the server refuses a name whose skeleton is a connected
player's, or a registered identity's (`server.sessions.names`; the identities' skeletons are
stored, `Storage.name_holders`).

UTS #39's skeleton maps each character of a string (in NFD) to the prototype of its class of
look-alikes from Unicode's confusables data, and takes NFD again; two strings are confusable when
their skeletons are equal. The data comes from the ``confusable-homoglyphs`` package, which holds
each of confusables.txt's mappings both ways (source to prototype and back) without saying which
way it was: so each class gets a representative of its own rather than its prototype (the
prototype where the data shows it, a multi-character prototype such as "rn" for "m" always, else
the lowest character). Equal skeletons under either choice are the same pairs of names, which is
all a comparison needs; the key is only ever compared with keys made here.

Two more steps than the standard, because names are compared without case and are shown small:
the name is case-folded before and the skeleton after (so "ADMIN" and "admın" meet, and "c0c0"
and "coco": 0 maps to O), and a combining dot above after an i or a j is dropped (UTS #39
section 5.4 names "i̇", an i with a dot above it, among the sequences that look like the bare
letter; "admı̇n2", a dotless i given its dot back, looks like "admin2").
"""

from __future__ import annotations

import json
import unicodedata
from functools import lru_cache
from importlib import resources

__all__ = ["skeleton"]

_MARKS = "\u200e\u200f"
"""Left-to-right and right-to-left marks: the data wraps right-to-left characters in them."""


def _load() -> dict[str, str]:
    """Each character with look-alikes -> its class's representative (a string)."""
    text = resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8")
    pairs: dict[str, list[str]] = {}
    for key, entries in json.loads(text).items():
        pairs[key.strip(_MARKS)] = [e["c"].strip(_MARKS) for e in entries]
    # Classes: each mapping joins a source (one character) and its prototype.
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent.setdefault(x, x) != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for key, others in pairs.items():
        for other in others:
            a, b = find(key), find(other)
            if a != b:
                parent[max(a, b)] = min(a, b)
    members: dict[str, list[str]] = {}
    for x in list(parent):
        members.setdefault(find(x), []).append(x)
    chosen: dict[str, str] = {}
    for group in members.values():
        longer = [m for m in group if len(m) > 1]
        if longer:
            chosen.update((m, min(longer)) for m in group)
            continue
        # The prototype is the member every other one maps to (in a class of two, either).
        shared = [m for m in group if all(m in pairs.get(x, ()) for x in group if x != m)]
        chosen.update((m, min(shared or group)) for m in group)
    # A multi-character representative's own characters are represented too, so that typing
    # it ("rn") meets the character it stands for ("m").
    return {
        m: "".join(chosen.get(c, c) for c in rep) if len(rep) > 1 else rep
        for m, rep in chosen.items()
        if len(m) == 1
    }


_TABLE = str.maketrans(_load())
_DOTTED = frozenset("ij".translate(_TABLE))
_DOT = "\u0307".translate(_TABLE)


@lru_cache(maxsize=16384)
def skeleton(name: str) -> str:
    """The key two names are compared by: equal keys, names that look alike."""
    mapped = name
    # Case-folded, mapped, and again: a representative may have a case of its own ("0" is "O").
    for _ in range(2):
        mapped = unicodedata.normalize(
            "NFD", unicodedata.normalize("NFD", mapped.casefold()).translate(_TABLE)
        )
    out: list[str] = []
    for c in mapped:
        if c == _DOT and out and out[-1] in _DOTTED:
            continue  # an i's or j's dot, given again
        out.append(c)
    return "".join(out)
