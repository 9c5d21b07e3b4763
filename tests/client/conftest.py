"""The client tests that restart a real server process use tests/processes.py; the replay
viewer's tests use the records the protocol tests play (tests/protocol/sample_helpers.py)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "protocol"))
