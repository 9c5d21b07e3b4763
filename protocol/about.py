"""What every command's ``--version`` prints: the installed package's version and the protocol
version this code speaks (a client and a server agree on the second, whatever the first)."""

from __future__ import annotations

import sys
from importlib import metadata

from .versions import CURRENT_VERSION

DISTRIBUTION = "sushigo"
"""The distribution whose version is printed."""

INTERRUPTED = 130
"""Every command's exit code when Ctrl-C stopped it (the shell's convention for SIGINT, 128 + 2),
after one line ``PROG: interrupted`` on stderr and never a traceback (README, "Exit codes")."""


def interrupted(prog: str) -> int:
    """Say on stderr that Ctrl-C stopped `prog`; the exit code for it (`INTERRUPTED`)."""
    print(f"{prog}: interrupted", file=sys.stderr)
    return INTERRUPTED


def package_version() -> str:
    """The installed ``sushigo`` distribution's version ("unknown" when run from a tree that
    was never installed)."""
    try:
        return metadata.version(DISTRIBUTION)
    except metadata.PackageNotFoundError:
        return "unknown"


def version_text(prog: str) -> str:
    """``PROG VERSION (protocol MAJOR.MINOR)``: one line for ``--version``."""
    return f"{prog} {package_version()} (protocol {CURRENT_VERSION})"
