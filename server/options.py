"""`sushigo-server`'s command line: its flags, how each is checked (a bad value is one line of
usage error, exit 2), and the hub's limits (`HubConfig`) made from them."""

from __future__ import annotations

import argparse
import math
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from sushigo.protocol.about import version_text

from .cluster.node import DEFAULT_LEASE, QUICK_PATIENCE
from .config import HubConfig
from .net import logs
from .storage.database import is_url

N = TypeVar("N", int, float)


def default_db() -> Path:
    """The database under the user's data directory ($XDG_DATA_HOME or ~/.local/share)."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(Path.home(), ".local", "share")
    return Path(base) / "sushigo" / "server.db"


def key_path(db: str, key: Path | None) -> Path:
    """The server's signing key file: `key` when given; else beside an SQLite database
    (``DB.key``), or for a PostgreSQL database ``server.key`` beside the default database."""
    if key is not None:
        return key
    if is_url(db):
        return default_db().with_name("server.key")
    path = Path(db)
    return path.with_name(path.name + ".key")


def _number(
    convert: Callable[[str], N], what: str, low: float, high: float, refusal: str
) -> Callable[[str], N]:
    """An argparse type: `what` (``"a port number"``) from `low` to `high`; `refusal` says so,
    with the ``{value}`` and the ``{text}`` given. (A float bound also refuses nan and inf.)"""

    def parse(text: str) -> N:
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not {what}: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(refusal.format(value=value, text=text))
        return value

    return parse


_positive_int = _number(int, "a whole number", 1, math.inf, "must be at least 1, got {value}")
_port = _number(int, "a port number", 0, 65535, "a port is 0-65535, got {value}")
_seconds = _number(
    float, "a number of seconds", 0.1, 86400, "a time-out is 0.1-86400 seconds, got {text}"
)
_turn_seconds = _number(
    int,
    "a whole number of seconds",
    0,
    600,
    "turn time is 0-600 seconds (0: no timer), got {value}",
)
_rate = _number(float, "a number", 0.001, 1e9, "must be 0.001-1e9, got {text}")
_rate_or_off = _number(float, "a number", 0, 1e9, "must be 0 (no limit) to 1e9, got {text}")
_chat_chars = _number(
    int,
    "a whole number",
    1,
    500,
    "a chat message is 1-500 characters (the protocol's), got {value}",
)
_hours = _number(
    float, "a number of hours", 0.01, 24 * 365, "a lifetime is 0.01-8760 hours, got {text}"
)


def _hours_ms(text: str) -> int:
    return round(_hours(text) * 3_600_000)


_UNITS = {"": 1, "K": 1024, "M": 1024**2, "G": 1024**3}


def _bytes(text: str) -> int:
    """A number of bytes, with an optional K, M or G (binary: 16M is 16 MiB)."""
    found = re.fullmatch(r"\s*(\d+)\s*([KMG]?)(?:i?B)?\s*", text, re.I)
    if found is None:
        raise argparse.ArgumentTypeError(f"not a number of bytes (like 128M): {text!r}")
    value = int(found[1]) * _UNITS[found[2].upper()]
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1 byte, got {text!r}")
    return value


def shown_bytes(value: int) -> str:
    """How `_bytes` reads `value` back: ``128M`` for 128 MiB."""
    for unit in ("G", "M", "K"):
        if value % _UNITS[unit] == 0:
            return f"{value // _UNITS[unit]}{unit}"
    return str(value)


def _host_port(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:9100`` for IPv6; an empty host: every address)."""
    host, sep, port = text.rpartition(":")
    if not sep:
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    elif ":" in host:
        raise argparse.ArgumentTypeError(f"put an IPv6 address in brackets: [{host}]:{port}")
    return host, _port(port)


_lease = _number(float, "a number of seconds", 1, 3600, "a lease is 1-3600 seconds, got {text}")
_patience = _number(float, "a number of seconds", 0, 3600, "must be 0-3600 seconds, got {text}")


def _node_name(text: str) -> str:
    """A node's name: 1-64 letters, digits, dots, dashes and underscores."""
    if not re.fullmatch(r"[A-Za-z0-9._-]{1,64}", text):
        raise argparse.ArgumentTypeError(
            f"a node name is 1-64 letters, digits, '.', '-' or '_', got {text!r}"
        )
    return text


