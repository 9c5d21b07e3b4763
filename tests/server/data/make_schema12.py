"""Makes the databases `test_record_keys.py` upgrades (schema12.db, schema12-pg.sql and their
keys): two games each, played by the `sushigo-server` and `sushigo-bot` of schema version 12
(whose records carry no key), the PostgreSQL one dumped with `pg_dump --inserts`. Run with this
checkout's .venv (for its PostgreSQL) and the old version's programs' folder:

    .venv/bin/python tests/server/data/make_schema12.py OLD/.venv/bin tests/server/data
"""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parents[2]))
from pgcluster import POSTGRES_BIN_PATH, PgCluster

OLD, OUT = Path(sys.argv[1]), Path(sys.argv[2])


def serve_and_play(*db_args: str) -> None:
    """The old server on a free port, four bots (two games of two), then a clean stop."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(
        [str(OLD / "sushigo-server"), "--host", "127.0.0.1", "--port", str(port), *db_args]
    )
    for _ in range(300):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            break
        except OSError:
            time.sleep(0.1)
    bots = [
        subprocess.Popen(
            [
                *(str(OLD / "sushigo-bot"), f"127.0.0.1:{port}", "--games", "1"),
                *("--players", "2", "--name", f"b{i}", "--seed", str(i)),
            ]
        )
        for i in range(4)
    ]
    assert [bot.wait(120) for bot in bots] == [0] * 4
    server.terminate()
    assert server.wait(30) == 0


with tempfile.TemporaryDirectory() as folder:
    tmp = Path(folder)
    serve_and_play("--db", str(tmp / "schema12.db"))
    shutil.copy(tmp / "schema12.db", OUT / "schema12.db")
    shutil.copy(tmp / "schema12.db.key", OUT / "schema12.db.key")
    os.chmod(tmp, 0o755)
    pg = PgCluster(tmp / "pg")
    pg.start()
    try:
        url = pg.new_database()
        serve_and_play("--db", url, "--key", str(tmp / "pg.key"))
        shutil.copy(tmp / "pg.key", OUT / "schema12-pg.key")
        dump = [str(POSTGRES_BIN_PATH / "pg_dump"), "--inserts", "--no-owner", "--no-privileges"]
        sql = subprocess.run([*dump, "-d", url], capture_output=True, text=True, check=True)
        (OUT / "schema12-pg.sql").write_text(sql.stdout)
    finally:
        pg.stop()
