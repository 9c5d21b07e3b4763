"""Without OpenSpiel installed, naming an OpenSpiel strategy says how to get it, in one line."""

from __future__ import annotations

import subprocess
import sys


def test_a_missing_openspiel_is_named_with_the_extra_to_install() -> None:
    code = (
        "import sys\n"
        "sys.modules['pyspiel'] = None  # as if open-spiel were not installed\n"
        "from sushigo.bots import StrategyError, get_strategy\n"
        "try:\n"
        "    get_strategy('sushigo.bots.openspiel:MctsStrategy', game='sushi-go')\n"
        "except StrategyError as exc:\n"
        "    print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True, timeout=60
    )
    assert "needs OpenSpiel: pip install 'sushigo[openspiel]'" in done.stdout
    assert len(done.stdout.strip().splitlines()) == 1
