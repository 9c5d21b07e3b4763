"""The web client's files as `sushigo-server --web` answers for them (server.net.web_files, sans-IO):
the page as installed, its types, gzip and revalidation, and no request that reaches a file
outside the page, whatever its path holds."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
import re
from pathlib import Path

import pytest

from sushigo.server.net.web_files import PageFiles, page_folder

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def files() -> PageFiles:
    return PageFiles()


def test_the_installed_page_is_the_source_trees(files: PageFiles) -> None:
    folder = page_folder()
    assert (folder / "index.html").read_bytes() == (ROOT / "client/web/index.html").read_bytes()
    on_disk = {
        "/" + p.relative_to(ROOT / "client/web").as_posix()
        for p in (ROOT / "client/web").rglob("*")
        if p.is_file() and not any(part.startswith(".") for part in p.parts)
    }
    served = set(files.files) - {"/"}
    assert served <= on_disk
    assert {p for p in on_disk if p.endswith((".js", ".mjs", ".html", ".css"))} <= served


def test_each_kind_of_file_has_its_type_and_gzip_when_it_pays(files: PageFiles) -> None:
    answer = files.answer(b"GET", b"/ui/main.js", [(b"accept-encoding", b"gzip")])
    headers = dict(answer.headers)
    assert answer.status == 200
    assert headers[b"content-type"] == b"text/javascript; charset=utf-8"
    assert headers[b"content-encoding"] == b"gzip"
    assert gzip.decompress(answer.body) == (ROOT / "client/web/ui/main.js").read_bytes()
    plain = files.answer(b"GET", b"/ui/main.js", [(b"accept-encoding", b"gzip;q=0")])
    assert b"content-encoding" not in dict(plain.headers)
    assert dict(files.answer(b"GET", b"/ui/style.css", []).headers)[b"content-type"] == (
        b"text/css; charset=utf-8"
    )
    head = files.answer(b"HEAD", b"/", [])
    assert head.body == b"" and int(dict(head.headers)[b"content-length"]) > 0


def test_an_unchanged_file_is_a_304(files: PageFiles) -> None:
    etag = dict(files.answer(b"GET", b"/index.html", []).headers)[b"etag"]
    again = files.answer(b"GET", b"/index.html?x=1", [(b"If-None-Match", b"W/" + etag)])
    assert (again.status, again.body) == (304, b"")
    assert files.answer(b"GET", b"/index.html", [(b"if-none-match", b'"other"')]).status == 200


@pytest.mark.parametrize(
    "target",
    [
        b"/../pyproject.toml",
        b"/ui/../../pyproject.toml",
        b"/%2e%2e/pyproject.toml",
        b"/ui%2f..%2f..%2fpyproject.toml",
        b"/ui/..\\..\\pyproject.toml",
        b"/%00",
        b"/%ff",
        b"relative",
        b"*",
        b"http://elsewhere/",
        b"/" + b"a" * 5000,
    ],
)
def test_nothing_outside_the_page_is_served(files: PageFiles, target: bytes) -> None:
    assert files.answer(b"GET", target, []).status == 404


def test_dot_segments_within_the_page_find_its_files(files: PageFiles) -> None:
    assert files.answer(b"GET", b"/ui/../index.html", []).status == 200
    assert files.answer(b"GET", b"/./ui/./main.js", []).status == 200


def test_other_methods_are_refused(files: PageFiles) -> None:
    answer = files.answer(b"POST", b"/", [])
    assert answer.status == 405 and dict(answer.headers)[b"allow"] == b"GET, HEAD"


def test_the_pages_inline_import_map_is_allowed_by_its_hash(files: PageFiles) -> None:
    page = (ROOT / "client/web/index.html").read_bytes()
    (importmap,) = re.findall(rb"<script type=\"importmap\">(.*?)</script>", page, re.S)
    digest = base64.b64encode(hashlib.sha256(importmap).digest())
    policy = dict(files.answer(b"GET", b"/", []).headers)[b"content-security-policy"]
    assert b"'sha256-" + digest + b"'" in policy
    assert b"connect-src 'self' ws: wss:" in policy


def test_the_pages_import_map_is_the_cores() -> None:
    """index.html carries client/web/core/importmap.json inline (a browser takes no other)."""
    page = (ROOT / "client/web/index.html").read_text(encoding="utf-8")
    (inline,) = re.findall(r"<script type=\"importmap\">(.*?)</script>", page, re.S)
    core = (ROOT / "client/web/core/importmap.json").read_text(encoding="utf-8")
    assert json.loads(inline) == json.loads(core)
