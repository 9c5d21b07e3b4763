"""Connection phases and the one table of legal transitions (STYLE.md item 4).

Both ends keep the same phase and move it with the same table: every message sent or received is
looked up as (sender's role, phase, message type) -> next phase. A pair that is not in the table is
a message out of phase, and the error names all three.

Why one shared phase rather than one per role (as h11 keeps): the server is authoritative. Every
move between lobby, table and game is made by a server message; a client message only moves its
own seat from "owes a seed / a commitment / a reveal" to "has given it". The client can therefore
always tell what the server will accept next, and the few races that remain are harmless by design:

- A late client message (a COMMIT sent just as the turn timer gave the seat an auto-pick) arrives
  in a phase where it is not allowed. The server answers OUT_OF_PHASE (or WRONG_TURN, when the
  phase matches but the turn does not) and nothing else happens: the connection goes on.
- A server message overtakes the client's own (COMMITMENTS arriving while the client is still
  COMMITTING, because the timer ran out): the table allows it, because the server already decided.

Lobby and chat requests are allowed in every phase after login where they make sense; they do not
change the phase, because whether they succeed is the server's answer to give.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Final, Literal

from ._messages_admin import ADMIN_REQUESTS
from ._registry import Role


class Phase(StrEnum):
    """The phase of a connection and, during a game, of its seat."""

    HANDSHAKE = "handshake"
    """Connected; the client owes HELLO. Nothing else is accepted."""
    HELLO_SENT = "hello_sent"
    """HELLO sent; the server owes WELCOME (or a fatal ERROR)."""
    IDENTIFY = "identify"
    """Welcomed; the client logs in (LOGIN_GUEST, LOGIN_KEY) or resumes a session (RESUME)."""
    LOBBY = "lobby"
    """Logged in, at no table."""
    TABLE = "table"
    """Seated at a table with no game running (before a game, or after one)."""
    WATCHING = "watching"
    """Spectating a table: receives its public events, never sends game messages."""
    SEEDING = "seeding"
    """GAME_STARTING received: the seat owes its SEED."""
    SEEDED = "seeded"
    """SEED sent; waiting for GAME_STARTED."""
    WAITING = "waiting"
    """In a game, owing nothing: between steps, or another seat is acting (ACTED arrives)."""
    COMMITTING = "committing"
    """TURN_START of a secret step the seat acts in received: the seat owes its COMMIT."""
    COMMITTED = "committed"
    """COMMIT sent; waiting for every seat's (COMMITMENTS)."""
    REVEALING = "revealing"
    """COMMITMENTS received: the seat owes its REVEAL."""
    REVEALED = "revealed"
    """REVEAL sent; waiting for TURN_RESULT."""
    MOVING = "moving"
    """The seat acts in an open step: it may send ACT, each answered by ACTED, until an ACTED of
    its own says its turn is over (``more`` false)."""
    CLOSED = "closed"
    """The connection is over; nothing more is sent or received."""


GAME_PHASES: Final = frozenset(
    {
        Phase.SEEDING,
        Phase.SEEDED,
        Phase.WAITING,
        Phase.COMMITTING,
        Phase.COMMITTED,
        Phase.REVEALING,
        Phase.REVEALED,
        Phase.MOVING,
    }
)
"""The phases of a seated player during a game."""

LOGGED_IN: Final = frozenset({Phase.LOBBY, Phase.TABLE, Phase.WATCHING} | GAME_PHASES)
"""Phases after a successful login: also the phases RESUMED may name."""

AFTER_WELCOME: Final = frozenset({Phase.IDENTIFY} | LOGGED_IN)
"""Phases in which the handshake is done (heartbeats and non-fatal errors are allowed)."""

FROM_MESSAGE: Final = "from_message"
"""Target of RESUMED: the phase it names (one of `LOGGED_IN`), checked when it is sent/received."""

STEP: Final = "step"
"""Target of TURN_START: for a seat that acts in the step, COMMITTING (a secret step) or MOVING
(an open one); for every other seat, WAITING."""

MOVED: Final = "moved"
"""Target of ACTED for the seat that acted: MOVING while its turn goes on (``more``), else
WAITING."""

Target = Phase | Literal["from_message", "step", "moved"]

C, S = Role.CLIENT, Role.SERVER
P = Phase


