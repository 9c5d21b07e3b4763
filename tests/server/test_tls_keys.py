"""server.keys and server.net.tls: key and certificate files, fingerprints, the server context."""

from __future__ import annotations

import datetime
import ipaddress
import re
import ssl
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec, ed25519
from cryptography.hazmat.primitives.serialization import (
    BestAvailableEncryption,
    Encoding,
    NoEncryption,
    PrivateFormat,
)

from sushigo.server.keys import (
    KeyFileError,
    create_new_file,
    key_fingerprint,
    load_or_create_server_key,
    public_key_bytes,
    sha256_fingerprint,
)
from sushigo.server.net.tls import (
    CERT_FILE,
    KEY_FILE,
    certificate_fingerprint,
    ensure_certificate,
    server_ssl_context,
)

FINGERPRINT = re.compile(r"SHA256:[0-9A-F]{2}(:[0-9A-F]{2}){31}")


# --- the Ed25519 identity key ------------------------------------------------------------------


def test_server_key_created_private_then_reused(tmp_path: Path) -> None:
    path = tmp_path / "keys" / "server.key"
    key = load_or_create_server_key(path)
    assert path.stat().st_mode & 0o777 == 0o600
    assert path.read_bytes().startswith(b"-----BEGIN PRIVATE KEY-----")
    again = load_or_create_server_key(path)
    assert public_key_bytes(again) == public_key_bytes(key)
    assert len(public_key_bytes(key)) == 32
    assert [p.name for p in path.parent.iterdir()] == ["server.key"]  # no temporary left over


def test_server_key_garbage_file(tmp_path: Path) -> None:
    path = tmp_path / "server.key"
    path.write_text("hello")
    with pytest.raises(KeyFileError, match="not a usable PEM private key") as info:
        load_or_create_server_key(path)
    assert info.value.path == str(path)
    assert path.read_text() == "hello"  # never overwritten


def test_server_key_wrong_kind_or_encrypted(tmp_path: Path) -> None:
    path = tmp_path / "ec.key"
    ec_key = ec.generate_private_key(ec.SECP256R1())
    path.write_bytes(ec_key.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, NoEncryption()))
    with pytest.raises(KeyFileError, match="not an Ed25519"):
        load_or_create_server_key(path)
    locked = tmp_path / "locked.key"
    ed = ed25519.Ed25519PrivateKey.generate()
    pem = ed.private_bytes(Encoding.PEM, PrivateFormat.PKCS8, BestAvailableEncryption(b"pw"))
    locked.write_bytes(pem)
    with pytest.raises(KeyFileError, match="not a usable"):
        load_or_create_server_key(locked)


def test_server_key_uncreatable(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(KeyFileError, match="cannot create"):
        load_or_create_server_key(blocker / "server.key")


def test_key_fingerprint() -> None:
    fp = key_fingerprint(bytes(32))
    assert FINGERPRINT.fullmatch(fp)
    assert fp == sha256_fingerprint(bytes(32))
    assert fp.startswith("SHA256:66:68:7A:AD:F8:62:BD:77:6C:8F:C1:8B:8E:9F:8E:20")
    with pytest.raises(ValueError):
        key_fingerprint(b"short")


def test_create_new_file_never_replaces(tmp_path: Path) -> None:
    path = tmp_path / "f"
    assert create_new_file(path, b"one", 0o600)
    assert not create_new_file(path, b"two", 0o600)
    assert path.read_bytes() == b"one"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f"]


# --- the TLS certificate -----------------------------------------------------------------------


def test_certificate_made_once_then_reused(tmp_path: Path) -> None:
    now = datetime.datetime(2030, 1, 2, tzinfo=datetime.UTC)
    files = ensure_certificate(tmp_path / "tls", now=now)
    assert files.cert_path == tmp_path / "tls" / CERT_FILE
    assert files.key_path == tmp_path / "tls" / KEY_FILE
    assert files.key_path.stat().st_mode & 0o777 == 0o600
    assert FINGERPRINT.fullmatch(files.fingerprint)
    again = ensure_certificate(tmp_path / "tls")
    assert again == files

    cert = x509.load_pem_x509_certificate(files.cert_path.read_bytes())
    assert certificate_fingerprint(files.cert_path.read_bytes()) == files.fingerprint
    assert certificate_fingerprint(cert.public_bytes(Encoding.DER)) == files.fingerprint
    assert isinstance(cert.public_key(), ec.EllipticCurvePublicKey)
    assert isinstance(cert.signature_hash_algorithm, hashes.SHA256)
    san = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert san.get_values_for_type(x509.DNSName) == ["localhost"]
    assert set(san.get_values_for_type(x509.IPAddress)) == {
        ipaddress.ip_address("127.0.0.1"),
        ipaddress.ip_address("::1"),
    }
    assert cert.not_valid_before_utc <= now
    assert cert.not_valid_after_utc - cert.not_valid_before_utc == datetime.timedelta(days=3650)


def test_key_without_certificate_is_completed(tmp_path: Path) -> None:
    first = ensure_certificate(tmp_path)
    key_pem = first.key_path.read_bytes()
    first.cert_path.unlink()  # as a crash between the two writes would leave it
    second = ensure_certificate(tmp_path)
    assert second.key_path.read_bytes() == key_pem
    assert second.cert_path.exists()


def test_certificate_without_key_is_an_error(tmp_path: Path) -> None:
    files = ensure_certificate(tmp_path)
    files.key_path.unlink()
    with pytest.raises(KeyFileError, match="missing, but its certificate"):
        ensure_certificate(tmp_path)
    assert not files.key_path.exists()  # nothing silently remade


def test_mismatched_or_corrupt_files(tmp_path: Path) -> None:
    files = ensure_certificate(tmp_path / "a")
    other = ensure_certificate(tmp_path / "b")
    files.key_path.write_bytes(other.key_path.read_bytes())
    with pytest.raises(KeyFileError, match="does not belong"):
        ensure_certificate(tmp_path / "a")
    other.cert_path.write_text("garbage")
    with pytest.raises(KeyFileError, match="not a PEM certificate"):
        ensure_certificate(tmp_path / "b")


def test_certificate_fingerprint_rejects_bad_pem() -> None:
    with pytest.raises(ValueError):
        certificate_fingerprint(b"-----BEGIN CERTIFICATE-----\nnope\n-----END CERTIFICATE-----\n")


def test_server_context(tmp_path: Path) -> None:
    files = ensure_certificate(tmp_path)
    context = server_ssl_context(files)
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2
    assert context.verify_mode == ssl.CERT_NONE
    other = ensure_certificate(tmp_path / "other")
    broken = type(files)(files.cert_path, other.key_path, files.fingerprint)
    with pytest.raises(KeyFileError, match="cannot load for TLS"):
        server_ssl_context(broken)
