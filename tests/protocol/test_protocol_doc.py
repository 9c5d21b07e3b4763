"""docs/PROTOCOL.md against the code, beyond its vectors: every message with every field, every
structure and game value with its fields, every error code with its fatality, every phase, the
frame limits. A message, field, code or phase added to the code and not to the document fails
here (and a message the document names that the code lacks). Section 8's limits are checked
against the server's defaults in tests/server/test_documented_limits.py."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest

from sushigo.engine import Action, Card, GameOptions
from sushigo.engine.games.sushi_roll import RollOptions
from sushigo.protocol import (
    CLIENT_LIMITS,
    SERVER_LIMITS,
    AuditEntry,
    ErrorCode,
    NodeInfo,
    Phase,
    Sanction,
    SeatInfo,
    SessionInfo,
    SignedRecord,
    Snapshot,
    Standing,
    TableInfo,
    TableSettings,
    TournamentInfo,
    TournamentSettings,
    Version,
    message_types,
)
from sushigo.protocol._registry import Role
from sushigo.protocol.commitment import Opening
from sushigo.protocol.errors import FATAL_CODES
from sushigo.protocol.games.sushi_go import wire as cardwire
from sushigo.protocol.games.sushi_roll import wire as rollwire

DOC = (Path(__file__).resolve().parents[2] / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")


def section(number: str) -> str:
    """The text of the section headed ``## number.`` or ``### number``, up to the next heading of
    its level or above."""
    level = "##" if "." not in number else "###"
    start = re.search(rf"^{level} {re.escape(number)}[. ]", DOC, re.M)
    assert start, f"no section {number}"
    rest = DOC[start.end() :]
    end = re.search(rf"^#{{2,{len(level)}}} ", rest, re.M)
    return rest[: end.start() if end else len(rest)]


def rows(text: str) -> dict[str, list[str]]:
    """The rows of the tables in `text` whose first cell is a `name`: name -> its other cells
    (a name in several rows: the cells of all of them, joined)."""
    out: dict[str, list[str]] = {}
    for line in text.splitlines():
        match = re.match(r"\| `([a-z_A-Z0-9]+)` \|(.*)\|\s*$", line)
        if match:
            out.setdefault(match[1], []).extend(cell.strip() for cell in match[2].split(" | "))
    return out


def names(cell: str, fields: list[str]) -> list[str]:
    """The `fields` the cell does not name (as ``name:`` or `` `name` ``)."""
    return [f for f in fields if not re.search(rf"(?<![\w.]){f}(?=[:`])", cell)]


# -- messages ---------------------------------------------------------------------------------

MESSAGES = rows(section("2"))
DIRECTION = {Role.CLIENT: "C→S", Role.SERVER: "S→C"}


@pytest.mark.parametrize("cls", message_types(), ids=lambda c: f"{c.SENDER.value}-{c.TYPE}")
def test_every_message_is_in_section_2_with_every_field(cls: Any) -> None:
    cells = MESSAGES.get(cls.TYPE)
    assert cells, f"{cls.TYPE} has no row in section 2"
    direction, fields = cells[0], " ".join(cells[1:])
    assert direction in (DIRECTION[cls.SENDER], "both")
    assert names(fields, [f.name for f in dataclasses.fields(cls)]) == []


def test_section_2_names_no_message_the_code_lacks() -> None:
    known = {cls.TYPE for cls in message_types()}
    documented = {name for name, cells in MESSAGES.items() if cells[0] in ("C→S", "S→C", "both")}
    assert documented == known


# -- structures -------------------------------------------------------------------------------

STRUCTS: dict[str, type[Any]] = {
    "Version": Version,
    "TableSettings": TableSettings,
    "SeatInfo": SeatInfo,
    "TableInfo": TableInfo,
    "Opening": Opening,
    "Snapshot": Snapshot,
    "SignedRecord": SignedRecord,
    "TournamentSettings": TournamentSettings,
    "TournamentInfo": TournamentInfo,
    "Standing": Standing,
    "SessionInfo": SessionInfo,
    "NodeInfo": NodeInfo,
    "Sanction": Sanction,
    "AuditEntry": AuditEntry,
}


@pytest.mark.parametrize("name", sorted(STRUCTS))
def test_every_structure_is_in_section_3_1_with_every_field(name: str) -> None:
    cells = rows(section("3.1")).get(name)
    assert cells, f"{name} has no row in section 3.1"
    assert names(" ".join(cells), [f.name for f in dataclasses.fields(STRUCTS[name])]) == []


def _game_values() -> list[tuple[str, str, list[str]]]:
    """(section, value name, its wire field names) of each game's structured values."""
    card = [
        ("3.3", "Options", [f.name for f in dataclasses.fields(GameOptions)]),
        ("3.3", "Action", list(cardwire.encode_action(Action(Card.EGG, Card.SQUID, Card.EGG)))),
        ("3.3", "Observation", list(cardwire._OBS_HINTS)),
        ("3.3", "TableauView", list(cardwire._TABLEAU_HINTS)),
        *(("3.3", tag, list(hints)) for tag, hints in cardwire._EVENT_HINTS.values()),
    ]
    roll = [
        ("3.4", "Options", [f.name for f in dataclasses.fields(RollOptions)]),
        ("3.4", "Observation", list(rollwire._ROLL_OBS_HINTS)),
        ("3.4", "PlayerView", [f.name for f in dataclasses.fields(rollwire.PlayerView)]),
        *(("3.4", tag, list(hints)) for tag, hints in rollwire._ROLL_EVENT_HINTS.values()),
        (
            "3.4",
            "Action",
            sorted({f for cls in rollwire._ROLL_ACTION_CODECS for f in cls._fields} | {"type"}),
        ),
    ]
    return card + roll


@pytest.mark.parametrize(("where", "name", "fields"), _game_values(), ids=str)
def test_every_game_value_is_in_its_section_with_every_field(
    where: str, name: str, fields: list[str]
) -> None:
    cells = rows(section(where)).get(name)
    assert cells, f"{name} has no row in section {where}"
    assert names(" ".join(cells), fields) == []


# -- errors and phases ------------------------------------------------------------------------


def test_every_error_code_is_in_section_5_with_its_fatality() -> None:
    table_rows = re.findall(r"^\| (\d+) \| ([A-Z_]+) \| (yes|no\*?) \|", section("5"), re.M)
    assert {(int(code), name) for code, name, _ in table_rows} == {
        (c.value, c.name) for c in ErrorCode
    }
    for code, _, fatal in table_rows:
        assert (fatal == "yes") == (ErrorCode(int(code)) in FATAL_CODES), code


def test_every_phase_is_in_section_4() -> None:
    assert set(rows(section("4"))) >= {phase.value for phase in Phase}


# -- frames -----------------------------------------------------------------------------------


def test_the_frame_limits_of_section_1_are_the_code_s() -> None:
    frames = section("1")
    for limits in (CLIENT_LIMITS, SERVER_LIMITS):
        sizes = (limits.max_str_len, limits.max_bin_len, limits.max_array_len, limits.max_map_len)
        assert f"({limits.max_body}) | " + " | ".join(map(str, sizes)) + " |" in frames
