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
    # the transport adapter and the commands
    (
        "app",
        "app_connection",
        "cli",
        "options",
        "runtime",
        "cluster",
        "replay",
        "migrate",
        "tls",
        "keys",
        "metrics",
        "logs",
        "web",  # --web: the page's files and the WebSocket adapter
        "web_files",
        "web_frames",
    ),
    (
        "cluster_adopt",
        "cluster_lobby",
        "cluster_tournaments",
        "cluster_tournament_adopt",
    ),  # the parts of a cluster's node
    ("cluster_base",),
    ("hub",),  # connections, limits and routing: the core the adapter feeds
    ("requests", "lifecycle", "deadlines", "deferred", "hub_edges"),  # the core's parts
    ("admin",),  # the admins' requests, over the lobby's
    # a cluster's table list, new tables and tournaments, over its routing
    ("tournament_cluster",),  # a cluster's tournaments: listed, reached, taken over
    ("tournament_spread",),  # a tournament's games on other nodes
    ("listing", "placement"),
    ("redirect",),  # a cluster's routing, over the lobby's login
    (
        *("lobby", "login", "desk", "tournament", "tournament_store", "resume", "limits"),
        *("names", "history", "results"),
    ),
    ("moderation",),  # bans and mutes, in memory
    ("session",),  # sessions (and their connections)
    ("table", "steps", "seating", "phases", "persist"),  # the table driver
    ("games",),  # game adapters: rules, wire and bots by kind
    ("database",),  # --db: which storage backend
    ("sqlite_storage", "pg_storage"),  # the two backends of the storage contract
    (  # their parts
        *("sqlite_tables", "sqlite_records", "sqlite_schema", "sqlite_moderation"),
        "sqlite_tournaments",
        *(
            "pg_records",
            "pg_schema",
            "pg_moderation",
            "pg_plan",
            "pg_batches",
            "pg_fence",
            "pg_tokens",
            "pg_tournaments",
        ),
    ),
    # what every layer above uses
    ("errors", "config", "storage", "stats", "tickets", "wallclock", "web_routes"),
)
"""The server's layers, top to bottom: a module imports only from its own layer or below."""

PACKAGE_ORDER = {"engine": 0, "protocol": 1, "bots": 1, "server": 2, "client": 2}
"""engine <- protocol, bots <- server, client (DESIGN.md): same-rank packages never meet."""

CLOCKLESS = ("hub", "session", "resume", "lobby", "desk", "tournament", "table", "steps")
CLOCKLESS += ("seating", "phases", "persist", "games", "errors", "config", "limits", "names")
CLOCKLESS += (
    "history",
    "stats",
    "results",
    "admin",
    "moderation",
    "redirect",
    "tickets",
    "listing",
    "login",
    "placement",
    "requests",
    "lifecycle",
    "deadlines",
    "deferred",
    "tournament_cluster",
    "tournament_spread",
    "tournament_store",
    "hub_edges",
    "web_routes",
    "web_frames",
)
"""The server's sans-IO core: it is handed the clock, it never reads one."""


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
    modules = {m.split(".")[2] for m in graph.modules if m.startswith("sushigo.server.")}
    assert modules == set(layer), "every server module has its layer in SERVER_LAYERS"
    wrong = [
        f"{importer} imports {imported}"
        for importer in sorted(graph.modules)
        if importer.startswith("sushigo.server.")
        for imported in sorted(graph.find_modules_directly_imported_by(importer))
        if imported.startswith("sushigo.server.")
        and layer[imported.split(".")[2]] < layer[importer.split(".")[2]]
    ]
    assert wrong == []


@pytest.mark.parametrize("name", CLOCKLESS)
def test_the_servers_core_reads_no_clock(name: str) -> None:
    tree = ast.parse((ROOT / "server" / f"{name}.py").read_text(encoding="utf-8"))
    imported = {
        alias.name.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.Import)
        for alias in node.names
    } | {
        node.module.split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module and not node.level
    }
    assert not imported & {"time", "datetime", "asyncio", "socket"}


def test_the_servers_core_never_imports_the_metrics_library() -> None:
    """The core counts in plain attributes (`server.stats`); only the adapter's layer turns them
    into Prometheus metrics (`server.metrics`)."""
    adapter = set(SERVER_LAYERS[0])
    offenders = []
    for path in sorted((ROOT / "server").glob("*.py")):
        if path.stem in adapter:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module]
            offenders += [
                f"{path.name}: {n}" for n in names if n.split(".")[0] == "prometheus_client"
            ]
    assert offenders == []
