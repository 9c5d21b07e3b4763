"""The cluster tests: real `sushigo-server --node` processes on the pgserver PostgreSQL
(tests/conftest.py), helpers in tests/cluster/nodes.py and tests/processes.py (and the
terminal's, tests/client/terminal.py, for the client command in tmux)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "client"))
