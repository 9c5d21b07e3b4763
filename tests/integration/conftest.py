"""The integration tests share the server tests' helpers (tests/server/server_helpers.py) and the
server process of tests/processes.py."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
