"""The one import name: every package folder is installed as `sushigo.<folder>`, and no module
imports a bare top-level name (``import engine`` would load a second copy of the package)."""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from sushigo.protocol import CURRENT_VERSION

ROOT = Path(__file__).resolve().parent.parent
TOP = ("engine", "protocol", "bots", "server", "client")


def _pyproject() -> dict[str, object]:
    with (ROOT / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)


def test_every_package_folder_is_listed_for_the_wheel() -> None:
    setuptools = _pyproject()["tool"]["setuptools"]  # type: ignore[index]
    listed = set(setuptools["packages"])
    found = {
        "sushigo." + ".".join(init.parent.relative_to(ROOT).parts)
        for top in TOP
        for init in (ROOT / top).rglob("__init__.py")
    }
    assert found == listed, "pyproject.toml's [tool.setuptools] packages must list every package"
    assert setuptools["package-dir"] == {f"sushigo.{top}": top for top in TOP}


def test_no_module_imports_a_bare_top_level_name() -> None:
    offenders = []
    for path in sorted(ROOT.glob("*/**/*.py")):
        if ".venv" in path.parts:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            offenders += [
                f"{path.relative_to(ROOT)}:{node.lineno} {name}"
                for name in names
                if name.split(".")[0] in TOP
            ]
    assert offenders == []


def test_console_scripts_point_into_sushigo() -> None:
    scripts = _pyproject()["project"]["scripts"]  # type: ignore[index]
    assert scripts and all(target.startswith("sushigo.") for target in scripts.values())


def test_every_command_prints_its_version() -> None:
    """Each installed command (and `sushigo-server migrate`) answers ``--version`` with the
    package's version and the protocol's, exit code 0."""
    scripts = sorted(_pyproject()["project"]["scripts"])  # type: ignore[index]
    bin_dir = Path(sys.executable).parent
    runs = [[name, "--version"] for name in scripts] + [["sushigo-server", "migrate", "--version"]]
    children = [
        subprocess.Popen(
            [str(bin_dir / run[0]), *run[1:]],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for run in runs
    ]
    version = metadata.version("sushigo")
    for run, child in zip(runs, children, strict=True):
        out, err = child.communicate(timeout=60)
        assert (child.returncode, err) == (0, ""), run
        assert out == f"{run[0]} {version} (protocol {CURRENT_VERSION})\n", run
    assert {"sushigo-server", "sushigo-client", "sushigo-bot", "sushigo-arena"} <= set(scripts)
    assert {"sushigo-replay", "sushigo-tournament"} <= set(scripts)
