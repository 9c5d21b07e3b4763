"""`sushigo-admin`: see and steer a sushigo server, as one of its admins (protocol 2.3).

    sushigo-admin HOST:PORT [--key FILE] [--tls] COMMAND [ARGS]
    sushigo-admin public-key [--key FILE]

The admin logs in with an Ed25519 key (``--key``, by default ~/.config/sushigo/admin.pem), like a
player with ``sushigo-client --key``; the server treats the key as an admin's when it was started
with ``--admin-key`` naming its public key (which ``public-key`` prints, making the key file if
there is none). On a cluster, every command acts on every node, whichever node it is sent to
(a session id, s17, is that node's; a table is closed and a node drained wherever it is).
Commands:

    tables [--game KIND] [--status S]     every table (a page at a time from the server)
    sessions                              every session: id, player, address, table, flags
    nodes                                 the servers: a cluster's every node, live or gone
    show TABLE                            a table as a spectator sees it, its seats and sessions
    kick TARGET [--reason TEXT]           end a session (s17), or every session of a player
    ban TARGET [--for TIME] [--reason TEXT]   a key's player id, an IP address or a CIDR range
    unban TARGET
    mute PLAYER [--for TIME] [--reason TEXT]  refuse a player's chat
    unmute PLAYER
    bans                                  the bans and mutes in force
    close TABLE [--reason TEXT]           close a table (a game in progress is kept as aborted)
    announce TEXT...                      say something to everyone connected
    drain [NODE] [--off]                  take no new tables (or take them again)
    audit [--limit N]                     the audit log, newest first

TIME is a number of seconds, or with a unit: 90s, 15m, 2h, 7d, 2w. Output is one line per row
(columns separated by two spaces). Exit codes: 0 done, 2 for a usage error (a bad address,
option, target or time, said before connecting), 1 for anything else (unreachable, a key the
server does not list as an admin's, a refusal), 130 after Ctrl-C, always with a one-line reason.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import ipaddress
import json
import os
import re
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import msgpack
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from sushigo import protocol
from sushigo.client.address import AddressError, parse_address
from sushigo.client.command import exit_code
from sushigo.client.identity import KeyFileError, load_or_create_key
from sushigo.client.known_hosts import KnownHosts
from sushigo.client.link import ConnectError, ConnectionLost, Link, ServerError
from sushigo.client.stopping import stoppable
from sushigo.protocol.about import version_text
from sushigo.protocol.identity import player_id_for_key
from sushigo.protocol.versions import ADMIN_VERSION

__all__ = ["main", "parser"]

PROG = "sushigo-admin"
_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400}
_LONGEST = 10 * 365 * 86400
_KEY_ID = re.compile(r"[kg]:[0-9a-f]+")


def default_key() -> Path:
    """~/.config/sushigo/admin.pem (under $XDG_CONFIG_HOME when it is set)."""
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(Path.home(), ".config")
    return Path(base) / "sushigo" / "admin.pem"


# -- what the command line takes -------------------------------------------------------------------


def duration(text: str) -> int:
    """``90``, ``90s``, ``15m``, ``2h``, ``7d``, ``2w`` -> seconds (1 s to ten years)."""
    match = re.fullmatch(r"\s*(\d+)\s*([smhdw]?)\s*", text.lower())
    if match is None:
        raise argparse.ArgumentTypeError(f"not a time: {text!r} (e.g. 90s, 15m, 2h, 7d, 2w)")
    seconds = int(match.group(1)) * _UNITS[match.group(2) or "s"]
    if not 1 <= seconds <= _LONGEST:
        raise argparse.ArgumentTypeError(f"a time is 1 s to ten years, got {text!r}")
    return seconds


def ban_target(text: str) -> str:
    """A key's player id, an IP address or a CIDR range (checked here; the server normalises)."""
    if re.fullmatch(r"k:[0-9a-f]{32}", text):
        return text
    if text.startswith("g:"):
        raise argparse.ArgumentTypeError(
            f"{text} is a guest's id, which lasts one session: ban its address (see sessions)"
        )
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"not a player id (k:...), an IP address or a CIDR range: {text!r}"
        ) from None
    return text


