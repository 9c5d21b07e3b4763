"""Muting another player, for this client only: their chat lines are hidden here (the server and
everyone else still see them; an admin's mute is the server's, `sushigo-admin mute`).

Typed in the chat line: ``/mute NAME`` hides NAME's lines (those already shown too), ``/unmute
NAME`` shows them again, ``/muted`` lists who is muted. A name is matched as the server compares
names (case-folded); when the player it belongs to has been seen (a chat line, a seat), the mute
holds their player id as well, so it follows them if they come back under another name.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from .board import Fragments

HELP = "chat commands: /mute NAME, /unmute NAME, /muted"


@dataclass(frozen=True, slots=True)
class ChatLine:
    """One chat line as received, with who said it."""

    player_id: str
    name: str
    line: Fragments


@dataclass
class Mutes:
    """Who this client does not want to hear, and the chat as received (to show again)."""

    ids: set[str] = field(default_factory=set)
    """The player ids muted."""
    names: dict[str, str] = field(default_factory=dict)
    """The names muted, case-folded -> as typed."""
    seen: dict[str, str] = field(default_factory=dict)
    """The player id last seen under each name (case-folded)."""
    received: deque[ChatLine] = field(default_factory=lambda: deque(maxlen=100))
    """Every chat line received, muted ones included."""

    def learn(self, player_id: str | None, name: str | None) -> None:
        """A player seen under a name (in the chat, at a table)."""
        if player_id and name:
            key = name.casefold()
            self.seen[key] = player_id
            if key in self.names:  # muted by name before we knew who: now by id too
                self.ids.add(player_id)

    def hides(self, player_id: str, name: str) -> bool:
        """A line from this player is not shown."""
        return player_id in self.ids or name.casefold() in self.names

    def shown(self) -> list[Fragments]:
        """The lines received that are not muted, oldest first."""
        return [c.line for c in self.received if not self.hides(c.player_id, c.name)]

    def command(self, text: str, own_id: str | None) -> str | None:
        """Handle a chat command (a line starting with ``/``): what to tell the person; None
        for a line that is no command (it is chat)."""
        if not text.startswith("/"):
            return None
        verb, _, rest = text[1:].partition(" ")
        name = " ".join(rest.split())
        verb = verb.lower()
        if verb == "muted":
            shown = sorted(self.names.values(), key=str.casefold)
            return "muted here: " + (", ".join(shown) if shown else "nobody")
        if verb not in ("mute", "unmute") or not name:
            return f"unknown chat command {text.split(maxsplit=1)[0]!r}; {HELP}"
        key = name.casefold()
        player_id = self.seen.get(key)
        if verb == "mute":
            if player_id is not None and player_id == own_id:
                return "that is you"
            self.names[key] = name
            if player_id is not None:
                self.ids.add(player_id)
            return f"muted {name}: their chat is hidden here (/unmute {name} to undo)"
        if key not in self.names and player_id not in self.ids:
            return f"{name} is not muted"
        self.names.pop(key, None)
        self.ids.discard(player_id or "")
        return f"unmuted {name}"
