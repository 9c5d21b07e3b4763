"""Run an OpenSpiel script or module as it is, with both games registered:

    python -m sushigo.bots.openspiel open_spiel.python.examples.example \\
        --game_string="python_sushi_go(players=3)"
    python -m sushigo.bots.openspiel path/to/script.py [its arguments...]

OpenSpiel's examples load a game by name, and a Python game is known only once its module is
imported: this imports `sushigo.bots.openspiel`, then runs the target with the arguments after it,
exactly as ``python -m TARGET`` (or ``python FILE``) would.
"""

from __future__ import annotations

import runpy
import sys

from . import SushiGoGame  # noqa: F401  (importing the package registers both games)

USAGE = "usage: python -m sushigo.bots.openspiel MODULE|FILE.py [ARGUMENTS...]"


def main(argv: list[str] | None = None) -> int:
    """Run the target; 2 with the usage when none is named."""
    args = sys.argv[1:] if argv is None else argv
    if not args:
        print(USAGE, file=sys.stderr)
        return 2
    if args[0] in ("-h", "--help"):
        print(__doc__)
        return 0
    target, rest = args[0], args[1:]
    sys.argv = [target, *rest]
    if target.endswith(".py"):
        runpy.run_path(target, run_name="__main__")
    else:
        runpy.run_module(target, run_name="__main__", alter_sys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