def player_id(text: str) -> str:
    if not _KEY_ID.fullmatch(text):
        raise argparse.ArgumentTypeError(f"not a player id (k:... or g:...): {text!r}")
    return text


def parser() -> argparse.ArgumentParser:
    """The command line (``public-key`` has its own: `key_parser`)."""
    p = argparse.ArgumentParser(
        prog=PROG,
        description="See and steer a sushigo server as one of its admins.",
        epilog="sushigo-admin public-key [--key FILE] prints the key to give the server's"
        " --admin-key.",
    )
    p.add_argument("--version", action="version", version=version_text(PROG))
    p.add_argument("address", metavar="HOST:PORT", help="the server, e.g. localhost:7777")
    _connection_options(p)
    sub = p.add_subparsers(dest="command", required=True, metavar="COMMAND")
    tables = sub.add_parser("tables", help="every table")
    tables.add_argument("--game", default=None, help="only tables of this game")
    tables.add_argument("--status", choices=[s.value for s in protocol.TableStatus], default=None)
    sub.add_parser("sessions", help="every session")
    sub.add_parser("nodes", help="the servers: a cluster's every node, live or gone")
    show = sub.add_parser("show", help="a table as a spectator sees it, with its sessions")
    show.add_argument("table")
    kick = sub.add_parser("kick", help="end a session (s17) or every session of a player id")
    kick.add_argument("target")
    kick.add_argument("--reason", default="")
    ban = sub.add_parser("ban", help="ban a key's player id, an IP address or a CIDR range")
    ban.add_argument("target", type=ban_target)
    ban.add_argument("--for", dest="seconds", type=duration, default=None, metavar="TIME")
    ban.add_argument("--reason", default="")
    unban = sub.add_parser("unban", help="lift a ban")
    unban.add_argument("target", type=ban_target)
    mute = sub.add_parser("mute", help="refuse a player's chat")
    mute.add_argument("target", metavar="PLAYER", type=player_id)
    mute.add_argument("--for", dest="seconds", type=duration, default=None, metavar="TIME")
    mute.add_argument("--reason", default="")
    unmute = sub.add_parser("unmute", help="lift a mute")
    unmute.add_argument("target", metavar="PLAYER", type=player_id)
    sub.add_parser("bans", help="the bans and mutes in force")
    close = sub.add_parser("close", help="close a table (a game in progress is kept, aborted)")
    close.add_argument("table")
    close.add_argument("--reason", default="")
    announce = sub.add_parser("announce", help="say something to everyone connected")
    announce.add_argument("text", nargs="+")
    drain = sub.add_parser(
        "drain", help="take no new tables on NODE (default: this one; --off: take them again)"
    )
    drain.add_argument("node", nargs="?", default=None)
    drain.add_argument("--off", action="store_true")
    audit = sub.add_parser("audit", help="the audit log, newest first")
    audit.add_argument("--limit", type=_count, default=50)
    # The same options after the command too (``sushigo-admin HOST:PORT tables --key K``): a
    # person types them where they think of them. There they default to nothing, so that one
    # given before the command stands.
    for command in sub.choices.values():
        _connection_options(command, defaults=False)
    return p


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if not 1 <= value <= 500:
        raise argparse.ArgumentTypeError(f"must be 1-500, got {value}")
    return value


def _connection_options(p: argparse.ArgumentParser, *, defaults: bool = True) -> None:
    """How to reach and log in to the server (without `defaults`: none of them set unless given,
    for the options repeated after the command)."""

    def default(value: Any) -> Any:
        return value if defaults else argparse.SUPPRESS

    p.add_argument(
        "--key",
        type=Path,
        default=default(default_key()),
        metavar="FILE",
        help=f"the admin's Ed25519 key (default {default_key()})",
    )
    p.add_argument(
        "--name", default=default("admin"), help="the name to log in under (default admin)"
    )
    p.add_argument(
        "--tls",
        action="store_true",
        default=default(False),
        help="connect with TLS (certificate pinned)",
    )
    p.add_argument(
        "--known-hosts", type=Path, default=default(None), help="pinned TLS certificates file"
    )
    p.add_argument(
        "--timeout",
        type=float,
        default=default(10.0),
        help="seconds to wait for the server (default 10)",
    )


