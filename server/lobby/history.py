"""Finished games for the players who played them (protocol 2.2: MY_GAMES, GET_RECORD).

A player with a key gets every game stored under its key (`Storage.list_records(player_id=...)`),
across sessions and restarts. A guest has no lasting identity, and the storage keeps no id for
it (its results are stored nameless of any player), so the games of a guest's *session* are
remembered here, in memory, while the session lasts (the hub calls `gone` when it ends), at most
`GUEST_GAMES` of them. Only the requester's own games are listed or handed out: the record is the
one the player was given at GAME_OVER, so nothing is disclosed that it had not been shown, and an
unknown game and another's get the same answer (NO_SUCH_TABLE), so nobody learns which exist.

The requests read the database off the event loop (`Hub.read`: a worker thread), as the
leaderboard's do, so a slow or absent database never stalls play; they cost the rate limit by
their size.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from sushigo.protocol import (
    Error,
    ErrorCode,
    GameList,
    GameRecord,
    GameResult,
    GameSummary,
    GetRecord,
    Message,
    MyGames,
    SignedRecord,
)
from sushigo.server.sessions.requests import Charger, Reader
from sushigo.server.sessions.session import Conn, Session
from sushigo.server.storage.contract import RecordSummary, Storage

GUEST_GAMES = 20
"""The games of a guest's session remembered (the oldest are forgotten past it)."""
GAMES_PER_TOKEN = 10
"""MY_GAMES costs one more message of the rate limit per this many games it asks for."""
RECORD_TOKENS = 4
"""What GET_RECORD costs the rate limit beyond its one message: a record is up to 256 KiB."""


class HistoryHost(Reader, Charger, Protocol):
    """What the history needs of the server (the hub)."""

    storage: Storage
    server_key: bytes


class History:
    """The finished-games requests, and the games of guests' sessions."""

    def __init__(self, hub: HistoryHost) -> None:
        self.hub = hub
        self._guests: dict[str, deque[tuple[str, int]]] = {}
        """Per guest's player id: (game id, seat) of its session's finished games, oldest first."""
        self.handlers: dict[type[Message], Callable[[Conn, Session, Any, float], None]] = {
            MyGames: self._my_games,
            GetRecord: self._get_record,
        }
        """The handler of each request type this answers."""

    # -- what the hub tells ------------------------------------------------------------------------

    def finished(self, game_id: str, seats: Iterable[tuple[str | None, int]]) -> None:
        """A game was stored: the guests among its seats' players (player id, seat) keep it."""
        for player_id, seat in seats:
            if player_id is not None and player_id.startswith("g:"):
                kept = self._guests.get(player_id)
                if kept is None:
                    kept = self._guests[player_id] = deque(maxlen=GUEST_GAMES)
                kept.append((game_id, seat))

    def gone(self, player_id: str) -> None:
        """A session ended: a guest's games go with it."""
        self._guests.pop(player_id, None)

    # -- requests ----------------------------------------------------------------------------------

    def _my_games(self, conn: Conn, session: Session, msg: MyGames, now: float) -> None:
        if not self.hub.charge(conn, msg.limit // GAMES_PER_TOKEN, now, msg.ref):
            return
        storage, player_id, guest = self.hub.storage, session.player_id, session.guest
        start, end = msg.offset, msg.offset + msg.limit
        # What the read needs is taken now, on the loop: the guest's games may change meanwhile.
        kept = list(reversed(self._guests.get(player_id, ()))) if guest else []

        def job() -> tuple[list[GameSummary], bool]:
            if guest:
                found = [(storage.get_record(game_id), seat) for game_id, seat in kept[start:end]]
                games = [_summary(g, seat) for g, seat in found if g is not None]
                return games, len(kept) > end
            page = storage.list_records(limit=msg.limit + 1, offset=start, player_id=player_id)
            games = [_summary(g, _seat(g, player_id)) for g in page[: msg.limit]]
            return games, len(page) > msg.limit

        def then(result: Any, now: float) -> None:
            games, more = result
            session.send(
                GameList(ref=msg.ref, games=tuple(games), offset=start, more=more, guest=guest)
            )

        self.hub.read(job, then, session=session, ref=msg.ref, what="your games")

    def _get_record(self, conn: Conn, session: Session, msg: GetRecord, now: float) -> None:
        if not self.hub.charge(conn, RECORD_TOKENS, now, msg.ref):
            return
        storage, server_key, game_id = self.hub.storage, self.hub.server_key, msg.game_id
        player_id, guest = session.player_id, session.guest
        kept = self._guests.get(player_id, ()) if guest else ()
        guest_seat = next((s for g, s in kept if g == game_id), None)

        def then(stored: Any, now: float) -> None:
            seat = None
            if stored is not None:
                seat = guest_seat if guest else _seat(stored, player_id)
            if stored is None or seat is None:
                # The same answer for a game that is not there and for another's.
                session.send(
                    Error(
                        ref=msg.ref,
                        code=ErrorCode.NO_SUCH_TABLE,
                        message=f"you played no finished game {game_id!r}",
                    )
                )
                return
            record = SignedRecord(
                record=stored.record, signature=stored.signature, server_key=server_key
            )
            session.send(GameRecord(ref=msg.ref, game=_summary(stored, seat), record=record))

        if guest and guest_seat is None:
            then(None, now)  # not one of this guest's: no need to ask the database
            return
        self.hub.read(
            lambda: storage.get_record(game_id),
            then,
            session=session,
            ref=msg.ref,
            what="your games",
        )


def _seat(game: RecordSummary, player_id: str) -> int | None:
    """The seat `player_id` held in `game` (None: it did not play it)."""
    return next((p.seat for p in game.players if p.player_id == player_id), None)


def _summary(game: RecordSummary, seat: int | None) -> GameSummary:
    return GameSummary(
        game_id=game.game_id,
        table_id=game.table_id,
        kind=game.kind,
        finished_ms=game.finished_ms,
        players=tuple(
            GameResult(
                seat=p.seat,
                name=p.name[:24] or f"seat {p.seat + 1}",
                player_id=p.player_id,
                score=p.score,
                place=p.place,
            )
            for p in game.players
        ),
        seat=seat,
    )
