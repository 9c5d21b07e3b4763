"""Running a public server, end to end with the real `sushigo-server` process on SQLite: a whole
game at debug level with a restart in the middle, after which no log line and no metric holds a
secret; then `sushigo-replay` reads the database while the server still runs on it, and a second
server is kept off it."""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
import sys
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from processes import ServerProcess, http_get
from socket_helpers import dropped

from sushigo.client.connection import Client
from sushigo.engine import Card
from sushigo.protocol import GameEnded, TableSettings, TurnResult, TurnStart
from sushigo.server.keys import load_or_create_server_key

BIN = Path(sys.executable).parent


def forms(secret: bytes) -> set[str]:
    """The ways a log line could show `secret`: hex, base64 (both alphabets, padded or not),
    and Python's bytes repr."""
    b64 = base64.b64encode(secret).decode()
    url = base64.urlsafe_b64encode(secret).decode()
    return {secret.hex(), b64, b64.rstrip("="), url, url.rstrip("="), repr(secret)[2:-1]}


async def run(*argv: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        *argv, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


async def play_on(
    players: list[Client], rng: random.Random, secrets: set[bytes], hands: set[str], stop: int
) -> GameEnded | None:
    """Play every seat's picks until round `stop` begins (None) or the game ends."""

    async def seat(c: Client) -> GameEnded | None:
        while True:
            event = await c.next_event(10)
            if isinstance(event, TurnStart):
                assert c.observation is not None
                hands.update(card.label for card in c.observation.hand)
                if event.round == stop:
                    return None
                c.pick(rng.choice(event.observation.legal_actions()))
            elif isinstance(event, TurnResult):
                secrets.update(o.nonce for o in event.openings if o.nonce is not None)
            elif isinstance(event, GameEnded):
                return event

    return (await asyncio.gather(*(seat(c) for c in players)))[0]


async def test_no_secret_in_any_log_line_or_metric_and_replay_reads_a_running_server(
    tmp_path: Path,
) -> None:
    db = tmp_path / "server.db"
    extra = ("--log-level", "debug", "--log-format", "json", "--metrics", "127.0.0.1:0")
    server = ServerProcess(db, extra)
    await server.start()
    secrets: set[bytes] = set()
    hands: set[str] = set()
    rng = random.Random(5)
    pages: list[str] = []
    try:
        keys = [Ed25519PrivateKey.generate() for _ in range(2)]
        secrets.update(k.private_bytes_raw() for k in keys)
        players = [
            await Client.connect("127.0.0.1", server.port, name=f"p{i}", key=keys[i])
            for i in range(2)
        ]
        settings = TableSettings(kind="sushi-go", players=3, turn_seconds=60)
        joined = await players[0].create_table(settings)
        await players[1].join_table(joined.table.table_id)
        await players[0].add_bot("random")
        players[0].start_game()
        assert await play_on(players, rng, secrets, hands, stop=2) is None
        secrets.update(c.token for c in players)
        pages.append((await http_get("127.0.0.1", server.metrics_port, "/metrics"))[1])

        await server.restart()  # SIGKILL in round 2, then every player resumes
        for c in players:
            await dropped(c)
            c.port = server.port
            await c.resume()
            secrets.add(c.token)  # a resume hands out a new token
            assert c.observation is not None
            c.pick(rng.choice(c.observation.legal_actions()))
        ended = await play_on(players, rng, secrets, hands, stop=0)
        assert ended is not None
        for c in players:
            assert c.fairness.final == "verified", c.fairness.failures
        pages.append((await http_get("127.0.0.1", server.metrics_port, "/metrics"))[1])

        # The server still runs on the database: replay reads it all the same.
        code, out, err = await run(str(BIN / "sushigo-replay"), "--db", str(db))
        assert (code, err) == (0, ""), err
        game_id = out.split()[0]
        code, out, err = await run(str(BIN / "sushigo-replay"), "--db", str(db), game_id)
        assert (code, err) == (0, ""), err
        assert out.rstrip().endswith("check out")
        # ...and a second server is kept off it, with one line.
        code, out, err = await run(str(BIN / "sushigo-server"), "--db", str(db), "--port", "0")
        assert code == 1 and out == ""
        assert re.fullmatch(r"sushigo-server: error: .*another sushigo server.*\n", err), err
        # The first goes on: a new player can play there.
        late = await Client.connect("127.0.0.1", server.port, name="late")
        await late.create_table(settings)
        await late.close()
        for c in players:
            await c.close()
    finally:
        await server.stop()

    server_key = load_or_create_server_key(db.with_name(db.name + ".key"))
    secrets.add(server_key.private_bytes_raw())
    secrets.add(ended.record.record)  # the server seed is in the record: check it is not logged
    lines = server.log.decode().splitlines()
    events = [json.loads(line) for line in lines]  # every line one JSON event
    messages = [e["message"] for e in events]
    assert any(m.startswith("login ") for m in messages)
    assert any(m.startswith("connect ") for m in messages), "debug level logs connections"
    assert any(" a game of sushi-go starts: " in m for m in messages)
    assert sum(m.startswith("resume ") for m in messages) == 2
    assert any(m.startswith("game over at table ") for m in messages)
    texts = [*lines, *pages]
    for secret in secrets:
        for form in forms(secret):
            leaked = [t for t in texts if form in t]
            assert not leaked, f"a secret ({form[:12]}...) in {leaked[0][:200]!r}"
    labels = {card.label for card in Card}
    assert hands <= labels and len(hands) > 3
    words = re.compile(r"\b(" + "|".join(sorted(labels)) + r")\b")
    shown = [t for t in texts if words.search(t)]
    assert not shown, f"a card name in {shown[0][:200]!r}"