def _key_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--key",
        type=Path,
        default=default_key(),
        metavar="FILE",
        help=f"the admin's Ed25519 key (default {default_key()})",
    )


def key_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog=f"{PROG} public-key",
        description="Print the admin key's public half (PEM), for the server's --admin-key; the"
        " key file is made if there is none.",
    )
    _key_option(p)
    return p


def request_for(args: argparse.Namespace) -> protocol.ClientMessage | None:
    """The one request a command sends (None: `tables`, which pages through the list)."""
    command = args.command
    made: dict[str, Callable[[], protocol.ClientMessage]] = {
        "sessions": lambda: protocol.AdminSessions(limit=500),
        "nodes": protocol.AdminNodes,
        "show": lambda: protocol.AdminShow(table_id=args.table),
        "kick": lambda: protocol.AdminKick(target=args.target, reason=args.reason),
        "ban": lambda: protocol.AdminBan(
            target=args.target, reason=args.reason, seconds=args.seconds
        ),
        "unban": lambda: protocol.AdminUnban(target=args.target),
        "mute": lambda: protocol.AdminMute(
            target=args.target, reason=args.reason, seconds=args.seconds
        ),
        "unmute": lambda: protocol.AdminUnmute(target=args.target),
        "bans": lambda: protocol.AdminSanctions(limit=500),
        "close": lambda: protocol.AdminClose(table_id=args.table, reason=args.reason),
        "announce": lambda: protocol.AdminAnnounce(text=" ".join(args.text)),
        "drain": lambda: protocol.AdminDrain(node=args.node, drain=not args.off),
        "audit": lambda: protocol.AdminAudit(limit=args.limit),
    }
    return made[command]() if command in made else None


# -- running -----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Run one admin command; returns the exit code."""
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["public-key"]:
        return _public_key(key_parser().parse_args(argv[1:]))
    args = parser().parse_args(argv)
    try:
        host, port = parse_address(args.address)
        request = request_for(args)
        if request is not None:
            _fits(request)
    except (AddressError, ValueError) as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 2

    def run() -> int:
        if not args.key.exists():
            raise KeyFileError(
                f"no admin key at {args.key}: make one with `{PROG} public-key --key"
                f" {args.key}` and start the server with --admin-key naming what it prints"
            )
        key = load_or_create_key(args.key)
        known = KnownHosts(args.known_hosts) if args.known_hosts is not None else None
        return asyncio.run(stoppable(PROG, _run(args, host, port, key, known, request)))

    return exit_code(PROG, run)


def _fits(request: protocol.ClientMessage) -> None:
    """ValueError (a usage error) for what the protocol would refuse to send: a text too long."""
    for name in ("text", "reason", "table_id", "target", "node"):
        value = getattr(request, name, None)
        longest = {"text": 500, "reason": 500, "table_id": 32, "target": 64, "node": 64}[name]
        if isinstance(value, str) and len(value) > longest:
            raise ValueError(f"the {name.replace('_', ' ')} is {longest} characters at most")


def _public_key(args: argparse.Namespace) -> int:
    made = not args.key.exists()
    try:
        key = load_or_create_key(args.key)
    except KeyFileError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    public = key.public_key()
    print(public.public_bytes(Encoding.PEM, PublicFormat.SubjectPublicKeyInfo).decode(), end="")
    identity = player_id_for_key(public.public_bytes_raw())
    print(f"{'made' if made else 'key'} {args.key}: player id {identity}", file=sys.stderr)
    return 0


