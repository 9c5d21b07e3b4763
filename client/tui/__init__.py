"""The full-screen terminal client (prompt_toolkit), in ptpython's shape: one state object
(`state`), one function per widget (`layout`), key bindings loaded per screen and merged (`keys`),
and an application with injectable input and output (`app`)."""

from .app import build_application, network_loop, run_application, run_tui
from .layout import screen_text
from .state import AppState, CreateForm

__all__ = [
    "AppState",
    "CreateForm",
    "build_application",
    "network_loop",
    "run_application",
    "run_tui",
    "screen_text",
]
