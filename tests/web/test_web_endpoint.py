"""`sushigo-server --web`: the page's files over HTTP, and the protocol over WebSocket, against
a real server process. A WebSocket player is a connection like any other: the same frames, the
same limits and errors, at a table with TCP players."""

from __future__ import annotations

import asyncio
import gzip
import ssl
from pathlib import Path

import h11
import pytest
from processes import ServerProcess, server_process
from wsclient import Rejected, relay, ws_connect

from sushigo.client.connection import Client
from sushigo.protocol import (
    Error,
    ErrorCode,
    GameEnded,
    Hello,
    LoggedIn,
    LoginGuest,
    Ping,
    TableSettings,
    TurnStart,
    Welcome,
)
from sushigo.protocol.frames import HEADER_SIZE
from sushigo.protocol.versions import SUPPORTED_VERSIONS
from sushigo.server.net import web

PAGE = Path(__file__).resolve().parents[2] / "client" / "web"

pytestmark = pytest.mark.asyncio(loop_scope="session")
"""The tests run on the session's event loop, as the browser tests beside them do."""


async def http(
    port: int, request: bytes, *, tls: bool = False
) -> tuple[int, dict[bytes, bytes], bytes]:
    """Send raw request bytes; the first answer's status, headers (lower-case names) and body."""
    context = None
    if tls:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    reader, writer = await asyncio.open_connection("127.0.0.1", port, ssl=context)
    try:
        writer.write(request)
        conn = h11.Connection(h11.CLIENT)
        method = request.split(b" ", 1)[0] if request[:1].isalpha() else b"GET"
        conn.send(h11.Request(method=method, target=b"/", headers=[(b"host", b"x")]))
        status, headers, body = 0, {}, b""
        while True:
            event = conn.next_event()
            if event is h11.NEED_DATA:
                conn.receive_data(await asyncio.wait_for(reader.read(65536), 10))
                continue
            if isinstance(event, h11.Response):
                status, headers = event.status_code, dict(event.headers)
            elif isinstance(event, h11.Data):
                body += event.data
            elif isinstance(event, h11.EndOfMessage | h11.ConnectionClosed):
                return status, headers, body
    finally:
        writer.close()


def get(path: str, *extra: str) -> bytes:
    lines = [f"GET {path} HTTP/1.1", "Host: 127.0.0.1", *extra, "", ""]
    return "\r\n".join(lines).encode()


def hello() -> Hello:
    return Hello(ref=1, protocol="sushigo", version=SUPPORTED_VERSIONS[-1])


async def test_the_page_is_served_with_its_types_compressed_and_cached(
    web_server: ServerProcess,
) -> None:
    port = web_server.web_port
    status, headers, body = await http(port, get("/"))
    assert status == 200
    assert headers[b"content-type"] == b"text/html; charset=utf-8"
    assert body == (PAGE / "index.html").read_bytes()
    assert headers[b"cache-control"] == b"no-cache"
    assert headers[b"x-content-type-options"] == b"nosniff"
    etag = headers[b"etag"]
    # Revalidation: the same file is a 304 with no body.
    status, headers, body = await http(port, get("/", f"If-None-Match: {etag.decode()}"))
    assert (status, body) == (304, b"")
    # Every module is JavaScript (a browser refuses a module of another type) and gzipped for a
    # browser that takes it.
    modules = sorted(p for p in PAGE.rglob("*.js"))
    assert modules, "the page has modules"
    for path in modules:
        url = "/" + path.relative_to(PAGE).as_posix()
        status, headers, body = await http(port, get(url, "Accept-Encoding: gzip, br"))
        assert status == 200, url
        assert headers[b"content-type"] == b"text/javascript; charset=utf-8", url
        if headers.get(b"content-encoding") == b"gzip":
            body = gzip.decompress(body)
        assert body == path.read_bytes(), url
    status, headers, body = await http(port, get("/", "Accept-Encoding: identity"))
    assert b"content-encoding" not in headers
    # HEAD: the headers, no body.
    status, headers, body = await http(port, b"HEAD / HTTP/1.1\r\nHost: x\r\n\r\n")
    assert status == 200 and int(headers[b"content-length"]) > 0


@pytest.mark.parametrize(
    "path",
    [
        "/../../../etc/passwd",
        "/%2e%2e/%2e%2e/etc/passwd",
        "/..%2f..%2fetc%2fpasswd",
        "/ui/../../server/web.py",
        "/%00index.html",
        "/.hidden",
        "/index.html%5c..%5c..%5cetc",
        "//etc/passwd",
        "/nothing-here.js",
    ],
)
async def test_no_path_leaves_the_page(web_server: ServerProcess, path: str) -> None:
    status, _, body = await http(web_server.web_port, get(path))
    assert status in (400, 404)
    assert b"root:" not in body


