"""Installing the test games as a distribution installs a plug-in: a dist-info with its entry
points on the path, and nothing else (the tests of the plain board and of the third game)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sushigo.engine import games

GAMES = Path(__file__).resolve().parent
"""This folder: the games' packages (`rps`)."""

RPS_PARTS = {
    "sushigo.engine": "rps.engine",
    "sushigo.protocol": "rps.protocol",
    "sushigo.bots": "rps.bots",
    "sushigo.tui": "rps.tui",
}
"""Rock-paper-scissors' part in each layer, by the layer's entry point group."""


def rps_entry_points(**parts: str | None) -> str:
    """The entry points of rock-paper-scissors' parts, `RPS_PARTS` with `parts` changed (by the
    group's last word: ``tui="my_board"``; None leaves the part out)."""
    chosen = dict(RPS_PARTS)
    for layer, module in parts.items():
        chosen["sushigo." + layer] = module  # type: ignore[assignment]
    return "".join(f"[{group}]\nrps = {module}\n\n" for group, module in chosen.items() if module)


def install_rps(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry_points: str | None = None
) -> dict[str, str]:
    """Install rock-paper-scissors with `entry_points` (all its parts by default) for this test
    (the registries read the plug-ins again), and return the environment that installs it for a
    process started by the test too. The caller calls `games.refresh()` once done."""
    site = tmp_path / "site"
    info = site / "rps_game-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: rps-game\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(entry_points or rps_entry_points())
    monkeypatch.syspath_prepend(str(GAMES))
    monkeypatch.syspath_prepend(str(site))
    games.refresh()
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(GAMES)])}
