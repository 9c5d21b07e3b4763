"""Key login: an Ed25519 signature over the WELCOME challenge, bound to the server's key.

The signed payload names the server's key and this connection's challenge, so a signature cannot
be replayed on another connection or relayed to another server (a man in the middle who forwards
the challenge would present its own server key, and the player's client signs the key it was
given)::

    payload = lp16("sushigo/auth/v1") || server_key (32) || challenge (32) || client_key (32)
"""

from __future__ import annotations

import hashlib
import secrets

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from ._messages_session import LoginKey
from .records import public_key_bytes

AUTH_TAG = b"sushigo/auth/v1"
CHALLENGE_SIZE = 32


def new_challenge() -> bytes:
    """A fresh 32-byte challenge for WELCOME (from the OS's cryptographic generator)."""
    return secrets.token_bytes(CHALLENGE_SIZE)


def auth_payload(server_key: bytes, challenge: bytes, client_key: bytes) -> bytes:
    """The exact bytes a LOGIN_KEY signature covers."""
    for name, value in (("server_key", server_key), ("challenge", challenge), ("key", client_key)):
        if len(value) != 32:
            raise ValueError(f"{name} must be 32 bytes, not {len(value)}")
    return len(AUTH_TAG).to_bytes(2, "big") + AUTH_TAG + server_key + challenge + client_key


def login_key_message(
    key: Ed25519PrivateKey, name: str, server_key: bytes, challenge: bytes, ref: int = 0
) -> LoginKey:
    """The LOGIN_KEY a client sends to prove it holds `key` (client side)."""
    public = public_key_bytes(key)
    signature = key.sign(auth_payload(server_key, challenge, public))
    return LoginKey(ref=ref, name=name, public_key=public, signature=signature)


def verify_login(message: LoginKey, server_key: bytes, challenge: bytes) -> bool:
    """True if `message` signs this connection's challenge under this server's key (server side)."""
    try:
        Ed25519PublicKey.from_public_bytes(message.public_key).verify(
            message.signature, auth_payload(server_key, challenge, message.public_key)
        )
    except (InvalidSignature, ValueError):
        return False
    return True


def player_id_for_key(public_key: bytes) -> str:
    """A stable player id for a public key: ``"k:"`` and the first 16 bytes of its SHA-256, hex."""
    return "k:" + hashlib.sha256(public_key).digest()[:16].hex()
