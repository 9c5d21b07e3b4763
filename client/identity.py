"""A player's lasting identity: an Ed25519 key in a PEM file (shared by the client, bot and
tournament commands)."""

from __future__ import annotations

import os
from pathlib import Path

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
)


class KeyFileError(Exception):
    """The identity key file cannot be used; the message names the file and why."""


def load_or_create_key(path: Path) -> Ed25519PrivateKey:
    """The player's lasting identity: an Ed25519 PEM key, created (mode 0600) when missing."""
    if not path.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:
            return load_or_create_key(path)
        except OSError as exc:
            raise KeyFileError(f"cannot create the key file {path}: {exc.strerror}") from None
        with os.fdopen(fd, "wb") as f:
            f.write(pem)
        return key
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(f"cannot read the key file {path}: {exc.strerror}") from None
    try:
        loaded = load_pem_private_key(data, password=None)
    except (ValueError, TypeError):
        raise KeyFileError(f"{path} is not an unencrypted PEM private key") from None
    if not isinstance(loaded, Ed25519PrivateKey):
        raise KeyFileError(f"{path} holds a {type(loaded).__name__}, not an Ed25519 key")
    return loaded
