"""The protocol's schema as plain data (`protocol.schema`), which the web client's core reads: the
file it reads is the code's, and the schema says what the code checks."""

from __future__ import annotations

import json
from pathlib import Path

from sushigo.protocol import CURRENT_VERSION, TRANSITIONS, ErrorCode
from sushigo.protocol.schema import SCHEMA_MODULE, describe, js_module

ROOT = Path(__file__).resolve().parents[2]


def test_the_web_clients_schema_is_up_to_date() -> None:
    kept = (ROOT / SCHEMA_MODULE).read_text(encoding="utf-8")
    assert kept == js_module(), "client/web/core/schema.js is out of date: run scripts/web_schema"


def test_the_module_is_the_schema_as_json() -> None:
    text = js_module()
    body = text[text.index("export default ") + len("export default ") :].rstrip().rstrip(";")
    assert json.loads(body) == json.loads(json.dumps(describe()))


def test_the_schema_says_what_the_code_checks() -> None:
    schema = describe()
    assert schema["version"] == {"major": CURRENT_VERSION.major, "minor": CURRENT_VERSION.minor}
    assert len(schema["transitions"]) == len(TRANSITIONS)
    assert schema["errors"]["WRONG_TURN"] == ErrorCode.WRONG_TURN == 60
    fields = {f["name"]: f for f in schema["messages"]["server"]["turn_start"]}
    assert fields["observation"]["type"] == {"t": "game", "part": "observation"}
    assert fields["secret"] == {
        "name": "secret",
        "type": {"t": "bool"},
        "required": False,
        "default": True,
    }
    assert fields["seats"]["type"] == {
        "t": "array",
        "of": {"t": "int", "lo": 0, "hi": 7},
        "lo": 1,
        "hi": 8,
    }
    redirect = {f["name"]: f for f in schema["messages"]["server"]["redirect"]}
    assert redirect["ticket"]["default"] == {"bin": ""}
    assert {"hello", "login_key", "commit", "reveal", "act"} <= set(schema["messages"]["client"])