async def test_what_is_no_page_request_is_refused_clearly(web_server: ServerProcess) -> None:
    port = web_server.web_port
    assert (await http(port, b"POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n"))[0] == 405
    status, _, body = await http(port, get("/ws"))
    assert status == 426 and b"WebSocket" in body
    # Not HTTP at all (a TCP client at the wrong port): 400, and the server serves on.
    status, _, body = await http(port, b"\x00\x00\x00\x10garbage-garbage!")
    assert status == 400
    # A head too large to keep: 431 before the whole of it is read.
    status, _, _ = await http(port, get("/", "X-Big: " + "a" * 40_000))
    assert status == 431
    # Upgrades that are not WebSocket's: refused with the status RFC 6455 asks for.
    no_key = get("/ws", "Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13")
    assert (await http(port, no_key))[0] == 400
    old = get(
        "/ws",
        "Upgrade: websocket",
        "Connection: Upgrade",
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
        "Sec-WebSocket-Version: 8",
    )
    status, headers, _ = await http(port, old)
    assert status == 426 and headers[b"sec-websocket-version"] == b"13"
    with pytest.raises(Rejected) as refused:
        async with ws_connect(port, path="/elsewhere"):
            pass
    assert refused.value.status == 404
    # After all that, a WebSocket player is served as ever.
    async with ws_connect(port) as ws:
        ws.send(hello())
        assert isinstance(await ws.receive(), Welcome)


async def test_connections_that_never_upgrade_are_bounded_per_address(
    web_server: ServerProcess,
) -> None:
    """A client that opens page connections and sends nothing holds at most `PAGE_PER_ADDRESS`;
    the next is told so (503) and closed, and a WebSocket still gets through once they go."""
    idle = [
        await asyncio.open_connection("127.0.0.1", web_server.web_port)
        for _ in range(web.PAGE_PER_ADDRESS)
    ]
    try:
        status, headers, body = await http(web_server.web_port, get("/"))
        assert status == 503 and b"connections from your address" in body
        assert headers[b"retry-after"] == b"5"
    finally:
        for _, writer in idle:
            writer.close()
            await writer.wait_closed()
    for _ in range(100):  # the server sees them close as the loop turns
        status, _, _ = await http(web_server.web_port, get("/"))
        if status == 200:
            break
    assert status == 200


async def test_a_websocket_speaks_the_protocol_one_frame_a_message(
    web_server: ServerProcess,
) -> None:
    async with ws_connect(web_server.web_port) as ws:
        ws.send(hello())
        welcome = await ws.receive()
        assert isinstance(welcome, Welcome) and ws.proto.last_seq == 1
        ws.send(LoginGuest(ref=2, name="webby"))
        logged = await ws.receive()
        assert isinstance(logged, LoggedIn) and logged.name == "webby"
        # Each message is exactly one frame's body: msgpack, a map first.
        ws.send(Ping(ref=3, nonce=7))
        raw = await ws.message()
        assert isinstance(raw, bytes) and raw[0] & 0xF0 == 0x80


async def test_a_message_over_the_frame_limit_is_refused_as_over_tcp(
    web_server: ServerProcess,
) -> None:
    async with ws_connect(web_server.web_port) as ws:
        ws.send(hello())
        assert isinstance(await ws.receive(), Welcome)
        ws.send_bytes(b"\x81\xa4type" + b"x" * 40_000)
        got = await ws.ended()
    assert [type(m) for m in got] == [Error]
    assert got[0].code == ErrorCode.FRAME_TOO_LARGE


@pytest.mark.parametrize(
    ("send", "says"),
    [
        (lambda ws: ws.send_text('{"type": "hello"}'), "binary"),
        (
            lambda ws: ws.send_bytes(
                len(body := ws.proto.send(hello())[HEADER_SIZE:]).to_bytes(4, "big") + body
            ),
            "without the 4-byte length",
        ),
        (lambda ws: ws.writer.write(b"\x8f\x80\x00\x00\x00\x00"), "not a WebSocket frame"),
    ],
    ids=["text", "prefixed", "bad-opcode"],
)
async def test_what_a_browser_never_sends_is_named(
    web_server: ServerProcess, send: object, says: str
) -> None:
    async with ws_connect(web_server.web_port) as ws:
        send(ws)  # type: ignore[operator]
        got = await ws.ended()
    assert [type(m) for m in got] == [Error]
    assert got[0].code == ErrorCode.MALFORMED_FRAME and says in got[0].message


