"""The docs agree with the program: the protocol version the commands print, the bots' names as
the screens show them, the systemd units DEPLOY.md starts, and the commands scripts/check_package
runs (every one the package installs)."""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

from sushigo.bots import LEVELS
from sushigo.protocol import CURRENT_VERSION

ROOT = Path(__file__).resolve().parent.parent


def _read(name: str) -> str:
    return (ROOT / name).read_text(encoding="utf-8")


def test_readme_names_the_protocol_version_the_commands_print() -> None:
    said = re.findall(r"\(protocol (\d+\.\d+)\)", _read("README.md"))
    assert said and set(said) == {str(CURRENT_VERSION)}, said


def _sample_screens() -> str:
    """The screens the docs show (docs/screenshot.txt, which docs/PLAYING.md links to)."""
    return _read("docs/screenshot.txt")


def test_the_sample_screens_name_bots_as_the_client_does() -> None:
    """A server bot of level L at seat n shows as "L-botn" (`client.tui.board.player_label`),
    in the players' lines and the log alike: never the server's own "L-bot-n"."""
    screens = _sample_screens()
    assert not re.findall(r"\b[a-z]+-bot-\d", screens)
    shown = set(re.findall(r"\b([a-z]+)-bot\d", screens))
    assert shown and shown <= set(LEVELS), shown


def test_deploy_restarts_only_units_it_defines() -> None:
    deploy = _read("docs/DEPLOY.md")
    defined = set(re.findall(r"/etc/systemd/system/([\w@.-]+)\.service", deploy))
    started = set(re.findall(r"systemctl (?:restart|enable --now) ([\w@.-]+)", deploy))
    assert started, "DEPLOY.md starts a unit somewhere"
    for unit in started:
        template = re.sub(r"@.+$", "@", unit)
        assert unit in defined or template in defined, f"{unit} is started but never defined"


def test_check_package_runs_every_command_the_package_installs() -> None:
    with (ROOT / "pyproject.toml").open("rb") as f:
        scripts = set(tomllib.load(f)["project"]["scripts"])
    line = next(
        line for line in _read("scripts/check_package").splitlines() if line.startswith("commands=")
    )
    found = subprocess.run(
        ["bash", "-c", f'root={ROOT}; {line}; echo "$commands"'],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    assert set(found) == scripts
