"""Makes ladders-v11.db, the SQLite database `test_ladder_migration.py` upgrades: run with the
code of schema version 11 (ratings of Sushi Go! in `ratings`, of other kinds in `game_ratings`):

    python tests/server/data/make_ladders_v11.py tests/server/data/ladders-v11.db

Three identified players; ratings with every bit of their floats in use; one Sushi Go! game, three
of the test plug-in rock-paper-scissors and two of Sushi Roll, each with its results.
"""

import sys

from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.sqlite.storage import SqliteStorage

RATINGS = {
    "sushi-go": {"ann": (31.234567890123456, 2.0000000000000004), "bob": (25.0, 8.333333333333334)},
    "sushi-roll": {"ann": (19.87654321098765, 3.141592653589793)},
    "rps": {"ann": (27.5, 4.25), "cat": (22.22222222222222, 6.0)},
}
GAMES = [
    ("sushi-go", ("ann", "bob")),
    *[("rps", ("ann", "cat"))] * 3,
    *[("sushi-roll", ("ann", "bob"))] * 2,
]

with SqliteStorage(sys.argv[1]) as db:
    ids = {
        name: db.upsert_identity(bytes([n]) * 32, name, 1_000 + n)
        for n, name in enumerate(("ann", "bob", "cat"), 1)
    }
    for kind, ratings in RATINGS.items():
        db.set_ratings({ids[name]: rating for name, rating in ratings.items()}, kind)
    for n, (kind, names) in enumerate(GAMES):
        results = [
            PlayerResult(ids[name], name, seat, 10 - seat, seat + 1)
            for seat, name in enumerate(names)
        ]
        db.finish_game(
            f"t{n}", f"g{n}", kind, b"record %d" % n, bytes(64), results, finished_ms=2_000 + n
        )
