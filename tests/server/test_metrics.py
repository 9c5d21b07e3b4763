"""`sushigo-server --metrics`: the HTTP endpoint on the server's own loop, read as Prometheus
reads it, after real games over real sockets."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from processes import http_get
from prometheus_client.parser import text_string_to_metric_families
from server_helpers import card_settings, expected_turns
from socket_helpers import Running, background_game, running_server

from sushigo.engine import GameOptions
from sushigo.protocol import CURRENT_VERSION, AdminBan, AdminDrain, ChatMessage
from sushigo.protocol.about import package_version
from sushigo.server.cli import main
from sushigo.server.config import HubConfig
from sushigo.server.net.metrics import MetricsServer, registry_for

ROOT = Path(__file__).resolve().parents[2]

Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


def samples(text: str) -> Samples:
    """Every sample of an exposition, by name and labels."""
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(text)
        for s in family.samples
    }


@asynccontextmanager
async def with_metrics(
    config: HubConfig | None = None, admins: tuple[bytes, ...] = ()
) -> AsyncIterator[tuple[Running, str, int]]:
    async with running_server(config=config, admins=admins) as running:
        metrics = MetricsServer(registry_for(running.server), running.server.unready)
        (host, port), *_ = await metrics.start("127.0.0.1", 0)
        try:
            yield running, host, port
        finally:
            await metrics.stop()


async def scrape(host: str, port: int) -> Samples:
    status, body = await http_get(host, port, "/metrics")
    assert status == 200
    return samples(body)


async def test_metrics_after_a_game_count_what_happened() -> None:
    # Two connections from one address at once, then none for a long while (1 in 100 s).
    config = HubConfig(connect_burst_per_address=2, connect_rate_per_address=0.01)
    async with with_metrics(config) as (running, host, port):
        assert await http_get(host, port, "/healthz") == (200, "ok\n")
        assert await http_get(host, port, "/readyz") == (200, "ready\n")
        waiting = await running.client("waiting")
        await waiting.create_table(card_settings(3))
        await background_game(running)  # the bystander's connection: the second
        reader, writer = await asyncio.open_connection(running.host, running.port)
        assert await asyncio.wait_for(reader.read(), 5)  # LIMIT_REACHED, then closed
        writer.close()
        # By the time the chat comes back, the server has seen the bystander go.
        waiting.chat("anyone?")
        assert (await waiting.wait_for(ChatMessage, 5)).text == "anyone?"
        got = await scrape(host, port)
        await waiting.close()

    turns = expected_turns(GameOptions(players=2))
    game = (("game", "sushi-go"),)
    assert got["sushigo_info", (("protocol", str(CURRENT_VERSION)), ("version", package_version()))]
    assert got["sushigo_ready", ()] == 1
    assert got["sushigo_turns_total", game] == turns
    assert got["sushigo_games_finished_total", game] == 1
    assert got["sushigo_turn_latency_seconds_count", game] == turns
    assert got["sushigo_turn_latency_seconds_bucket", (*game, ("le", "+Inf"))] == turns
    assert 0 < got["sushigo_turn_latency_seconds_sum", game] < turns * 5
    assert got["sushigo_tables", (*game, ("state", "open"))] == 1
    assert got["sushigo_connections", ()] == 1  # the waiting player
    assert got["sushigo_sessions", (("state", "connected"),)] == 1
    assert got["sushigo_sessions", (("state", "away"),)] == 1  # the bystander's, for a resume
    assert got["sushigo_connections_opened_total", ()] == 2
    assert got["sushigo_connections_rejected_total", (("reason", "rate"),)] == 1
    assert got["sushigo_connections_rejected_total", (("reason", "per_address"),)] == 0
    assert got["sushigo_chat_messages_total", ()] == 1
    received, sent = got["sushigo_frames_received_total", ()], got["sushigo_frames_sent_total", ()]
    assert received > 2 * turns and sent > received  # every turn: a commit and a reveal
    assert got["sushigo_sent_bytes_total", ()] > got["sushigo_received_bytes_total", ()] > 0
    assert got["sushigo_storage_write_seconds_count", ()] > 0
    assert got["sushigo_storage_queue", ()] == 0 and got["sushigo_storage_failing", ()] == 0
    assert got["process_cpu_seconds_total", ()] > 0
    assert got["process_resident_memory_bytes", ()] > 1_000_000


async def test_readiness_follows_draining_and_shutting_down() -> None:
    async with with_metrics() as (running, host, port):
        running.hub.draining = True
        assert await http_get(host, port, "/readyz") == (503, "not ready: draining\n")
        assert (await scrape(host, port))["sushigo_ready", ()] == 0
        running.hub.draining = False
        assert (await http_get(host, port, "/readyz"))[0] == 200
        await running.server.stop()
        assert await http_get(host, port, "/readyz") == (503, "not ready: shutting down\n")
        assert await http_get(host, port, "/healthz") == (200, "ok\n")


async def test_an_admin_s_drain_and_bans_show_in_readiness_and_metrics() -> None:
    key = Ed25519PrivateKey.generate()
    async with with_metrics(admins=(key.public_key().public_bytes_raw(),)) as (running, h, p):
        root = await running.client("root", key=key)
        await root.request(lambda ref: AdminDrain(ref=ref))
        assert await http_get(h, p, "/readyz") == (503, "not ready: draining\n")
        await root.request(lambda ref: AdminDrain(ref=ref, drain=False))
        assert (await http_get(h, p, "/readyz"))[0] == 200
        await root.request(lambda ref: AdminBan(ref=ref, target="127.0.0.3"))
        reader, writer = await asyncio.open_connection(
            running.host, running.port, local_addr=("127.0.0.3", 0)
        )
        assert await reader.read() != b""  # BANNED, then closed
        writer.close()
        refused = ("sushigo_connections_rejected_total", (("reason", "banned"),))
        assert (await scrape(h, p))[refused] == 1
        await root.close()


async def test_the_endpoint_speaks_plain_http_and_nothing_else() -> None:
    async with with_metrics() as (_, host, port):
        assert (await http_get(host, port, "/metrics", method="HEAD")) == (200, "")
        assert (await http_get(host, port, "/metrics", method="POST"))[0] == 405
        assert (await http_get(host, port, "/nothing"))[0] == 404
        # Kept alive, as Prometheus keeps its connection: two scrapes on one.
        reader, writer = await asyncio.open_connection(host, port)
        for _ in range(2):
            writer.write(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            assert head.startswith(b"HTTP/1.1 200 OK\r\n")
            assert await reader.readexactly(3) == b"ok\n"
        writer.write(b"NOT HTTP AT ALL\r\n\r\n")  # refused, the server unharmed
        assert (await asyncio.wait_for(reader.read(), 5)).startswith(b"HTTP/1.1 400 ")
        writer.close()
        assert (await http_get(host, port, "/healthz"))[0] == 200


def test_bad_metrics_addresses_are_usage_errors(capsys: pytest.CaptureFixture[str]) -> None:
    for bad in ("9100", "::1:9100", "localhost:99999", "localhost:port"):
        with pytest.raises(SystemExit) as exited:
            main(["--metrics", bad])
        assert exited.value.code == 2, bad
        last = capsys.readouterr().err.strip().splitlines()[-1]
        assert last.startswith("sushigo-server: error: argument --metrics: "), bad


def test_a_metrics_address_in_use_stops_the_server_with_one_line(tmp_path: Path) -> None:
    """Naming the address, and before anything is made: not even the default database (the
    server runs with a home of the test's own)."""
    home = tmp_path / "home"
    home.mkdir()
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        exe = str(Path(sys.executable).with_name("sushigo-server"))
        done = subprocess.run(
            [exe, "--port", "0", "--metrics", f"127.0.0.1:{port}"],
            check=False,
            capture_output=True,
            text=True,
            timeout=60,
            env={**os.environ, "HOME": str(home), "XDG_DATA_HOME": ""},
        )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.startswith(
        f"sushigo-server: error: cannot listen on 127.0.0.1:{port} (--metrics): "
    ), done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    assert list(home.iterdir()) == [], "nothing made"


async def test_the_grafana_dashboard_asks_only_for_metrics_the_server_exports() -> None:
    dashboard = json.loads((ROOT / "docs" / "grafana-dashboard.json").read_text(encoding="utf-8"))
    exprs = [t["expr"] for panel in dashboard["panels"] for t in panel["targets"]]
    asked = {
        re.sub(r"_(total|bucket|sum|count)$", "", name)
        for expr in exprs
        for name in re.findall(r"\b((?:sushigo|process)_[a-z_]+)\{", expr)
    }
    async with with_metrics() as (_, host, port):
        _, text = await http_get(host, port, "/metrics")
    exported = {family.name for family in text_string_to_metric_families(text)}
    assert len(asked) > 15 and asked <= exported, asked - exported