async def _run(
    args: argparse.Namespace,
    host: str,
    port: int,
    key: Any,
    known: KnownHosts | None,
    request: protocol.ClientMessage | None,
) -> int:
    try:
        link = await Link.connect_unique(
            host,
            port,
            name=args.name,
            tls=args.tls,
            known_hosts=known,
            key=key,
            timeout=args.timeout,
            software=PROG,
        )
    except ConnectError as exc:
        print(f"{PROG}: error: {exc}", file=sys.stderr)
        return 1
    except ServerError as exc:
        print(f"{PROG}: error: the server refused the login: {exc.error.message}", file=sys.stderr)
        return 1
    try:
        welcome = link.welcome
        if request is not None and (welcome is None or welcome.version < ADMIN_VERSION):
            spoken = welcome.version if welcome is not None else "?"
            print(
                f"{PROG}: error: the server speaks protocol {spoken}, which has no admin requests"
                f" (they came with {ADMIN_VERSION}): update the server",
                file=sys.stderr,
            )
            return 1
        lines = await _lines(link, args, request)
    except ServerError as exc:
        code = exc.code.name if exc.code is not None else str(exc.error.code)
        hint = ""
        if code == "NOT_ALLOWED" and "--admin-key" in exc.error.message:
            hint = f" (this key is {link.player_id})"
        print(f"{PROG}: error: {exc.error.message}{hint}", file=sys.stderr)
        return 1
    except (ConnectionLost, protocol.ProtocolError, ConnectError) as exc:
        print(f"{PROG}: error: {link._where()} closed the connection: {exc}", file=sys.stderr)
        return 1
    finally:
        await link.close()
    for line in lines:
        print(line)
    return 0


async def _lines(
    link: Link, args: argparse.Namespace, request: protocol.ClientMessage | None
) -> list[str]:
    """Ask, and put the answer in lines."""
    if request is None:
        return table_lines(await _every_table(link, args.game, args.status))
    answer = await link.request(lambda ref: _with_ref(request, ref))
    if isinstance(answer, protocol.AdminDone):
        return [answer.message]
    # A list comes in pages of at most 64 KiB: the rest is asked for until `total` (or `more`).
    if isinstance(answer, protocol.SessionList):
        return session_lines(await _every_item(link, request, answer, "sessions"))
    if isinstance(answer, protocol.NodeList):
        return node_lines(answer)
    if isinstance(answer, protocol.TableView):
        return view_lines(answer)
    if isinstance(answer, protocol.SanctionList):
        sanctions = await _every_item(link, request, answer, "sanctions")
        return sanction_lines(dataclasses.replace(answer, sanctions=sanctions, offset=0))
    if isinstance(answer, protocol.AuditList):
        entries = list(answer.entries)
        wanted = getattr(request, "limit", len(entries))
        while answer.more and answer.entries and len(entries) < wanted:
            answer = await _next(link, request, offset=len(entries), limit=wanted - len(entries))
            assert isinstance(answer, protocol.AuditList)
            entries += answer.entries
        return audit_lines(dataclasses.replace(answer, entries=tuple(entries), offset=0))
    raise ConnectError(f"unexpected answer {answer.TYPE}")


def _with_ref(request: protocol.ClientMessage, ref: int) -> protocol.ClientMessage:
    return dataclasses.replace(request, ref=ref)


async def _next(link: Link, request: protocol.ClientMessage, **changes: int) -> protocol.Message:
    """The same request again, for the page from another offset."""
    return await link.request(lambda ref: dataclasses.replace(request, ref=ref, **changes))


async def _every_item(
    link: Link,
    request: protocol.ClientMessage,
    first: protocol.SessionList | protocol.SanctionList,
    items: str,
) -> tuple[Any, ...]:
    """Every item of a list answered in pages (`items`: the field the page holds them in): the
    pages after `first` asked for until `total` items are in, or a page comes empty."""
    found = list(getattr(first, items))
    page = first
    while getattr(page, items) and len(found) < page.total:
        answer = await _next(link, request, offset=len(found))
        assert isinstance(answer, type(first))
        page = answer
        found += getattr(page, items)
    return tuple(found)


async def _every_table(
    link: Link, kind: str | None, status: str | None
) -> list[protocol.TableInfo]:
    found: list[protocol.TableInfo] = []
    wanted = protocol.TableStatus(status) if status else None
    while True:
        page = await link.table_page(
            kind, status=wanted, offset=len(found), limit=protocol.MAX_PAGE
        )
        found += page.tables
        if not page.tables or len(found) >= page.total:
            return found


# -- putting answers in lines ------------------------------------------------------------------------


def when(ms: int | None) -> str:
    """Unix milliseconds as UTC, to the second."""
    if ms is None:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime(ms / 1000))


def columns(rows: Sequence[Sequence[str]]) -> list[str]:
    """Rows of cells, each column as wide as its widest cell, two spaces between."""
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]


