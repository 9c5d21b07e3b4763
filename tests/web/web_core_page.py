"""The web client's core in a real headless Chromium, for its tests (test_web_core.py).

- `Site`: an HTTP server on 127.0.0.1 serving client/web/ as the wheel carries it, the test
  page and its suites (tests/web/page/), docs/ (the suites read PROTOCOL.md's vectors from it, as
  the Python test does) and data the test made (`fixtures`: the Python engine's games).
- `ServerProcess`: a real `sushigo-server --web`, whose WebSocket endpoint the core talks to as
  the web client does; killed and started again on the test page's request.
- `run_suite`: the headless Chromium of the folder's tests (conftest.py's `chromium`) loads the
  page, which runs one suite's tests and reports each one's outcome.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from functools import partial
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

ROOT = Path(__file__).resolve().parents[2]
WEB = ROOT / "client" / "web"
PAGE = Path(__file__).resolve().parent / "page"


def page_html(suite: str) -> bytes:
    """The test page of `suite`: the core's import map (its paths made absolute: the page is not
    at the root) and the runner."""
    imports = json.loads((WEB / "core" / "importmap.json").read_text(encoding="utf-8"))["imports"]
    absolute = {key: "/" + target.removeprefix("./") for key, target in imports.items()}
    importmap = json.dumps({"imports": absolute})
    return (
        "<!doctype html><meta charset='utf-8'><title>core tests</title><link rel='icon' href='data:,'>"
        f"<script type='importmap'>{importmap}</script>"
        f"<script type='module'>import {{ run }} from '/tests/runner.js'; run({json.dumps(suite)});"
        "</script>"
    ).encode()


class _Handler(SimpleHTTPRequestHandler):
    """Files by path: /tests/ the page's, /docs/ the documents, /fixtures/ the test's data,
    anything else client/web/'s."""

    fixtures: ClassVar[dict[str, bytes]] = {}
    controls: ClassVar[dict[str, Callable[[], None]]] = {}

    def do_POST(self) -> None:
        """/control/NAME: the test's own action NAME (restart the server, say), done before the
        answer."""
        action = self.controls.get(self.path.removeprefix("/control/"))
        if action is None:
            self.send_error(404)
            return
        action()
        self.send_response(204)
        self.end_headers()

    def translate_path(self, path: str) -> str:
        path = path.split("?", 1)[0]
        for prefix, folder in (("/tests/", PAGE), ("/docs/", ROOT / "docs")):
            if path.startswith(prefix):
                return str(folder / path.removeprefix(prefix))
        return str(WEB / path.lstrip("/"))

    def do_GET(self) -> None:
        path = self.path.split("?", 1)[0]
        body: bytes | None = None
        if path.startswith("/fixtures/"):
            body = self.fixtures.get(path.removeprefix("/fixtures/"))
        elif path.startswith("/page/"):
            body = page_html(path.removeprefix("/page/"))
        if body is None:
            super().do_GET()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/json" if "fixtures" in path else "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


_Handler.extensions_map = {
    **SimpleHTTPRequestHandler.extensions_map,
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".md": "text/plain; charset=utf-8",
}


class Site:
    """The HTTP server (see the module docstring), in a thread."""

    def __init__(
        self, fixtures: dict[str, bytes], controls: dict[str, Callable[[], None]] | None = None
    ) -> None:
        handler = type("Handler", (_Handler,), {"fixtures": fixtures, "controls": controls or {}})
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), partial(handler, directory=str(WEB)))
        self.port = self.server.server_address[1]
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def __enter__(self) -> Site:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def url(self, suite: str, **query: str | int) -> str:
        """The test page of `suite`, with `query` for the suite (`ws`: the server's endpoint)."""
        args = "&".join(f"{k}={v}" for k, v in query.items())
        return f"http://127.0.0.1:{self.port}/page/{suite}" + (f"?{args}" if args else "")


SERVER = Path(sys.executable).with_name("sushigo-server")


class ServerProcess:
    """A real `sushigo-server` on 127.0.0.1 with its database in `folder`, serving its WebSocket
    endpoint (``--web``: `ws_url`) too: started on free ports, and killed (SIGKILL) and started
    again on the same ports by `restart` (called from `Site`'s thread: it blocks)."""

    def __init__(
        self, folder: Path, extra: tuple[str, ...] = (), port: int = 0, web_port: int = 0
    ) -> None:
        self.db = ("--db", str(folder / "db"), "--key", str(folder / "server.key"))
        """The database and key, unless `extra` names others (a cluster's node's)."""
        if "--db" in extra:
            self.db = ()
        self.extra = extra
        self.port = port
        self.web_port = web_port
        self.proc: subprocess.Popen[str] | None = None

    def start(self) -> int:
        web = ("--web", f"127.0.0.1:{self.web_port}")
        self.proc = subprocess.Popen(
            [
                *(str(SERVER), "--host", "127.0.0.1", "--port", str(self.port), *web),
                *self.db,
                *self.extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        assert self.proc.stdout is not None
        listening = False
        said = []
        for line in self.proc.stdout:
            said.append(line)
            if "listening on" in line:
                self.port = int(line.rsplit(":", 1)[1])
                listening = True
            elif "web client on" in line:
                self.web_port = int(line.rstrip().rstrip("/").rsplit(":", 1)[1])
            if listening and self.web_port != 0:
                break
        assert listening, "the server did not start: " + "".join(said)
        # Its later output is read (and dropped) so that it never blocks on a full pipe.
        threading.Thread(target=self.proc.stdout.read, daemon=True).start()
        return self.port

    def restart(self) -> None:
        """SIGKILL, then start again on the same port with the same database and key."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(15)
        self.start()

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(15)

    @property
    def ws_url(self) -> str:
        """Its own WebSocket endpoint (``--web``)."""
        return f"ws://127.0.0.1:{self.web_port}/ws"


EXPECTED = ("FAIRNESS CHECK FAILED", "WebSocket connection to")
"""Console errors a suite causes on purpose: the failures its cheating server makes the checks
log, and the browser's note of each attempt to reconnect while a restarted server is down."""


async def run_suite(browser: Any, url: str, timeout_s: float = 120) -> list[dict[str, Any]]:
    """Load the test page at `url` in a page of `browser` (a Playwright `Browser`, async) and
    wait for its suite's results: one ``{name, ok, error, ms}`` per test. The page's console
    errors and uncaught exceptions fail the run."""
    page = await browser.new_page()
    problems: list[str] = []
    page.on("pageerror", lambda exc: problems.append(f"uncaught: {exc}"))
    page.on(
        "console",
        lambda msg: (
            problems.append(f"console: {msg.text}")
            if msg.type == "error" and not any(said in msg.text for said in EXPECTED)
            else None
        ),
    )
    try:
        await page.goto(url)
        await page.wait_for_function("window.__results !== undefined", timeout=timeout_s * 1000)
        results: list[dict[str, Any]] = await page.evaluate("window.__results")
    finally:
        await page.close()
    if problems and not any(not r["ok"] for r in results):
        results.append({"name": "the page's console", "ok": False, "error": "\n".join(problems)})
    return results