def advertised(text: str) -> str:
    """``HOST:PORT`` that clients can reach (a host is required; port 1-65535)."""
    host, port = _host_port(text)
    if not host or port == 0:
        raise argparse.ArgumentTypeError(f"clients need a host and a port: {text!r}")
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def web_advertised(args: argparse.Namespace) -> str:
    """Where browsers reach a node's web endpoint (`--web-advertise`; or the host clients reach
    it at, `--advertise`'s or `--host`'s, with `--web`'s port); empty without `--web`."""
    if args.web is None:
        return ""
    if args.web_advertise is not None:
        return str(args.web_advertise)
    where = args.advertise or advertised(f"{args.host}:{args.port}")
    host = where.rpartition(":")[0]
    return f"{host}:{args.web[1]}"


def parser() -> argparse.ArgumentParser:
    """The command line."""
    p = argparse.ArgumentParser(
        prog="sushigo-server",
        description="Host Sushi Go! and Sushi Roll tables for terminal clients and bots.",
    )
    p.add_argument("--version", action="version", version=version_text("sushigo-server"))
    p.add_argument("--host", default="0.0.0.0", help="address to listen on (default 0.0.0.0)")
    p.add_argument("--port", type=_port, default=7777, help="TCP port; 0 picks a free one")
    p.add_argument(
        "--db",
        default=None,
        metavar="PATH|URL",
        help=f"SQLite file (default {default_db()}) or PostgreSQL URL "
        "postgresql://user:password@host:port/dbname",
    )
    p.add_argument(
        "--key",
        type=Path,
        default=None,
        metavar="PATH",
        help="the server's signing key (default: DB.key beside an SQLite file; with PostgreSQL, "
        f"{default_db().with_name('server.key')}); created if missing",
    )
    p.add_argument(
        "--turn-seconds",
        type=_turn_seconds,
        default=60,
        help="turn time of quick-match tables (default 60; 0: no timer)",
    )
    p.add_argument(
        "--log-level",
        choices=logs.LEVELS,
        default="info",
        help="how much to log to stderr (default info: one line per notable event; debug adds"
        " every connection and login)",
    )
    p.add_argument(
        "--log-format",
        choices=logs.FORMATS,
        default="text",
        help="text (default): 'TIME level=LEVEL message' lines; json: one object per line",
    )
    p.add_argument(
        "--metrics",
        type=_host_port,
        default=None,
        metavar="HOST:PORT",
        help="serve Prometheus metrics on http://HOST:PORT/metrics, with /healthz and /readyz"
        " (port 0 picks a free one; off by default)",
    )
    p.add_argument(
        "--admin-key",
        type=Path,
        action="append",
        default=[],
        metavar="PATH",
        help="an admin's Ed25519 public key (PEM, as `sushigo-admin public-key` prints it; or the"
        " admin's key file itself, whose public half is read): that key may send admin"
        " requests (sushigo-admin). Repeat for several admins",
    )
    p.add_argument(
        "--web",
        type=_host_port,
        default=None,
        metavar="HOST:PORT",
        help="serve the web client on http://HOST:PORT/ and its WebSocket on /ws (https and"
        " wss with --tls; port 0 picks a free one; off by default)",
    )
    p.add_argument("--tls", action="store_true", help="TLS with a self-signed certificate")
    cluster = p.add_argument_group(
        "cluster (docs/DEPLOY.md): nodes on one PostgreSQL --db, sharing one --key"
    )
    cluster.add_argument(
        "--node",
        default=None,
        metavar="NAME",
        type=_node_name,
        help="run as the node NAME of the cluster on --db (a PostgreSQL URL)",
    )
    cluster.add_argument(
        "--advertise",
        default=None,
        metavar="HOST:PORT",
        type=advertised,
        help="where clients reach this node (with --node; default: --host:--port, when those"
        " name one address and port)",
    )
    cluster.add_argument(
        "--web-advertise",
        default=None,
        metavar="HOST:PORT",
        type=advertised,
        help="where browsers reach this node's --web (with --node; its WebSocket is /ws there;"
        " default: --advertise's host with --web's port)",
    )
    for flag, seconds, text in (
        (
            "--quick-patience",
            _patience,
            "seconds a quick-match table waits for players of its own node before the cluster"
            f" merges it with other nodes' (default {QUICK_PATIENCE:g}; until then each node"
            " fills its own)",
        ),
        (
            "--lease",
            _lease,
            f"seconds a node's leases last unless renewed (default {DEFAULT_LEASE:g}): a dead"
            " node's tables are taken over this long after it died",
        ),
    ):
        # None: not given (given without --node, it is refused); the default comes with --node.
        cluster.add_argument(flag, type=seconds, default=None, metavar="S", help=text)
    p.add_argument("--name", default="sushigo", help="server name shown to clients")
    _limits(p.add_argument_group("limits (docs/DEPLOY.md, 'Limits': what each bounds, NAT advice)"))
    return p


