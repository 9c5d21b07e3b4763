"""The load test behind `scripts/loadtest.py`: a real server (or a cluster's nodes), many
concurrent 4-player games played by lightweight clients in other processes, figures at the end.

Its modules, each over those below it: `cli` (the runs the command makes), `run` (one run),
`report` (its figures as lines), `measure` (CPU, PostgreSQL's work, /metrics), `servers` (the
servers under test), `worker` (a client process), `seat` (one seat), `stats` (what a client
process is told and reports) and `options` (the command line).
"""
