"""docs/PROTOCOL.md section 8 states the server's defaults (`HubConfig` and the table's and
sessions' constants): each value there is checked here, so a changed default cannot leave the
document behind."""

from __future__ import annotations

import re
from pathlib import Path

from sushigo.protocol import MAX_PAGE, TableSettings, TournamentSettings
from sushigo.server import desk, lobby, session, steps, table
from sushigo.server.config import HubConfig

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def limits_table() -> dict[str, str]:
    """Section 8's table: each row's label -> its value."""
    text = DOC[DOC.index("\n## 8. ") : DOC.index("\n## 9. ")]
    return dict(re.findall(r"^\| ([^|]+?) \| (.+) \|\s*$", text, re.M))


def _s(value: float) -> str:
    return f"{value:g} s"


def test_section_8_states_the_server_defaults() -> None:
    cfg = HubConfig()
    turn = TableSettings.__dataclass_fields__["turn_seconds"].default
    tournament_turn = TournamentSettings.__dataclass_fields__["turn_seconds"].default
    expect = {
        "handshake deadline": [_s(cfg.handshake_seconds)],
        "a frame's deadline": [_s(cfg.frame_seconds)],
        "heartbeat": [_s(cfg.heartbeat_seconds)],
        "dead-peer timeout": [_s(cfg.dead_after_seconds)],
        "seed deadline": [_s(table.SEED_SECONDS)],
        "commit and reveal deadlines": [
            f"default {turn} s",
            f"quick-match tables {cfg.quick_turn_seconds} s",
            f"tournaments {tournament_turn} s",
        ],
        "missed deadlines": [f"{table.MISSES_BEFORE_BOT} in a row", _s(steps.BOT_GRACE_SECONDS)],
        "rate limit": [
            f"{cfg.messages_per_second:g} messages/s",
            f"bursts of {cfg.message_burst:g}",
            f"{cfg.bytes_per_second / 1024:g} KiB/s",
            f"`chat` {cfg.chat_per_second:g}/s, bursts of {cfg.chat_burst:g}",
        ],
        "repeated `RATE_LIMITED`": [f"{cfg.strikes_before_close} within a minute"],
        "resume window": [
            _s(cfg.resume_seconds),
            f"at most {cfg.max_away_sessions} sessions",
            f"{cfg.idle_away_per_address} per address",
            f"last {session.REPLAY_LIMIT} server messages",
            f"{session.REPLAY_BYTES // 1024} KiB of them",
            f"spectator keeps {session.AWAY_WATCHER_BYTES // 1024} KiB",
            f"{cfg.token_lifetime_ms // 3_600_000} h",
        ],
        "`list_tables`": [f"at most {MAX_PAGE} tables", f"per {lobby.TABLES_PER_TOKEN} tables"],
        "connections": [
            f"{cfg.max_connections} in all",
            f"{cfg.max_per_address} per IP address",
            f"{cfg.max_unidentified_per_address} not yet logged in",
            f"{cfg.sessions_per_player} per player",
        ],
        "tables": [
            f"{cfg.tables_per_player} open tables made per player",
            f"{cfg.max_tables} in all",
            f"{_s(cfg.abandon_seconds)} after",
            f"{cfg.deserted_per_address} such tables kept per address",
        ],
        "tournaments": [
            f"{cfg.tournaments_per_address} unfinished per address",
            f"{desk.MAX_TOURNAMENTS} in all",
            f"last {desk.KEPT_FINISHED} finished",
        ],
    }
    rows = limits_table()
    for label, values in expect.items():
        row = next((r for name, r in rows.items() if name.startswith(label)), None)
        assert row is not None, f"section 8 has no row {label!r}"
        for value in values:
            assert value in row, f"section 8, {label!r}: {value!r} is not in {row!r}"
