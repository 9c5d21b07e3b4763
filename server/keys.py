"""The server's Ed25519 identity key: it signs game records and login challenges name it.

The key is made once and kept in a PEM (PKCS#8, unencrypted) file readable by its owner only.
Losing or replacing it makes every stored record's signature unverifiable against the new key,
so an unreadable key file is an error to fix by hand, never silently overwritten.

Fingerprints here and in `server.net.tls` share one format: ``"SHA256:"`` followed by the SHA-256
digest as upper-case hex pairs joined by colons (``SHA256:3F:A0:...``, 95 characters after the
prefix), the way ``openssl x509 -fingerprint -sha256`` prints it.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
from pathlib import Path

from cryptography.exceptions import UnsupportedAlgorithm
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    load_pem_private_key,
    load_pem_public_key,
)

from sushigo.protocol.records import public_key_bytes as _public_key_bytes

__all__ = [
    "KeyFileError",
    "create_new_file",
    "key_fingerprint",
    "load_admin_key",
    "load_or_create_server_key",
    "public_key_bytes",
    "sha256_fingerprint",
]


class KeyFileError(Exception):
    """A key or certificate file exists but cannot be used (or cannot be created)."""

    def __init__(self, path: str | os.PathLike[str], reason: str) -> None:
        super().__init__(f"{os.fspath(path)}: {reason}")
        self.path = os.fspath(path)
        """The file."""
        self.reason = reason
        """What is wrong with it, for a person."""


def sha256_fingerprint(data: bytes) -> str:
    """``"SHA256:"`` and the SHA-256 of `data` as colon-separated upper-case hex pairs."""
    return "SHA256:" + hashlib.sha256(data).digest().hex(":").upper()


def public_key_bytes(key: Ed25519PrivateKey) -> bytes:
    """The raw 32-byte public key (what login challenges and record signatures name)."""
    return _public_key_bytes(key)


def key_fingerprint(public_bytes: bytes) -> str:
    """The fingerprint of a raw 32-byte Ed25519 public key, in the shared format."""
    if len(public_bytes) != 32:
        raise ValueError(f"an Ed25519 public key is 32 bytes, not {len(public_bytes)}")
    return sha256_fingerprint(public_bytes)


def create_new_file(path: str | os.PathLike[str], data: bytes, mode: int) -> bool:
    """Write `data` to a new file at `path` atomically with permissions `mode`.

    The bytes go to a temporary file beside it (created with `mode`, so a secret is never
    readable by others even for an instant), are flushed to disk, and the file is then
    hard-linked into place: a crash leaves either no file or a complete one, and an existing
    file is never replaced. Returns False, writing nothing, if `path` already exists (another
    process won the race); raises `OSError` on other failures.
    """
    target = Path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        try:
            os.fchmod(fd, mode)  # the umask may have narrowed it; never widened beyond `mode`
            view = memoryview(data)
            while view:  # a nearly full disk writes part and says so only on the next write
                view = view[os.write(fd, view) :]
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            os.link(tmp, target)
        except FileExistsError:
            return False
    finally:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
    _fsync_directory(target.parent)
    return True


def _fsync_directory(directory: Path) -> None:
    # Makes the new directory entry itself durable; not possible everywhere, and not fatal.
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def load_or_create_server_key(path: str | os.PathLike[str]) -> Ed25519PrivateKey:
    """The server's key from `path`, made on first run (parent directories too, file mode 0600).

    Raises `KeyFileError` if the file exists but is not an unencrypted PEM Ed25519 private key,
    or if it cannot be read or created.
    """
    target = Path(path)
    if not target.exists():
        key = Ed25519PrivateKey.generate()
        pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            created = create_new_file(target, pem, 0o600)
        except OSError as exc:
            raise KeyFileError(target, f"cannot create the key file: {exc.strerror}") from None
        if created:
            return key
        # Someone else created it between our check and our link: use theirs.
    return _load_key(target)


def _load_key(path: Path) -> Ed25519PrivateKey:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise KeyFileError(path, f"cannot read the key file: {exc.strerror}") from None
    try:
        key = load_pem_private_key(data, password=None)
    except (ValueError, TypeError) as exc:
        # TypeError: the key is encrypted; ValueError: not PEM, or not a key at all.
        raise KeyFileError(
            path, f"not a usable PEM private key ({exc}); move it away to make a new one"
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise KeyFileError(path, f"holds a {type(key).__name__}, not an Ed25519 private key")
    return key


def load_admin_key(path: str | os.PathLike[str]) -> bytes:
    """The raw public key of an admin (``sushigo-server --admin-key PATH``), from a PEM file
    holding an Ed25519 public key (``-----BEGIN PUBLIC KEY-----``, what ``sushigo-admin
    public-key`` prints), or the admin's own key file (its private key: only the public half
    is kept). `KeyFileError` saying why for anything else."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise KeyFileError(path, f"cannot read the admin key: {exc.strerror}") from None
    loaded: object
    try:
        if b"PRIVATE KEY-----" in data:
            loaded = load_pem_private_key(data, password=None)
        else:
            loaded = load_pem_public_key(data)
    except (ValueError, TypeError, UnsupportedAlgorithm):
        raise KeyFileError(
            path, "not a PEM Ed25519 public key (sushigo-admin public-key prints one)"
        ) from None
    if isinstance(loaded, Ed25519PrivateKey):
        loaded = loaded.public_key()
    if not isinstance(loaded, Ed25519PublicKey):
        raise KeyFileError(path, f"holds a {type(loaded).__name__}, not an Ed25519 key")
    return loaded.public_bytes_raw()
