"""Seats kept for a resume across runs of the terminal client: a player who quits in the middle of
a game (or whose terminal closes: SIGHUP) and runs the client again takes the seat back, as a
dropped connection would.

The server keeps a session that lost its connection for its resume window (two minutes by
default, README "Limits"), and takes it back from whoever shows its resume token. So on quitting
mid-game the client writes the session's current token here, per server address; the next run
at that address (without ``--bots``, which asks for a new game) resumes with it before logging in,
and forgets it either way: tokens are single-use. The file is the user's alone (mode 0600): a token
is a bearer credential for the seat until the window ends.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["KEPT_HOURS", "KeptSeat", "forget", "keep", "kept_name", "path", "take"]

KEPT_HOURS = 24
"""How long an entry is worth trying: a server keeps a seated player's token across its own
restarts for a day (README "Limits", ``--token-lifetime-hours``); a live session far less."""


@dataclass(frozen=True, slots=True)
class KeptSeat:
    """A session left in the middle of a game at one server."""

    token: bytes
    """Its resume token when the client quit."""
    name: str
    """The name it played under."""


def path() -> Path:
    """The file: ``$XDG_STATE_HOME/sushigo/seats.json`` (``~/.local/state`` by default)."""
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(Path.home(), ".local", "state")
    return Path(base) / "sushigo" / "seats.json"


def _read() -> dict[str, dict[str, object]]:
    try:
        data = json.loads(path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _write(entries: dict[str, dict[str, object]]) -> None:
    """Write the file whole, readable by its owner only (a token is a credential)."""
    target = path()
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(target.name + ".tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump(entries, out)
        temporary.replace(target)
    except OSError:
        pass  # nothing kept: the next run logs in afresh, as without this file


def keep(address: str, token: bytes, name: str) -> None:
    """Remember the session left at `address` (a quit in the middle of a game)."""
    now = time.time()
    # The stale ones go: an address is only tried again when played at again.
    entries = {where: entry for where, entry in _read().items() if _fresh(entry, now)}
    entries[address] = {"token": token.hex(), "name": name, "at": now}
    _write(entries)


def _fresh(entry: object, now: float) -> bool:
    """An entry of the file, recent enough to be worth trying (`KEPT_HOURS`)."""
    try:
        return now - float(entry["at"]) < KEPT_HOURS * 3600  # type: ignore[index]
    except (KeyError, TypeError, ValueError):
        return False


def take(address: str) -> KeptSeat | None:
    """The session left at `address`, if one was kept and is recent enough; forgotten here, for a
    token is good for one resume only."""
    entries = _read()
    entry = entries.pop(address, None)
    if entry is None:
        return None
    _write(entries)
    if not _fresh(entry, time.time()):
        return None
    try:
        token = bytes.fromhex(str(entry["token"]))
        name = str(entry["name"])
    except (KeyError, TypeError, ValueError):
        return None
    return KeptSeat(token, name) if token and name else None


def kept_name(address: str) -> str | None:
    """The name of the session left at `address`, if one is kept (and kept: not taken)."""
    entry = _read().get(address)
    if not _fresh(entry, time.time()):
        return None
    return str(entry["name"])  # type: ignore[index]


def forget(address: str) -> None:
    """No session is left at `address` any more (the player quit outside a game)."""
    entries = _read()
    if entries.pop(address, None) is not None:
        _write(entries)