_LIMITS: tuple[tuple[str, str, str], ...] = (
    ("max_connections", "N", "connections open at once, in all"),
    ("max_per_address", "N", "connections open at once from one IP address"),
    ("max_unidentified_per_address", "N", "connections from one address not yet logged in"),
    ("connect_rate_per_address", "O", "new connections a second from one address (0: no limit)"),
    ("connect_burst_per_address", "R", "new connections from one address at once"),
    ("handshake_seconds", "S", "from connecting to logged in (HELLO and login)"),
    ("frame_seconds", "S", "from a frame's first byte to its last"),
    ("heartbeat_seconds", "S", "quiet time before the server pings a connection"),
    ("dead_after_seconds", "S", "silence before a connection is dropped"),
    ("messages_per_second", "R", "messages a connection may send a second, sustained"),
    ("message_burst", "R", "messages a connection may send at once"),
    ("bytes_per_second", "R", "bytes a connection may send a second (and at once)"),
    ("chat_per_second", "R", "chat messages a connection may send a second, sustained"),
    ("chat_burst", "R", "chat messages a connection may send at once"),
    ("strikes_before_close", "N", "RATE_LIMITED refusals within a minute before closing"),
    ("unsent_budget", "B", "bytes held for clients that have not taken them yet, in all"),
    ("unsent_per_address", "B", "...and for the connections of one IP address together"),
    ("resume_seconds", "S", "how long a disconnected player's session waits for a resume"),
    ("max_away_sessions", "N", "disconnected sessions kept for resume, in all"),
    ("idle_away_per_address", "N", "of them, from one address, of players at no seat"),
    ("sessions_per_player", "N", "connections one player (one key) may have at once"),
    ("tables_per_player", "N", "open tables one player made"),
    ("deserted_per_address", "N", "tables from one address nobody is connected to, kept"),
    ("max_tables", "N", "open tables, in all"),
    ("tournaments_per_address", "N", "unfinished tournaments made from one address"),
    ("abandon_seconds", "S", "a table nobody is connected to closes after this (not mid-game)"),
    ("token_lifetime_ms", "H", "a seated player's resume token survives restarts this long"),
    ("chat_max_chars", "C", "the longest chat message, in characters (1-500)"),
)
"""The limit flags: `HubConfig` field, kind (N: a count, S: seconds, R: a positive number, O: one or 0 for none, H:
hours, kept in milliseconds, C: a chat message's length, B: bytes) and what it bounds. Each field's flag is its name with dashes
(`flag`)."""
_KINDS: dict[str, tuple[Callable[[str], Any], str]] = {
    "N": (_positive_int, "N"),
    "S": (_seconds, "S"),
    "R": (_rate, "R"),
    "O": (_rate_or_off, "R"),
    "H": (_hours_ms, "HOURS"),
    "C": (_chat_chars, "N"),
    "B": (_bytes, "BYTES"),
}


def flag(field: str) -> str:
    """The flag of a `HubConfig` field (``token_lifetime_ms`` is given in hours)."""
    if field == "token_lifetime_ms":
        return "--token-lifetime-hours"
    return "--" + field.replace("_", "-")


def _limits(group: argparse._ArgumentGroup) -> None:
    defaults = HubConfig()
    for field, kind, what in _LIMITS:
        default = getattr(defaults, field)
        shown = f"{default / 3_600_000 if kind == 'H' else default:g}"
        if kind == "B":
            shown = shown_bytes(default)
        parse, metavar = _KINDS[kind]
        group.add_argument(
            flag(field),
            dest=field,
            type=parse,
            default=default,
            metavar=metavar,
            help=f"{what} (default {shown})",
        )


def config_from(args: argparse.Namespace) -> HubConfig:
    """The hub's limits from the command line."""
    return HubConfig(
        server_name=args.name,
        quick_turn_seconds=args.turn_seconds,
        **{field: getattr(args, field) for field, _, _ in _LIMITS},
    )
