"""Run `sushigo-server` with the machine's clock shifted (the tests' own wrapper, not a flag of the
server): ``python shifted.py MILLISECONDS ARGS...``. The wall clock the server reads
(`time.time_ns`, `time.time`) runs that far ahead (or behind, if negative) of the machine's."""

import sys
import time

shift_ns = int(sys.argv.pop(1)) * 1_000_000
real_ns, real = time.time_ns, time.time
time.time_ns = lambda: real_ns() + shift_ns
time.time = lambda: real() + shift_ns / 1e9

from sushigo.server.cli import command  # noqa: E402  (after the shift: it keeps time.time_ns)

command()
