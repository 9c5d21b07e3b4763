"""The documents stay true to the program: every command line README.md and docs/ show parses
with the command's own argument parser, every path they name in backquotes exists, and every
reference from the code to a section of a document (the document's path, then the section's
title in double quotes) names a real heading."""

from __future__ import annotations

import argparse
import re
import runpy
import shlex
import sys
import tomllib
from collections.abc import Callable, Iterator
from importlib import import_module
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SCRIPTS = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["scripts"]

PLACEHOLDERS = {
    "host:port": "localhost:7777",
    "HOST:PORT": "127.0.0.1:8080",
    "yourhost:7777": "localhost:7777",
    "$name": "ann",
    "$s": "heuristic",
    "S": "1",
}
"""Words the documents write for a value, and a value of that kind for the parser."""


def _code_lines(text: str) -> Iterator[str]:
    """Each logical line of the document's code (indented or fenced), continuations joined."""
    fenced = False
    pending = ""
    for line in text.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not (fenced or line.startswith("    ")):
            pending = ""
            continue
        line = pending + line.strip()
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        pending = ""
        yield line


def _command(line: str) -> list[str] | None:
    """The command a code line runs (`sushigo-*` or `scripts/*.py`), as argv with placeholders
    filled in; None for a line that runs none (or shows a command's output)."""
    match = re.search(r"(sushigo-[a-z]+|scripts/[a-z_]+\.py)( .*)?$", line)
    if not match or re.search(r" (listening|web client|metrics) on ", line):
        return None
    rest = re.split(r" #|\s[&;>]|\s&$| done$", match[2] or "")[0]
    words = []
    for word in shlex.split(rest.replace("[", " ").replace("]", " ")):
        word = PLACEHOLDERS.get(word, word)
        if "|" in word and "://" not in word:
            word = word.split("|")[0]
        words.append(word)
    return [match[1], *words]


def documented_commands() -> list[tuple[str, list[str]]]:
    found = []
    for doc in DOCS:
        for line in _code_lines(doc.read_text(encoding="utf-8")):
            argv = _command(line)
            if argv:
                found.append((f"{doc.name}: {' '.join(argv)}", argv))
    return found


class _Parsed(Exception):
    """Raised in place of running a command once its arguments have parsed."""


def _entry(program: str) -> Callable[[list[str]], Any]:
    """Run `program` with argv (an installed command, or one of scripts/)."""
    if program.startswith("scripts/"):
        path = ROOT / program

        def run(argv: list[str]) -> Any:
            sys.argv = [str(path), *argv]
            sys.path.insert(0, str(path.parent))  # as `python scripts/X.py` has it
            return runpy.run_path(str(path), run_name="__main__")

        return run
    module, function = SCRIPTS[program].split(":")
    # A command whose entry point exits the process itself (`sushigo-server`'s `command`) is
    # run through the `main(argv)` it calls.
    main: Callable[[list[str]], Any] = getattr(import_module(module), "main", None) or getattr(
        import_module(module), function
    )
    return main


def _stop_after(name: str) -> Callable[..., Any]:
    """`ArgumentParser.name` that raises `_Parsed` once the arguments have parsed."""
    original = getattr(argparse.ArgumentParser, name)
    inside = []

    def parse(self: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> Any:
        if inside:  # one parse calling the other: only the outer one stops the command
            return original(self, *args, **kwargs)
        inside.append(name)
        try:
            original(self, *args, **kwargs)
        finally:
            inside.pop()
        raise _Parsed

    return parse


@pytest.mark.parametrize(("where", "argv"), documented_commands(), ids=lambda v: str(v)[:90])
def test_a_documented_command_line_parses(
    where: str, argv: list[str], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    for name in ("parse_args", "parse_intermixed_args"):
        monkeypatch.setattr(argparse.ArgumentParser, name, _stop_after(name))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    try:
        main = _entry(argv[0])
    except ImportError as missing:  # an optional extra this environment lacks
        pytest.skip(str(missing))
    with pytest.raises(_Parsed):
        try:
            main(argv[1:])
        except SystemExit as exit:
            pytest.fail(f"{where}: {capsys.readouterr().err.strip()} (exit {exit.code})")


def test_every_command_is_documented() -> None:
    shown = {argv[0] for _, argv in documented_commands()}
    assert set(SCRIPTS) <= shown, set(SCRIPTS) - shown


# -- paths ------------------------------------------------------------------------------------

PATH = re.compile(r"`((?:engine|protocol|bots|server|client|tests|scripts|docs)/[\w./-]*)`")


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_the_paths_a_document_names_exist(doc: Path) -> None:
    missing = [
        path
        for path in PATH.findall(doc.read_text(encoding="utf-8"))
        if not (ROOT / path.rstrip(".")).exists()
    ]
    assert not missing, f"{doc.name} names paths that do not exist: {missing}"


# -- references to sections --------------------------------------------------------------------

REFERENCE = re.compile(r"""(?:docs/)?([A-Z]+\.md)[,:]? \(?"([^"]+)\"""")
SOURCES = ("engine", "protocol", "bots", "server", "client", "tests", "scripts", "docs")


def _headings(doc: str) -> set[str]:
    text = (ROOT / ("README.md" if doc == "README.md" else f"docs/{doc}")).read_text()
    return {h.strip().strip("`") for h in re.findall(r"^#+ (.+)$", text, re.M)}


def references() -> Iterator[tuple[str, str, str]]:
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".js", ".md", ".sh") or "vendor" in path.parts:
                continue
            text = path.read_text(encoding="utf-8", errors="replace")
            for doc, section in REFERENCE.findall(re.sub(r"\s*\n\s*(?:#\s*|\*\s*)?", " ", text)):
                yield str(path.relative_to(ROOT)), doc, section


def test_every_section_the_code_names_exists() -> None:
    wrong = []
    for where, doc, section in references():
        if not (ROOT / "docs" / doc).exists() and doc != "README.md":
            wrong.append(f"{where}: {doc} does not exist")
        elif not any(h == section or h.startswith(section) for h in _headings(doc)):
            wrong.append(f'{where}: {doc} has no section "{section}"')
    assert not wrong, "\n".join(wrong)


NUMBERED = re.compile(r"PROTOCOL\.md,? \(?sections? ([0-9]+(?:\.[0-9]+[a-z]?)?)")


def test_every_protocol_section_the_code_numbers_exists() -> None:
    text = (ROOT / "docs" / "PROTOCOL.md").read_text(encoding="utf-8")
    numbers = set(re.findall(r"^##+ ([0-9]+(?:\.[0-9]+[a-z]?)?)[. ]", text, re.M))
    wrong = []
    for folder in SOURCES:
        for path in sorted((ROOT / folder).rglob("*")):
            if path.suffix not in (".py", ".js", ".md") or "vendor" in path.parts:
                continue
            flat = re.sub(r"\s*\n\s*(?:#\s*|\*\s*|//\s*)?", " ", path.read_text(errors="replace"))
            wrong += [
                f"{path.relative_to(ROOT)}: section {n}"
                for n in NUMBERED.findall(flat)
                if n not in numbers
            ]
    assert not wrong, "\n".join(wrong)


def test_the_references_are_found() -> None:
    """The reference pattern finds the ones it is meant to (so the test above tests something)."""
    found = {(doc, section) for _, doc, section in references()}
    assert ("ARCHITECTURE.md", "Adding a game") in found
    assert ("DEPLOY.md", "Limits") in found
