"""How `sushigo-client` and `sushigo-admin` end a run: its exit code, and what stopped it said in
one line on stderr, never a traceback."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

from sushigo.protocol.about import interrupted

from .identity import KeyFileError
from .known_hosts import KnownHostsError

__all__ = ["exit_code"]


def exit_code(prog: str, run: Callable[[], int]) -> int:
    """`run()`'s exit code, or what stopped it in one line: a key or known-hosts file it cannot
    use (1), Ctrl-C (`INTERRUPTED`), anything else an internal error (1; with SUSHIGO_DEBUG=1 it
    is raised, traceback and all)."""
    try:
        return run()
    except (KeyFileError, KnownHostsError) as exc:
        print(f"{prog}: error: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return interrupted(prog)
    except Exception as exc:  # never a traceback; SUSHIGO_DEBUG=1 shows it
        if os.environ.get("SUSHIGO_DEBUG"):
            raise
        print(f"{prog}: internal error: {exc!r}", file=sys.stderr)
        return 1
