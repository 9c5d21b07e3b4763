"""Every message of the protocol, one frozen dataclass each, and their plain-data codec.

Families: handshake (HELLO, WELCOME), identity (LOGIN_GUEST, LOGIN_KEY, LOGGED_IN), lobby
(LIST_TABLES ... CHAT_MESSAGE), leaderboards (GET_LEADERBOARD, LEADERBOARD) and finished games
(MY_GAMES ... GAME_RECORD), both since 2.2, tournaments (LIST_TOURNAMENTS ... TOURNAMENT_INFO),
game (GAME_STARTING ... GAME_OVER, the same for every game), reconnect (RESUME, RESUMED),
heartbeat (PING, PONG both ways), admin (ADMIN_SESSIONS ... ANNOUNCEMENT, since 2.3), RESTARTING
(2.4) and ERROR.
docs/PROTOCOL.md describes each one normatively.

The families' modules declare the messages; `__all__` below is the one list of them, which the
package passes on as it is.
"""

from __future__ import annotations

from typing import Any

from ._codec import GameCodecs
from ._messages_admin import *
from ._messages_game import *
from ._messages_lobby import *
from ._messages_ratings import *
from ._messages_records import *
from ._messages_session import *
from ._messages_tournament import *
from ._registry import (
    ClientMessage,
    Reply,
    Role,
    ServerMessage,
    from_data,
    message_types,
    to_data,
)

Message = ClientMessage | ServerMessage
"""Any message."""


def encode_message(
    message: Message, seq: int | None = None, game: GameCodecs | None = None
) -> dict[str, Any]:
    """`message` as plain msgpack data; server messages need their `seq` (>= 1); its game values
    are encoded by `game`'s wire (`protocol.games.wire(kind)`)."""
    if (seq is None) != (message.SENDER is Role.CLIENT):
        raise ValueError("server messages carry a seq, client messages do not")
    return to_data(message, seq, game)


def decode_message(
    value: Any, sender: Role, game: GameCodecs | None = None
) -> tuple[Message, int | None]:
    """Validate plain data sent by `sender` into a typed message and its seq (None from a client);
    its game values are `game`'s.

    Raises `RemoteProtocolError` (non-fatal: the frame itself was sound) naming the bad field.
    """
    return from_data(value, sender, game)


__all__ = [
    "ADMIN_REQUESTS",
    "MAX_ADMIN_PAGE",
    "MAX_GAMES_PAGE",
    "MAX_LEADERBOARD",
    "MAX_PAGE",
    "Act",
    "Acted",
    "AddBot",
    "AdminAnnounce",
    "AdminAudit",
    "AdminBan",
    "AdminClose",
    "AdminDone",
    "AdminDrain",
    "AdminKick",
    "AdminMute",
    "AdminNodes",
    "AdminSanctions",
    "AdminSessions",
    "AdminShow",
    "AdminUnban",
    "AdminUnmute",
    "Announcement",
    "AuditEntry",
    "AuditList",
    "Chat",
    "ChatMessage",
    "ClientMessage",
    "Commit",
    "Commitments",
    "CreateTable",
    "CreateTournament",
    "Error",
    "GameEnded",
    "GameList",
    "GameRecord",
    "GameResult",
    "GameStarted",
    "GameStarting",
    "GameSummary",
    "GetLeaderboard",
    "GetRecord",
    "Hello",
    "JoinTable",
    "Leaderboard",
    "LeaveTable",
    "ListTables",
    "ListTournaments",
    "LoggedIn",
    "LoginGuest",
    "LoginKey",
    "LoginTicket",
    "Message",
    "MyGames",
    "NodeInfo",
    "NodeList",
    "Ping",
    "Pong",
    "QuickMatch",
    "Rated",
    "Redirect",
    "RegisterTournament",
    "Reply",
    "Restarting",
    "Resume",
    "Resumed",
    "Reveal",
    "Sanction",
    "SanctionKind",
    "SanctionList",
    "SeatInfo",
    "Seed",
    "ServerMessage",
    "ServerPing",
    "ServerPong",
    "SessionInfo",
    "SessionList",
    "Snapshot",
    "Spectate",
    "Spectating",
    "Standing",
    "StartGame",
    "StartTournament",
    "TableInfo",
    "TableJoined",
    "TableLeft",
    "TableList",
    "TableSettings",
    "TableStatus",
    "TableUpdate",
    "TableView",
    "TournamentFormat",
    "TournamentInfo",
    "TournamentList",
    "TournamentSettings",
    "TournamentStatus",
    "TournamentUpdate",
    "TurnResult",
    "TurnStart",
    "WatchTournament",
    "Welcome",
    "decode_message",
    "encode_message",
    "message_types",
]
