"""Command-line pieces the client's commands share (`sushigo-client`, `sushigo-bot`,
`sushigo-arena`, `sushigo-tournament`): argparse types that say what is wrong in one line."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator

from sushigo.engine.games import BUILTIN_KINDS, is_kind, kinds, rules

from .address import AddressError, parse_address


def address(text: str) -> tuple[str, int]:
    """``host:port`` as an argparse type (`client.address.parse_address`)."""
    try:
        return parse_address(text)
    except AddressError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def count(low: int, high: int | None = None) -> Callable[[str], int]:
    """An argparse type: a whole number from `low` to `high` (no upper bound: None)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if high is None and value < low:
            raise argparse.ArgumentTypeError(f"must be at least {low}, got {value}")
        if high is not None and not low <= value <= high:
            raise argparse.ArgumentTypeError(f"must be {low}-{high}, got {value}")
        return value

    return parse


STRATEGIES_HELP = (
    "random, greedy, heuristic, ismcts, learned (needs the extra 'rl'), a level (easy, medium,"
    " hard, expert), path/to/file.py:Class or module:Class, each optionally with @key=value"
    " options (e.g. ismcts@ms=100)"
)
"""The strategies `--strategy` and `--strategies` take, for their help (kept in step with
`bots.builtin_names` and `bots.LEVELS` by tests/client/test_help.py)."""

PLAYERS_HELP = "2-5 for Sushi Go! and Sushi Roll"
"""What `--players` takes, for the help of every command that has it (`check_players` says it for
the game chosen)."""


def check_players(kind: str, players: int) -> str | None:
    """None when the game `kind` is played by `players`; else why not, for an error after the
    option: "--players 9: Sushi Go! is played by 2 to 5 players"."""
    game = rules(kind)
    if players in game.players:
        return None
    low, high = game.players[0], game.players[-1]
    return f"{game.title} is played by {low} to {high} players"


class _Kinds:
    """`--game`'s choices: every installed game (`engine.kinds`), the installed plug-ins read only
    when a kind that is not built in is named, or the list is shown (help, a bad choice). Reading
    them scans every installed distribution's metadata: a tenth of the arena's start-up, for the
    plug-ins almost no run names."""

    def __contains__(self, kind: object) -> bool:
        return isinstance(kind, str) and is_kind(kind)

    def __iter__(self) -> Iterator[str]:
        return iter(kinds())


def add_game(parser: argparse.ArgumentParser | argparse._ArgumentGroup, help: str) -> None:
    """The ``--game KIND`` option: one of the installed games (`engine.kinds`), the first built-in
    one by default."""
    # argparse lists the choices as it adds the option (to check a metavar), so they are set after.
    action = parser.add_argument("--game", default=BUILTIN_KINDS[0], help=help)
    action.choices = _Kinds()


class _Version(argparse.Action):
    """``--version``: prints `protocol.about.version_text` and exits, importing the protocol only
    then (a command that plays offline, such as the arena, never needs it otherwise)."""

    def __init__(self, option_strings: list[str], dest: str, **kwargs: object) -> None:
        super().__init__(option_strings, dest, nargs=0, help="show the version and exit")

    def __call__(self, parser: argparse.ArgumentParser, *args: object) -> None:
        from sushigo.protocol.about import version_text  # noqa: PLC0415

        print(version_text(parser.prog))  # on stdout, as argparse's own version action prints
        parser.exit()


def add_version(parser: argparse.ArgumentParser) -> None:
    """The ``--version`` option, as every command has it (`protocol.about.version_text`)."""
    parser.add_argument("--version", action=_Version)
