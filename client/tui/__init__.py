"""The full-screen terminal client (prompt_toolkit), in ptpython's shape: one state object
(`state`), one function per widget (`layout`), key bindings loaded per screen and merged (`keys`),
and an application with injectable input and output (`app`). The shell knows no particular game:
each game draws its own board inside it (`board`; Sushi Go!'s `card_board`, Sushi Roll's
`roll_board`, and a plain board for any other game)."""

from .app import build_application, network_loop, run_application, run_tui
from .board import Board
from .games import board_class
from .layout import screen_text
from .state import AppState, CreateForm

__all__ = [
    "AppState",
    "Board",
    "CreateForm",
    "board_class",
    "build_application",
    "network_loop",
    "run_application",
    "run_tui",
    "screen_text",
]