def _build() -> dict[tuple[Role, Phase, str], Target]:
    t: dict[tuple[Role, Phase, str], Target] = {}

    def stay(role: Role, phases: frozenset[Phase] | set[Phase], *types: str) -> None:
        for phase in phases:
            for name in types:
                t[role, phase, name] = phase

    # Handshake: HELLO first, nothing before it; WELCOME or a fatal ERROR answers it.
    t[C, P.HANDSHAKE, "hello"] = P.HELLO_SENT
    t[S, P.HANDSHAKE, "error"] = P.CLOSED  # handshake deadline passed
    t[S, P.HELLO_SENT, "welcome"] = P.IDENTIFY
    t[S, P.HELLO_SENT, "error"] = P.CLOSED  # wrong protocol, unsupported version

    # Identity: a failed login is answered by a (non-fatal) ERROR and may be retried.
    stay(C, {P.IDENTIFY}, "login_guest", "login_key", "resume", "login_ticket")
    # A cluster (2.4): a resume, a join or a spectate answered by "go to that node"; and, unasked,
    # a node stopping tells a table's people where the table went.
    stay(S, {P.IDENTIFY} | LOGGED_IN, "redirect")
    t[S, P.IDENTIFY, "logged_in"] = P.LOBBY
    t[S, P.IDENTIFY, "resumed"] = FROM_MESSAGE

    # Everywhere after the handshake: heartbeats both ways, and errors that answer a request.
    stay(C, AFTER_WELCOME, "ping", "pong")
    stay(S, AFTER_WELCOME, "ping", "pong", "error")
    # A server stopping (2.4) says so wherever the client is, then closes with an ERROR.
    stay(S, LOGGED_IN, "restarting")

    # Lobby and table: requests never move the phase; the server's answers do.
    stay(C, LOGGED_IN, "list_tables", "chat", "get_leaderboard")
    stay(S, LOGGED_IN, "table_list", "chat_message", "leaderboard")
    # Finished games (2.2): asked for anywhere after login, like the table list.
    stay(C, LOGGED_IN, "my_games", "get_record")
    stay(S, LOGGED_IN, "game_list", "game_record")
    # Admin (2.3): an operator steers the server from wherever it is (a non-admin is refused by
    # the server, NOT_ALLOWED, not by the phase); an announcement reaches everyone wherever.
    stay(C, LOGGED_IN, *(cls.TYPE for cls in ADMIN_REQUESTS))
    stay(S, LOGGED_IN, "admin_done", "session_list", "node_list", "table_view")
    stay(S, LOGGED_IN, "sanction_list", "audit_list", "announcement")
    # Tournaments: entering one is done from the lobby; its updates may arrive anywhere (an
    # entrant is usually playing one of its games when the standings change).
    stay(C, LOGGED_IN, "list_tournaments", "watch_tournament", "create_tournament")
    stay(C, {P.LOBBY}, "register_tournament")
    stay(C, {P.LOBBY, P.TABLE}, "start_tournament")
    stay(S, LOGGED_IN, "tournament_list", "tournament_info")
    stay(C, {P.LOBBY}, "create_table", "join_table", "spectate", "quick_match")
    t[S, P.LOBBY, "table_joined"] = P.TABLE
    t[S, P.LOBBY, "spectating"] = P.WATCHING
    at_table = {P.TABLE, P.WATCHING} | GAME_PHASES
    stay(C, at_table, "leave_table")
    stay(S, at_table, "table_update")
    for phase in at_table:
        t[S, phase, "table_left"] = P.LOBBY
    stay(C, {P.TABLE}, "add_bot", "start_game")
    t[S, P.TABLE, "game_starting"] = P.SEEDING

    # A spectator sees every public game event and stays where it is.
    stay(
        S,
        {P.WATCHING},
        "game_starting",
        "game_started",
        "turn_start",
        "commitments",
        "turn_result",
        "acted",
        "game_over",
    )

    # A seat's game: the seed, then the steps. Server messages may overtake the seat's own (a
    # timer ran out and the server acted for it), hence the extra entries.
    t[C, P.SEEDING, "seed"] = P.SEEDED
    t[S, P.SEEDING, "game_started"] = P.WAITING  # no seed in time: the server drew one
    t[S, P.SEEDED, "game_started"] = P.WAITING
    t[S, P.WAITING, "turn_start"] = STEP
    t[S, P.WAITING, "game_over"] = P.TABLE

    # A secret step: commit, then reveal once every commitment is in.
    t[C, P.COMMITTING, "commit"] = P.COMMITTED
    t[S, P.COMMITTING, "commitments"] = P.REVEALING  # auto-picked: no commitment in time
    t[S, P.COMMITTED, "commitments"] = P.REVEALING
    stay(S, {P.WAITING}, "commitments")  # a step this seat does not act in
    t[C, P.REVEALING, "reveal"] = P.REVEALED
    t[S, P.REVEALING, "turn_result"] = P.WAITING  # auto-picked: no reveal in time
    t[S, P.REVEALED, "turn_result"] = P.WAITING
    stay(S, {P.WAITING}, "turn_result")

    # An open step: the seat that acts sends ACT any number of times, each answered by ACTED to
    # everyone, until an ACTED of its own ends its turn; the others watch its ACTED go by.
    t[C, P.MOVING, "act"] = P.MOVING
    t[S, P.MOVING, "acted"] = MOVED
    stay(S, {P.WAITING}, "acted")
    return t


TRANSITIONS: Final[dict[tuple[Role, Phase, str], Target]] = _build()
"""Every legal (sender, phase, message type) -> next phase."""


def next_phase(role: Role, phase: Phase, message_type: str) -> Target | None:
    """The phase after `role` sends `message_type` in `phase`; None if that is not allowed."""
    return TRANSITIONS.get((role, phase, message_type))


def describe_refusal(role: Role, phase: Phase, message_type: str) -> str:
    """The error text for a pair not in the table, naming all three."""
    allowed = sorted(name for (r, p, name) in TRANSITIONS if r is role and p is phase)
    return (
        f"the {role} may not send {message_type!r} in phase {phase.value!r}"
        f" (allowed: {', '.join(allowed) or 'nothing'})"
    )
