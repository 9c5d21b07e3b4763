"""The web client's files, served by `sushigo-server --web` (`server.net.web`), sans-IO.

The page is a folder of static files (client/web/: index.html, ES modules, CSS, the vendored
libraries and their licences), installed with the package as data of `sushigo.client`. The
folder is read once, at start: each file is kept in memory with its content type, its gzip form
(made then, at the highest level, when that is smaller) and a strong ETag. A request is answered
from that table alone, so no path a client sends ever reaches the file system: a name that is
not one of the page's files is 404, whatever dots or escapes it holds.

Caching: every answer carries its ETag and ``Cache-Control: no-cache``, so a browser keeps the
files and asks each time whether they changed (a 304 with no body when not). The modules' names
carry no version, and a page built from an old module and a new one would break: revalidation
costs one small round trip per file and never serves a stale mix.
"""

from __future__ import annotations

import base64
import gzip
import hashlib
import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass
from email.utils import formatdate
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from urllib.parse import unquote

__all__ = ["CONTENT_TYPES", "Answer", "PageFiles", "page_folder"]

CONTENT_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".webmanifest": "application/manifest+json",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".ico": "image/x-icon",
    ".txt": "text/plain; charset=utf-8",
    ".md": "text/plain; charset=utf-8",
}
"""The files served, by suffix; a file of any other kind in the folder is not served."""
COMPRESSIBLE = (".html", ".js", ".mjs", ".css", ".json", ".webmanifest", ".svg", ".txt", ".md")
"""The kinds worth compressing (images are compressed already)."""
HEADERS = (
    (b"x-content-type-options", b"nosniff"),
    (b"referrer-policy", b"no-referrer"),
)
"""Headers on every answer."""
POLICY = (
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data: blob:;"
    " object-src 'none'; base-uri 'none'; frame-ancestors 'none'; script-src 'self'"
)
"""The Content-Security-Policy: the page loads only its own files, and talks only to game
servers over WebSocket (a cluster's other nodes are other origins: `ws:` and `wss:` let it
follow a redirect). A page's inline scripts (its import map) are allowed by their hashes."""
_INLINE = re.compile(rb"<script\b[^>]*>(.*?)</script>", re.S)


@dataclass(frozen=True, slots=True)
class File:
    """One file of the page, ready to send."""

    content_type: bytes
    body: bytes
    gzipped: bytes | None
    """Its gzip form (None: not smaller, or not worth it)."""
    etag: bytes
    policy: bytes
    """Its Content-Security-Policy."""


@dataclass(frozen=True, slots=True)
class Answer:
    """What to send for a request: a status, headers and a body (empty for HEAD and 304)."""

    status: int
    headers: list[tuple[bytes, bytes]]
    body: bytes


def page_folder() -> Traversable:
    """The web client's folder as installed (client/web/ in a source tree)."""
    return resources.files("sushigo.client") / "web"


