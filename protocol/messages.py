"""Every message of the protocol, one frozen dataclass each, and their plain-data codec.

Families: handshake (HELLO, WELCOME), identity (LOGIN_GUEST, LOGIN_KEY, LOGGED_IN), lobby
(LIST_TABLES ... CHAT_MESSAGE), leaderboards (GET_LEADERBOARD, LEADERBOARD) and finished games
(MY_GAMES ... GAME_RECORD), both since 2.2, tournaments (LIST_TOURNAMENTS ... TOURNAMENT_INFO),
game (GAME_STARTING ... GAME_OVER, the same for every game), reconnect (RESUME, RESUMED),
heartbeat (PING, PONG both ways) and ERROR. docs/PROTOCOL.md describes each one normatively.
"""

from __future__ import annotations

from typing import Any

from ._codec import GameCodecs
from ._messages_game import (
    Act,
    Acted,
    Commit,
    Commitments,
    GameEnded,
    GameStarted,
    GameStarting,
    Resume,
    Resumed,
    Reveal,
    Seed,
    Snapshot,
    TurnResult,
    TurnStart,
)
from ._messages_lobby import (
    MAX_PAGE,
    AddBot,
    Chat,
    ChatMessage,
    CreateTable,
    JoinTable,
    LeaveTable,
    ListTables,
    QuickMatch,
    SeatInfo,
    Spectate,
    Spectating,
    StartGame,
    TableInfo,
    TableJoined,
    TableLeft,
    TableList,
    TableSettings,
    TableStatus,
    TableUpdate,
)
from ._messages_ratings import MAX_LEADERBOARD, GetLeaderboard, Leaderboard, Rated
from ._messages_records import (
    MAX_GAMES_PAGE,
    GameList,
    GameRecord,
    GameResult,
    GameSummary,
    GetRecord,
    MyGames,
)
from ._messages_session import (
    Error,
    Hello,
    LoggedIn,
    LoginGuest,
    LoginKey,
    Ping,
    Pong,
    ServerPing,
    ServerPong,
    Welcome,
)
from ._messages_tournament import (
    CreateTournament,
    ListTournaments,
    RegisterTournament,
    Standing,
    StartTournament,
    TournamentFormat,
    TournamentInfo,
    TournamentList,
    TournamentSettings,
    TournamentStatus,
    TournamentUpdate,
    WatchTournament,
)
from ._registry import ClientMessage, Role, ServerMessage, from_data, message_types, to_data

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
    "MAX_GAMES_PAGE",
    "MAX_LEADERBOARD",
    "MAX_PAGE",
    "Act",
    "Acted",
    "AddBot",
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
    "Message",
    "MyGames",
    "Ping",
    "Pong",
    "QuickMatch",
    "Rated",
    "RegisterTournament",
    "Resume",
    "Resumed",
    "Reveal",
    "SeatInfo",
    "Seed",
    "ServerMessage",
    "ServerPing",
    "ServerPong",
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
