"""Every command's help says what the command does: the strategies it takes (every built-in one
and every level), the players each game allows (with the same words as its errors), and the
tournament command's options, each explained."""

from __future__ import annotations

import argparse

import pytest

from sushigo.bots import LEVELS, builtin_names
from sushigo.client import arena, bot, tournament
from sushigo.client import cli as client_cli
from sushigo.client.args import STRATEGIES_HELP
from sushigo.engine.games import BUILTIN_KINDS


def _help(parser: argparse.ArgumentParser) -> str:
    return " ".join(parser.format_help().split())


def test_the_strategies_help_names_every_built_in_strategy_and_level() -> None:
    for kind in BUILTIN_KINDS:
        for name in (*builtin_names(kind), *LEVELS):
            assert name in STRATEGIES_HELP, name
    for parser in (bot.parser(), arena._parser()):
        assert " ".join(STRATEGIES_HELP.split()) in _help(parser)


@pytest.mark.parametrize(
    ("run", "args"),
    [
        (client_cli.main, ["localhost:7777", "--bots", "1", "--players"]),
        (bot.main, ["localhost:7777", "--players"]),
        (arena.main, ["--strategies", "random", "--games", "1", "--players"]),
        (tournament.main, ["localhost:7777", "create", "cup", "--players"]),
    ],
)
@pytest.mark.parametrize("players", ["1", "7", "9"])
def test_players_out_of_range_are_refused_as_the_help_says(
    run: object, args: list[str], players: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The help says 2-5; so does the refusal of 1, 7 or 9 (not '1-8' and then '2 to 5')."""
    try:
        code = run([*args, players])  # type: ignore[operator]
    except SystemExit as exc:
        code = exc.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.endswith(f"--players {players}: Sushi Go! is played by 2 to 5 players"), err


@pytest.mark.parametrize(
    "parser", [client_cli.parser(), bot.parser(), arena._parser()], ids=["client", "bot", "arena"]
)
def test_the_players_help_says_2_to_5(parser: argparse.ArgumentParser) -> None:
    assert "--players PLAYERS seats" in _help(parser) or "--players PLAYERS table" in _help(parser)
    assert "2-5 for Sushi Go! and Sushi Roll" in _help(parser)


def test_tournament_create_help_explains_every_option_without_a_server_first(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as done:
        tournament.main(["create", "--help"])
    assert done.value.code == 0
    shown = capsys.readouterr().out
    assert shown.startswith("usage: sushigo-tournament HOST:PORT create")
    commands = next(
        a for a in tournament.parser()._actions if isinstance(a, argparse._SubParsersAction)
    )
    for action in commands.choices["create"]._actions:
        assert action.help, f"{action.option_strings or action.dest} has no help"
