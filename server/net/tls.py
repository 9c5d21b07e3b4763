"""TLS for ``--tls``: a self-signed certificate made on first run, pinned by clients on first use.

There is no certificate authority in a game among friends, so clients do not verify a chain or
a host name; they remember the certificate's fingerprint the first time (``client.known_hosts``)
and refuse a different one later. That makes the certificate's stability the whole point: it is
made once, kept beside the database, and reused for ten years. Its fingerprint is the SHA-256 of
the DER certificate in the format of `server.keys.sha256_fingerprint`
(``SHA256:AB:CD:...``, upper-case hex pairs), the same format `client.known_hosts.fingerprint`
produces from the bytes a client receives (a test checks that the two agree).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import secrets
import ssl
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import (
    Encoding,
    NoEncryption,
    PrivateFormat,
    PublicFormat,
    load_pem_private_key,
)
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from sushigo.server.keys import KeyFileError, create_new_file, sha256_fingerprint

__all__ = [
    "CERT_FILE",
    "KEY_FILE",
    "TlsFiles",
    "certificate_fingerprint",
    "ensure_certificate",
    "server_ssl_context",
]

CERT_FILE: Final = "tls-cert.pem"
"""The certificate's file name in the directory given to `ensure_certificate`."""
KEY_FILE: Final = "tls-key.pem"
"""The TLS private key's file name (mode 0600). Not the Ed25519 identity key."""
VALIDITY: Final = datetime.timedelta(days=3650)


@dataclass(frozen=True, slots=True)
class TlsFiles:
    """The server's TLS certificate and key on disk."""

    cert_path: Path
    """The PEM certificate."""
    key_path: Path
    """The PEM (PKCS#8) private key, owner-only."""
    fingerprint: str
    """The certificate's SHA-256 fingerprint (``SHA256:AB:CD:...``), to print at start-up."""


def certificate_fingerprint(cert: bytes) -> str:
    """The fingerprint of a certificate given as DER or PEM bytes."""
    if cert.lstrip().startswith(b"-----BEGIN"):
        try:
            cert = x509.load_pem_x509_certificate(cert).public_bytes(Encoding.DER)
        except ValueError as exc:
            raise ValueError(f"not a PEM certificate: {exc}") from None
    return sha256_fingerprint(cert)


def ensure_certificate(
    directory: str | os.PathLike[str], *, now: datetime.datetime | None = None
) -> TlsFiles:
    """The server's certificate and key in `directory`, made (with the directory) if absent.

    The certificate is self-signed, ECDSA P-256 with SHA-256, for ``localhost``, ``127.0.0.1``
    and ``::1``, valid ten years from `now` (the current time if not given). Existing files are
    reused after checking that they parse and belong together; raises `KeyFileError` otherwise,
    naming the file and what to do.
    """
    folder = Path(directory)
    cert_path, key_path = folder / CERT_FILE, folder / KEY_FILE
    if cert_path.exists() and not key_path.exists():
        # Making a new pair would silently change the fingerprint every client has pinned.
        raise KeyFileError(
            key_path,
            f"missing, but its certificate {cert_path} exists; restore the key, or delete the "
            "certificate to make a new pair (clients will then see a changed certificate)",
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        if not key_path.exists():
            key = ec.generate_private_key(ec.SECP256R1())
            pem = key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption())
            create_new_file(key_path, pem, 0o600)  # False: a racing process made one; use it
        # A key without a certificate is what a crash between the two writes leaves; nobody can
        # have pinned a certificate that never existed, so making it now is safe.
        if not cert_path.exists():
            key = _load_key(key_path)
            cert = _self_signed(key, now or datetime.datetime.now(datetime.UTC))
            create_new_file(cert_path, cert.public_bytes(Encoding.PEM), 0o644)
    except OSError as exc:
        raise KeyFileError(
            exc.filename or folder, f"cannot create TLS files: {exc.strerror}"
        ) from None
    return _check_pair(cert_path, key_path)


def _self_signed(key: ec.EllipticCurvePrivateKey, now: datetime.datetime) -> x509.Certificate:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "sushigo server")])
    alt_names: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.IPv4Address("127.0.0.1")),
        x509.IPAddress(ipaddress.IPv6Address("::1")),
    ]
    # Back-dated an hour so a client whose clock runs a little slow does not see it as "not yet
    # valid" (pinning clients do not check dates, but other tools such as openssl do).
    start = now - datetime.timedelta(hours=1)
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(int.from_bytes(secrets.token_bytes(16), "big") >> 1)
        .not_valid_before(start)
        .not_valid_after(start + VALIDITY)
        .add_extension(x509.SubjectAlternativeName(alt_names), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=True,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=False,
                crl_sign=False,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
        .sign(key, hashes.SHA256())
    )


def _load_key(path: Path) -> ec.EllipticCurvePrivateKey:
    try:
        key = load_pem_private_key(path.read_bytes(), password=None)
    except OSError as exc:
        raise KeyFileError(path, f"cannot read the TLS key: {exc.strerror}") from None
    except (ValueError, TypeError) as exc:
        raise KeyFileError(path, f"not a usable PEM private key ({exc})") from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise KeyFileError(path, f"holds a {type(key).__name__}, not an ECDSA key")
    return key


def _check_pair(cert_path: Path, key_path: Path) -> TlsFiles:
    try:
        pem = cert_path.read_bytes()
    except OSError as exc:
        raise KeyFileError(cert_path, f"cannot read the certificate: {exc.strerror}") from None
    try:
        cert = x509.load_pem_x509_certificate(pem)
    except ValueError as exc:
        raise KeyFileError(cert_path, f"not a PEM certificate ({exc})") from None
    key = _load_key(key_path)
    ours = key.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    theirs = cert.public_key().public_bytes(Encoding.DER, PublicFormat.SubjectPublicKeyInfo)
    if ours != theirs:
        raise KeyFileError(cert_path, f"does not belong to the key in {key_path}")
    return TlsFiles(cert_path, key_path, sha256_fingerprint(cert.public_bytes(Encoding.DER)))


def server_ssl_context(files: TlsFiles) -> ssl.SSLContext:
    """A server-side context for `files`: TLS 1.2 or later, no client certificates."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(files.cert_path, files.key_path)
    except (OSError, ssl.SSLError) as exc:
        raise KeyFileError(files.cert_path, f"cannot load for TLS: {exc}") from None
    return context
