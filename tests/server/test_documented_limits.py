"""docs/PROTOCOL.md section 8 states the server's defaults (`HubConfig` and the table's and
sessions' constants), and docs/DEPLOY.md's "Limits" every limit with its flag and default, or its
fixed value: each value there is checked here, so a changed default cannot leave the documents
behind, and a new limit cannot go unlisted."""

from __future__ import annotations

import dataclasses
import re
import typing
from pathlib import Path

from sushigo.protocol import MAX_PAGE, Chat, TableSettings, TournamentSettings
from sushigo.protocol.frames import CLIENT_FRAME_LIMIT, SERVER_FRAME_LIMIT
from sushigo.server import options
from sushigo.server.config import HubConfig
from sushigo.server.lobby import lobby, pages
from sushigo.server.net import budget, metrics, web
from sushigo.server.sessions import names, session
from sushigo.server.tables import steps, table
from sushigo.server.tournaments import desk

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
        "unsent bytes": [
            f"{budget.MAX_UNSENT // 1024**2} MiB per connection",
            f"{cfg.unsent_per_address // 1024**2} MiB per IP address",
            f"{cfg.unsent_budget // 1024**2} MiB in all",
        ],
        "resume window": [
            _s(cfg.resume_seconds),
            f"at most {cfg.max_away_sessions} sessions",
            f"{cfg.idle_away_per_address} per address",
            f"last {session.REPLAY_LIMIT} server messages",
            f"{session.REPLAY_BYTES // 1024} KiB of them",
            f"spectator keeps {session.AWAY_WATCHER_BYTES // 1024} KiB",
            f"{cfg.token_lifetime_ms // 3_600_000} h",
        ],
        "`list_tables`": [
            f"at most {MAX_PAGE} tables",
            f"per {lobby.TABLES_PER_TOKEN} tables",
            f"{pages.TABLE_LIST_BYTES // 1024} KiB",
        ],
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
        "web port": [
            f"at most {web.MAX_HEAD_BYTES // 1024} KiB, within {_s(web.REQUEST_SECONDS)}",
            f"{web.PAGE_PER_ADDRESS} such connections per address, {web.PAGE_CONNECTIONS} in all",
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


DEPLOY = (Path(__file__).resolve().parents[2] / "docs" / "DEPLOY.md").read_text(encoding="utf-8")


def deploy_limits() -> tuple[dict[str, str], dict[str, str]]:
    """docs/DEPLOY.md's "Limits": the flags' table (flag -> default) and the fixed limits' table
    (what -> value)."""
    text = DEPLOY[DEPLOY.index("\n## Limits\n") : DEPLOY.index("**Behind a NAT**")]
    flags = dict(re.findall(r"^\| [^|]+ \| `(--[a-z-]+)` \| ([^|]+?) \|$", text, re.M))
    fixed_part = text[text.index("And fixed") :]
    fixed = dict(re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", fixed_part, re.M))
    return flags, fixed


def test_deploy_lists_every_limit_flag_with_its_default() -> None:
    flags, _ = deploy_limits()
    actions = {
        action.option_strings[-1]: action
        for action in options.parser()._actions
        if action.option_strings
    }
    cfg = HubConfig()
    for field in dataclasses.fields(HubConfig):
        name = {"server_name": "--name", "quick_turn_seconds": "--turn-seconds"}.get(
            field.name, options.flag(field.name)
        )
        assert name in flags, f"DEPLOY.md's limits have no row for {name} ({field.name})"
        action = actions[name]
        assert action.dest in (field.name, name[2:].replace("-", "_")), name
        value = getattr(cfg, field.name)
        if field.name == "token_lifetime_ms":
            value /= 3_600_000
        shown = value if isinstance(value, str) else f"{value:g}"
        if field.name.startswith("unsent_"):
            shown = options.shown_bytes(value)
        assert flags[name] == shown, f"{name}: DEPLOY.md says {flags[name]}, the default is {shown}"
        assert action.default == getattr(cfg, field.name) or field.name == "quick_turn_seconds"
    group = next(g for g in options.parser()._action_groups if g.title and "limits" in g.title)
    for action in group._group_actions:
        assert action.option_strings[-1] in flags, f"{action.option_strings[-1]} is not listed"
    assert set(flags) <= set(actions), "DEPLOY.md lists a flag the server does not have"


def test_deploy_states_the_fixed_limits() -> None:
    _, fixed = deploy_limits()
    chat_size = typing.get_type_hints(Chat, include_extras=True)["text"].__metadata__[0]
    expect = {
        "a frame's body": f"{CLIENT_FRAME_LIMIT // 1024} KiB / {SERVER_FRAME_LIMIT // 1024**2} MiB",
        "bytes unsent": f"{budget.MAX_UNSENT // 1024**2} MiB",
        "a `table_list` frame": f"{pages.TABLE_LIST_BYTES // 1024} KiB",
        "a chat message": f"{chat_size.hi} / {names.MAX_NAME} characters",
        "tables per `list_tables` page": f"{MAX_PAGE}",
        "server messages kept": f"{session.REPLAY_LIMIT}, {session.REPLAY_BYTES // 1024} KiB"
        f" (a spectator away keeps {session.AWAY_WATCHER_BYTES // 1024} KiB",
        "seed deadline": _s(table.SEED_SECONDS),
        "missed turns": f"{table.MISSES_BEFORE_BOT}; {_s(steps.BOT_GRACE_SECONDS)}",
        "tournaments unfinished": f"{desk.MAX_TOURNAMENTS} / {desk.KEPT_FINISHED}",
        "`--metrics`": f"{metrics.MAX_REQUEST_BYTES // 1024} KiB / {_s(metrics.REQUEST_SECONDS)}"
        f" / {metrics.MAX_CLIENTS}",
        "`--web`": f"{web.MAX_HEAD_BYTES // 1024} KiB / {_s(web.REQUEST_SECONDS)}"
        f" / {web.PAGE_PER_ADDRESS} / {web.PAGE_CONNECTIONS}",
    }
    for label, value in expect.items():
        row = next((v for what, v in fixed.items() if what.startswith(label)), None)
        assert row is not None, f"DEPLOY.md's fixed limits have no row {label!r}"
        assert row.startswith(value), f"{label!r}: DEPLOY.md says {row!r}, the code {value!r}"


def test_every_limit_flag_sets_its_field() -> None:
    """Each flag, given a value other than its default, changes its own field and no other."""
    base = options.config_from(options.parser().parse_args([]))
    assert base == HubConfig()
    for field in dataclasses.fields(HubConfig):
        name = {"server_name": "--name", "quick_turn_seconds": "--turn-seconds"}.get(
            field.name, options.flag(field.name)
        )
        given = {"--name": "elsewhere", "--token-lifetime-hours": "2"}.get(name, "7")
        config = options.config_from(options.parser().parse_args([name, given]))
        want = {"--name": "elsewhere", "--token-lifetime-hours": 7_200_000}.get(name, 7)
        assert getattr(config, field.name) == want, name
        assert dataclasses.replace(config, **{field.name: getattr(base, field.name)}) == base
