"""Load test: a real server process, many concurrent 4-player games, figures at the end.

    .venv/bin/python scripts/loadtest.py --mode human --games 1000 --duration 120
    .venv/bin/python scripts/loadtest.py --mode saturation --games 200 --duration 40

Starts ``sushigo-server --port 0`` on 127.0.0.1 (a fresh database in a temporary directory) and
drives it from ``--clients-procs`` other processes with lightweight clients: a plain
`asyncio.Protocol` that parses frames with msgpack and answers from the raw maps (no typed decode
of observations), and builds its COMMIT and REVEAL as plain maps (the rest with
`protocol.encode_message`). Its cyclic garbage collector is off, so its own pauses do not count
into the latency measured; its event loop's lag is reported. Every seat quick
matches into a 4-player table, sends its seed, and per turn commits to a card of its hand
(`make_commitment` with a fresh nonce) and reveals it once COMMITMENTS arrive. After GAME_OVER it
leaves the table and quick matches again until the run ends. `--strict-clients` also runs every
received frame through `protocol.ClientConnection`, which validates everything (heavier).

Modes: ``human`` picks one card about every ``--pick-seconds`` (uniformly 0.5x to 1.5x, so tables
do not move in lockstep); ``saturation`` picks as soon as TURN_START arrives.

Reported: connections (peak open at once, from the clients' per-second samples), games
completed, four-player turns per second (sustained over the window after every seat connected,
and the best second), latency from a seat's REVEAL to its TURN_RESULT (p50/p99/max), errors (any
ERROR message, unexpected close, refused connection or bad sequence number) and the server's peak
memory (VmHWM) and CPU use (in all, and per turn its user and system time apart: the one the
server's Python work costs, the other its system calls). The server's stderr is read as it comes (a chatty server never blocks
on a full pipe). Every run stops by itself after ``--duration`` seconds, and only
127.0.0.1 is ever contacted. With two or more CPUs the server is pinned to CPU 0 and the clients to
the others (``--no-pin`` to turn that off).

To see where the server spends its time under load, ``--server-prefix`` runs it under another
command: ``--server-prefix "py-spy record --format raw -o prof.txt --"`` samples it, and
``--server-prefix "valgrind --tool=callgrind --callgrind-out-file=cg.out"`` counts its instructions
(slowly: use a few games; the difference of two durations divided by the difference of their
turns is the server's instructions per turn, start-up left out).

The code is the package `load` beside this file (scripts/load/): the command line (`options`), a
seat and a client process (`seat`, `worker`, with what they are told and report in `stats`), the
servers under test (`servers`), what is measured (`measure`), one run (`run`), the report
(`report`), and the runs this command makes (`cli`).
"""

from __future__ import annotations

import sys

# Run as a file, this script's folder is on sys.path: the package `load` is found there.
from load.cli import main

if __name__ == "__main__":
    sys.exit(main())
