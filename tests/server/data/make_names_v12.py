"""Makes names-v12.db, the SQLite database `test_names_migration.py` upgrades: run with the code
of schema version 12 (identities without their names' look-alike keys):

    python tests/server/data/make_names_v12.py tests/server/data/names-v12.db

Four identified players, "admin", "coco", "Ann" and "bob", each with a Sushi Go! rating, and one
game of admin's and coco's with its results.
"""

import sys

from sushigo.server.storage.contract import PlayerResult
from sushigo.server.storage.sqlite.storage import SqliteStorage

NAMES = ("admin", "coco", "Ann", "bob")

with SqliteStorage(sys.argv[1]) as db:
    ids = {
        name: db.upsert_identity(bytes([n]) * 32, name, 1_000 + n)
        for n, name in enumerate(NAMES, 1)
    }
    db.set_ratings({pid: (20.0 + n, 5.0) for n, pid in enumerate(ids.values())}, "sushi-go")
    results = [
        PlayerResult(ids[name], name, seat, 10 - seat, seat + 1)
        for seat, name in enumerate(("admin", "coco"))
    ]
    db.finish_game("t0", "g0", "sushi-go", b"record", bytes(64), results, finished_ms=2_000)
