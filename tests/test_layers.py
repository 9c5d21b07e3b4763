"""The import graph: no circle anywhere among the project's modules (imports inside functions and
under TYPE_CHECKING included), the packages in their order, the server in its layers, and the
server's sans-IO core reading no clock (docs/ARCHITECTURE.md, "Packages" and "The server")."""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("engine", "protocol", "bots", "server", "client")

SERVER_LAYERS: tuple[tuple[str, ...], ...] = (
    ("cli", "options", "runtime", "replay"),  # the commands, at the server's top
    ("net",),  # the asyncio adapter
    ("cluster",),  # a node's state shared in PostgreSQL
    ("hub",),  # the sans-IO core the adapter feeds
    ("operations",),  # the admins' requests
    ("routing",),  # a cluster's sans-IO routing
    ("lobby",),
    ("tournaments",),
    ("sessions",),
    ("tables",),  # the table driver and its games
    ("storage",),  # the storage contract and its two backends
    ("errors", "config", "stats", "keys", "lookalike"),  # the vocabulary every part uses
)
"""The server's parts, top to bottom: each a sub-package or a module at the server's top. A part
imports only from its own layer or below (within a sub-package, its modules import each other)."""

PACKAGE_ORDER = {"engine": 0, "protocol": 1, "bots": 1, "server": 2, "client": 2}
"""engine <- protocol, bots <- server, client (DESIGN.md): same-rank packages never meet."""

CLOCKLESS = ("hub", "operations", "routing", "lobby", "tournaments", "sessions", "tables")
CLOCKLESS += ("errors", "config", "stats", "lookalike")
"""The server's sans-IO core, its parts and modules: it is handed the clock, it never reads one."""

ADAPTER = ("cli", "options", "runtime", "replay", "net")
"""The commands and the asyncio adapter: the only parts that may turn counts into metrics."""


@pytest.fixture(scope="module")
def graph() -> grimp.ImportGraph:
    return grimp.build_graph(*(f"sushigo.{p}" for p in PACKAGES), cache_dir=None)


def _cycles(graph: grimp.ImportGraph) -> list[list[str]]:
    """Every strongly connected set of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(start: str) -> None:
        # Iterative, so a long chain of imports cannot overflow the interpreter's stack.
        work = [(start, iter(sorted(graph.find_modules_directly_imported_by(start))))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph.find_modules_directly_imported_by(nxt)))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    members = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        members.append(member)
                        if member == node:
                            break
                    if len(members) > 1:
                        found.append(sorted(members))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    return found


def test_no_import_circle_anywhere(graph: grimp.ImportGraph) -> None:
    cycles = _cycles(graph)
    details = [
        " -> ".join(graph.find_shortest_chain(c[0], c[1]) or c) + f" (and back, in {c})"
        for c in cycles
    ]
    assert cycles == [], "\n".join(details)


def test_the_cycle_finder_finds_a_circle() -> None:
    """The test above can fail: a graph with a circle in it is reported."""
    g = grimp.ImportGraph()
    for name in ("a", "a.b", "a.c", "a.d"):
        g.add_module(name)
    g.add_import(importer="a.b", imported="a.c")
    g.add_import(importer="a.c", imported="a.d")
    g.add_import(importer="a.d", imported="a.b")
    assert _cycles(g) == [["a.b", "a.c", "a.d"]]


def _package(module: str) -> str:
    return module.split(".")[1]


def test_packages_import_in_one_direction(graph: grimp.ImportGraph) -> None:
    wrong = [
        f"{importer} imports {imported}"
        for importer in sorted(graph.modules)
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if _package(importer) != _package(imported)
        and PACKAGE_ORDER[_package(imported)] >= PACKAGE_ORDER[_package(importer)]
    ]
    assert wrong == []


def test_the_server_imports_down_its_layers_only(graph: grimp.ImportGraph) -> None:
    layer = {name: depth for depth, names in enumerate(SERVER_LAYERS) for name in names}
    parts = {m.split(".")[2] for m in graph.modules if m.startswith("sushigo.server.")}
    assert parts == set(layer), "every part of the server has its layer in SERVER_LAYERS"
    wrong = [
        f"{importer} imports {imported}"
        for importer in sorted(graph.modules)
        if importer.startswith("sushigo.server.")
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if imported.startswith("sushigo.server.")
        and layer[imported.split(".")[2]] < layer[importer.split(".")[2]]
    ]
    assert wrong == []


def _sources(part: str) -> list[Path]:
    """The modules of a part of the server: a sub-package's, every one, or a top-level module."""
    folder = ROOT / "server" / part
    return sorted(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]


def _imported(path: Path) -> set[str]:
    """The absolute module names a module imports, anywhere in it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        alias.name
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and not node.level
    }


@pytest.mark.parametrize("name", CLOCKLESS)
def test_the_servers_core_reads_no_clock(name: str) -> None:
    offenders = [
        f"{path.relative_to(ROOT)}: {module}"
        for path in _sources(name)
        for module in _imported(path)
        if module.split(".")[0] in {"time", "datetime", "asyncio", "socket"}
    ]
    assert _sources(name) and all(path.exists() for path in _sources(name))
    assert offenders == []


def test_the_servers_core_never_imports_the_metrics_library() -> None:
    """The core counts in plain attributes (`server.stats`); only the commands and the adapter
    turn them into Prometheus metrics (`server.net.metrics`)."""
    offenders = [
        f"{path.relative_to(ROOT)}: {module}"
        for names in SERVER_LAYERS
        for name in names
        if name not in ADAPTER
        for path in _sources(name)
        for module in _imported(path)
        if module.split(".")[0] == "prometheus_client"
    ]
    assert offenders == []