def _seat(seat: Any) -> str:
    if seat.player_id is None and not seat.bot:
        return "-"
    flags = ("" if seat.connected else " (away)") + (" (bot)" if seat.bot else "")
    return f"{seat.name or '?'}{flags}"


def table_lines(tables: Sequence[protocol.TableInfo]) -> list[str]:
    rows = [["TABLE", "GAME", "STATUS", "SEATS", "WATCHING"]]
    for t in tables:
        seats = ", ".join(_seat(s) for s in t.seats)
        rows.append([t.table_id, t.settings.kind, t.status.value, seats, str(t.spectators)])
    return [*columns(rows), f"{len(tables)} table(s)"]


def _flags(s: protocol.SessionInfo) -> str:
    flags = [("admin", s.admin), ("guest", s.guest), ("muted", s.muted), ("away", not s.connected)]
    return ",".join(name for name, on in flags if on) or "-"


def _where(s: protocol.SessionInfo) -> str:
    if s.table_id is None:
        return "lobby"
    return f"{s.table_id} " + (f"seat {s.seat + 1}" if s.seat is not None else "watching")


def session_lines(sessions: Sequence[protocol.SessionInfo]) -> list[str]:
    rows = [["SESSION", "PLAYER", "NAME", "ADDRESS", "WHERE", "FLAGS"]]
    rows += [
        [s.session_id, s.player_id, s.name, s.address or "-", _where(s), _flags(s)]
        for s in sessions
    ]
    return [*columns(rows), f"{len(sessions)} session(s)"]


def node_lines(nodes: protocol.NodeList) -> list[str]:
    """One row a node: serving, draining, or gone (its lease ended: its counts are the last it
    said), and where clients reach it (a cluster's node)."""
    rows = [["NODE", "STATE", "CONNECTIONS", "SESSIONS", "TABLES", "PLAYING", "STARTED", "AT"]]
    for n in nodes.nodes:
        state = "gone" if not n.alive else "draining" if n.draining else "serving"
        state += " (here)" if n.here else ""
        counts = [str(n.connections), str(n.sessions), str(n.tables), str(n.playing)]
        rows.append([n.name or "-", state, *counts, when(n.started_ms), n.address or "-"])
    return columns(rows)


def view_lines(view: protocol.TableView) -> list[str]:
    t = view.table
    step = ""
    if view.round is not None:
        step = f", round {view.round} turn {view.turn}"
    left = f", {view.deadline_ms / 1000:.0f} s left" if view.deadline_ms else ""
    out = [
        f"table {t.table_id}: {t.settings.kind}, {t.settings.players} players, {t.status.value}"
        f" ({view.phase}{step}), {view.steps} step(s) played{left}",
        "seats:",
    ]
    out += [f"  {s.seat + 1}  {_seat(s)}  {s.player_id or ''}".rstrip() for s in t.seats]
    out.append(f"sessions ({len(view.sessions)}):")
    out += ["  " + line for line in session_lines(view.sessions)[:-1]]
    if view.observation is not None:
        public = msgpack.unpackb(view.observation)
        out.append("public view (what a spectator sees):")
        out.append("  " + json.dumps(public, ensure_ascii=False, separators=(",", ":")))
    return out


def sanction_lines(answer: protocol.SanctionList) -> list[str]:
    rows = [["KIND", "TARGET", "UNTIL", "BY", "SINCE", "REASON"]]
    for s in answer.sanctions:
        until = when(s.expires_ms) if s.expires_ms is not None else "lifted by hand"
        rows.append([s.kind.value, s.target, until, s.by, when(s.created_ms), s.reason])
    return [*columns(rows), f"{answer.total} ban(s) and mute(s) in force"]


def audit_lines(answer: protocol.AuditList) -> list[str]:
    rows = [["WHEN", "ADMIN", "ACTION", "TARGET", "DETAIL"]]
    rows += [[when(e.at_ms), e.admin, e.action, e.target or "-", e.detail] for e in answer.entries]
    return columns(rows) + (["(older entries follow: --limit)"] if answer.more else [])


if __name__ == "__main__":
    sys.exit(main())
