"""The wire protocol of sushigo: pure and sans-IO (no asyncio, sockets, clock or global random).

Frames (`frames`), typed messages (`messages`, the same for every game), each game's values on
the wire (`games`: `games.sushi_go` for Sushi Go!, `games.sushi_roll` for Sushi Roll), the
connection state machines (`connection`), commit-reveal (`commitment`), provable fairness
(`fairness`), signed records (`records`) and key login (`identity`). docs/PROTOCOL.md is the
normative description.
"""

from typing import TYPE_CHECKING

from . import messages
from ._codec import maker
from ._state import GAME_PHASES, TRANSITIONS, Phase
from .commitment import (
    Opening,
    commitment_preimage,
    make_commitment,
    new_nonce,
    verify_commitment,
)
from .connection import (
    ClientConnection,
    Connection,
    ConnectionClosed,
    ServerConnection,
    error_for,
    handshake_reply,
)
from .errors import ErrorCode, LocalProtocolError, ProtocolError, RemoteProtocolError
from .fairness import (
    FairnessReport,
    FairRecord,
    StepRecord,
    derive_game_seed,
    new_seed,
    server_seed_hash,
    verify_record,
)
from .frames import (
    CLIENT_FRAME_LIMIT,
    CLIENT_LIMITS,
    SERVER_FRAME_LIMIT,
    SERVER_LIMITS,
    FrameDecoder,
    Limits,
    encode_frame,
)
from .games import Wire, decode, encode, register_wire, wire
from .identity import auth_payload, login_key_message, new_challenge, verify_login
from .messages import *  # noqa: F403  (every message, as `messages.__all__` lists them)
from .records import (
    SignedRecord,
    record_bytes,
    sign_record,
    step_record_bytes,
    verify_signed_record,
)
from .versions import (
    CAPABILITIES,
    CURRENT_VERSION,
    PROTOCOL_NAME,
    SUPPORTED_VERSIONS,
    Version,
    choose_version,
)

if TYPE_CHECKING:  # (imported when first asked for: `__getattr__`)
    from .games.sushi_go.wire import CARD_WIRE
    from .games.sushi_roll.wire import ROLL_WIRE

__all__ = [
    "CAPABILITIES",
    "CARD_WIRE",
    "CLIENT_FRAME_LIMIT",
    "CLIENT_LIMITS",
    "CURRENT_VERSION",
    "GAME_PHASES",
    "PROTOCOL_NAME",
    "ROLL_WIRE",
    "SERVER_FRAME_LIMIT",
    "SERVER_LIMITS",
    "SUPPORTED_VERSIONS",
    "TRANSITIONS",
    "ClientConnection",
    "Connection",
    "ConnectionClosed",
    "ErrorCode",
    "FairRecord",
    "FairnessReport",
    "FrameDecoder",
    "Limits",
    "LocalProtocolError",
    "Opening",
    "Phase",
    "ProtocolError",
    "RemoteProtocolError",
    "ServerConnection",
    "SignedRecord",
    "StepRecord",
    "Version",
    "Wire",
    "auth_payload",
    "choose_version",
    "commitment_preimage",
    "decode",
    "derive_game_seed",
    "encode",
    "encode_frame",
    "error_for",
    "handshake_reply",
    "login_key_message",
    "make_commitment",
    "maker",
    "new_challenge",
    "new_nonce",
    "new_seed",
    "record_bytes",
    "register_wire",
    "server_seed_hash",
    "sign_record",
    "step_record_bytes",
    "verify_commitment",
    "verify_login",
    "verify_record",
    "verify_signed_record",
    "wire",
]
__all__ += messages.__all__

_LATER = {"CARD_WIRE": "sushi-go", "ROLL_WIRE": "sushi-roll"}
"""The built-in games' wires by their old names, imported when first asked for: a game's wire (and
its engine) is found through `games.wire` by kind, so a process loads only the games it meets."""


def __getattr__(name: str) -> Wire:
    kind = _LATER.get(name)
    found = wire(kind) if kind is not None else None
    if found is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = found
    return found