class PageFiles:
    """The page's files in memory, and the answer to each request for one."""

    def __init__(self, folder: Traversable | Path | None = None) -> None:
        self.files: dict[str, File] = {}
        """By URL path (``/``, ``/core/protocol.js``)."""
        self.last_modified = formatdate(usegmt=True).encode()
        root = page_folder() if folder is None else folder
        for path, data in _walk(root, ""):
            suffix = posixpath.splitext(path)[1].lower()
            kind = CONTENT_TYPES.get(suffix)
            if kind is None:
                continue
            packed = None
            if suffix in COMPRESSIBLE and len(data) > 256:
                packed = gzip.compress(data, compresslevel=9, mtime=0)
                if len(packed) >= len(data):
                    packed = None
            etag = b'"' + hashlib.sha256(data).hexdigest()[:32].encode() + b'"'
            self.files[path] = File(kind.encode(), data, packed, etag, _policy(data, suffix))
        if "/index.html" in self.files:
            self.files["/"] = self.files["/index.html"]

    @property
    def size(self) -> tuple[int, int]:
        """The page's bytes: (as stored, as sent to a browser that takes gzip)."""
        plain = sum(f.body.__len__() for p, f in self.files.items() if p != "/")
        packed = sum(
            len(f.gzipped if f.gzipped is not None else f.body)
            for p, f in self.files.items()
            if p != "/"
        )
        return plain, packed

    def answer(
        self, method: bytes, target: bytes, headers: Iterable[tuple[bytes, bytes]]
    ) -> Answer:
        """The answer to a GET or HEAD of `target` (any other method: 405)."""
        if method not in (b"GET", b"HEAD"):
            return _text(405, "only GET and HEAD here", [(b"allow", b"GET, HEAD")])
        path = _path(target)
        found = None if path is None else self.files.get(path)
        if found is None:
            return _text(404, "not found")
        wanted: dict[bytes, bytes] = {}
        for name, value in headers:
            wanted[name.lower()] = value
        common = [
            *HEADERS,
            (b"content-security-policy", found.policy),
            (b"etag", found.etag),
            (b"cache-control", b"no-cache"),
            (b"vary", b"accept-encoding"),
            (b"last-modified", self.last_modified),
        ]
        if found.etag in _etags(wanted.get(b"if-none-match", b"")):
            return Answer(304, common, b"")
        body = found.body
        if found.gzipped is not None and _takes_gzip(wanted.get(b"accept-encoding", b"")):
            body = found.gzipped
            common.append((b"content-encoding", b"gzip"))
        common += [(b"content-type", found.content_type), (b"content-length", b"%d" % len(body))]
        return Answer(200, common, b"" if method == b"HEAD" else body)


def not_found(message: str) -> Answer:
    """A 404 saying `message`."""
    return _text(404, message)


def refusal(status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> Answer:
    """An error answer: `status` with `message` as its plain-text body."""
    return _text(status, message, extra)


def _text(status: int, message: str, extra: list[tuple[bytes, bytes]] | None = None) -> Answer:
    body = (message + "\n").encode()
    headers = [
        *HEADERS,
        (b"content-security-policy", POLICY.encode()),
        (b"content-type", b"text/plain; charset=utf-8"),
        (b"content-length", b"%d" % len(body)),
        (b"cache-control", b"no-store"),
        *(extra or []),
    ]
    return Answer(status, headers, body)


def _policy(data: bytes, suffix: str) -> bytes:
    """A file's Content-Security-Policy: `POLICY`, with the hashes of an HTML page's inline
    scripts (those with a body: its import map)."""
    policy = POLICY
    if suffix == ".html":
        for body in _INLINE.findall(data):
            if body.strip():
                digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
                policy += f" 'sha256-{digest}'"
    return policy.encode()


def _walk(folder: Traversable | Path, prefix: str) -> Iterable[tuple[str, bytes]]:
    """(URL path, bytes) of every file under `folder`, hidden ones (``.name``) left out."""
    if not folder.is_dir():
        return
    for entry in sorted(folder.iterdir(), key=lambda e: e.name):
        if entry.name.startswith("."):
            continue
        path = f"{prefix}/{entry.name}"
        if entry.is_dir():
            yield from _walk(entry, path)
        elif entry.is_file():
            yield path, entry.read_bytes()


def _path(target: bytes) -> str | None:
    """The URL path of a request target, decoded and normalised (None: not a path at all)."""
    raw = target.split(b"?", 1)[0].split(b"#", 1)[0]
    if not raw.startswith(b"/"):
        return None
    try:
        text = unquote(raw.decode("ascii"), errors="strict")
    except (UnicodeDecodeError, ValueError):
        return None
    if "\\" in text or "\x00" in text:
        return None
    # Only a name in the table is ever served, so this only makes `/./a` and `/b/../a` find `/a`.
    return posixpath.normpath(text).replace("//", "/") if text != "/" else "/"


def _etags(value: bytes) -> set[bytes]:
    return {tag.strip().removeprefix(b"W/") for tag in value.split(b",") if tag.strip()}


def _takes_gzip(value: bytes) -> bool:
    """Whether an Accept-Encoding value accepts gzip (and not with q=0)."""
    for item in value.lower().split(b","):
        name, _, params = item.strip().partition(b";")
        if name.strip() in (b"gzip", b"*"):
            q = params.strip()
            return not (q.startswith(b"q=") and q[2:].strip() in (b"0", b"0.0", b"0.00", b"0.000"))
    return False
