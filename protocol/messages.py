"""Every message of the protocol, one frozen dataclass each, and their plain-data codec.

Families: handshake (HELLO, WELCOME), identity (LOGIN_GUEST, LOGIN_KEY, LOGGED_IN), lobby
(LIST_TABLES ... CHAT_MESSAGE), tournaments (LIST_TOURNAMENTS ... TOURNAMENT_INFO), game (GAME_STARTING ... GAME_OVER), Sushi Roll (ROLL_TURN ... ROLL_GAME_OVER),
reconnect (RESUME, RESUMED),
heartbeat (PING, PONG both ways) and ERROR. docs/PROTOCOL.md describes each one normatively.
"""

from __future__ import annotations

from typing import Any

from ._messages_game import (
    Commit,
    Commitments,
    GameEnded,
    GameStarted,
    GameStarting,
    Resume,
    Resumed,
    Reveal,
    RoundScores,
    Seed,
    Snapshot,
    TurnResult,
    TurnStart,
)
from ._messages_lobby import (
    AddBot,
    Chat,
    ChatMessage,
    CreateTable,
    GameKind,
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
from ._messages_roll import RollGameOver, RollPlay, RollRoundScores, RollTurn, RollUpdate
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


def encode_message(message: Message, seq: int | None = None) -> dict[str, Any]:
    """`message` as plain msgpack data; server messages need their `seq` (>= 1)."""
    if (seq is None) != (message.SENDER is Role.CLIENT):
        raise ValueError("server messages carry a seq, client messages do not")
    return to_data(message, seq)


def decode_message(value: Any, sender: Role) -> tuple[Message, int | None]:
    """Validate plain data sent by `sender` into a typed message and its seq (None from a client).

    Raises `RemoteProtocolError` (non-fatal: the frame itself was sound) naming the bad field.
    """
    return from_data(value, sender)


__all__ = [
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
    "GameKind",
    "GameStarted",
    "GameStarting",
    "Hello",
    "JoinTable",
    "LeaveTable",
    "ListTables",
    "ListTournaments",
    "LoggedIn",
    "LoginGuest",
    "LoginKey",
    "Message",
    "Ping",
    "Pong",
    "QuickMatch",
    "RegisterTournament",
    "Resume",
    "Resumed",
    "Reveal",
    "RollGameOver",
    "RollPlay",
    "RollRoundScores",
    "RollTurn",
    "RollUpdate",
    "RoundScores",
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