async def test_deadlines_hold_over_websocket(tmp_path: Path) -> None:
    async with server_process(
        tmp_path / "server.db",
        "--web",
        "127.0.0.1:0",
        "--handshake-seconds",
        "2",
        "--frame-seconds",
        "1",
    ) as server:
        # No login in time.
        async with ws_connect(server.web_port) as ws:
            got = await ws.ended()
        assert [m.code for m in got if isinstance(m, Error)] == [ErrorCode.TIMEOUT]
        # A message begun and never finished: a first fragment, no more.
        async with ws_connect(server.web_port) as ws:
            ws.send(hello())
            assert isinstance(await ws.receive(), Welcome)
            ws.send(LoginGuest(ref=2, name="slow"))
            assert isinstance(await ws.receive(), LoggedIn)
            ws.writer.write(b"\x02\x83" + b"\x00\x00\x00\x00" + b"\x81\xa4t")
            got = await ws.ended()
        assert [m.code for m in got if isinstance(m, Error)] == [ErrorCode.TIMEOUT]
        assert "message" in got[-1].message


async def test_per_address_limits_and_rate_limits_hold_over_websocket(tmp_path: Path) -> None:
    async with server_process(
        tmp_path / "server.db",
        "--web",
        "127.0.0.1:0",
        "--max-per-address",
        "2",
        "--message-burst",
        "5",
    ) as server:
        port = server.web_port
        # TCP and WebSocket connections count together against one address's cap.
        _, tcp_writer = await asyncio.open_connection("127.0.0.1", server.port)
        async with ws_connect(port) as first, ws_connect(port) as refused:
            got = await refused.ended()
            assert [m.code for m in got if isinstance(m, Error)] == [ErrorCode.LIMIT_REACHED]
            first.send(hello())
            assert isinstance(await first.receive(), Welcome)
            first.send(LoginGuest(ref=2, name="flood"))
            assert isinstance(await first.receive(), LoggedIn)
            for i in range(40):
                first.send(Ping(ref=10 + i))
            codes = []
            while (message := await first.receive()) is not None:
                if isinstance(message, Error):
                    codes.append(message.code)
                    if message.code == ErrorCode.RATE_LIMITED and len(codes) > 2:
                        break
            assert ErrorCode.RATE_LIMITED in codes
        tcp_writer.close()


async def test_tls_serves_the_page_and_the_websocket(tmp_path: Path) -> None:
    async with server_process(tmp_path / "server.db", "--web", "127.0.0.1:0", "--tls") as server:
        status, _, body = await http(server.web_port, get("/"), tls=True)
        assert status == 200 and body == (PAGE / "index.html").read_bytes()
        async with ws_connect(server.web_port, tls=True) as ws:
            ws.send(hello())
            assert isinstance(await ws.receive(), Welcome)
        # Plain HTTP to the TLS port is not served (and the server goes on).
        with pytest.raises((ConnectionError, AssertionError, h11.RemoteProtocolError)):
            status, _, _ = await http(server.web_port, get("/"))
            assert status == 200
        assert server.proc is not None and server.proc.returncode is None


async def test_websocket_and_tcp_players_play_a_game_together(
    web_server: ServerProcess,
) -> None:
    """The client library over the WebSocket endpoint (frame by frame through `relay`) and over
    TCP, at one table with a server bot: a whole game, every check of the client's passing."""
    async with relay(web_server.web_port) as relayed:
        web = await Client.connect("127.0.0.1", relayed, name="web")
        tcp = await Client.connect("127.0.0.1", web_server.port, name="tcp")
        try:
            joined = await web.create_table(
                TableSettings(kind="sushi-go", players=3, turn_seconds=30)
            )
            await tcp.join_table(joined.table.table_id)
            await web.add_bot("greedy")
            web.start_game()
            results = await asyncio.wait_for(asyncio.gather(_play(web), _play(tcp)), 120)
        finally:
            await web.close()
            await tcp.close()
    assert results[0].totals == results[1].totals
    assert web.fairness.final == tcp.fairness.final == "verified"
    assert not web.fairness.failures and not tcp.fairness.failures


async def _play(client: Client) -> GameEnded:
    while True:
        event = await client.next_event(60)
        if isinstance(event, GameEnded):
            return event
        if isinstance(event, TurnStart) and client.seat is not None:
            client.pick(event.observation.legal_actions()[0])
