"""client.known_hosts: trust on first use, the file format, and a real TLS handshake."""

from __future__ import annotations

import socket
import ssl
import threading
from pathlib import Path

import pytest
from cryptography import x509
from cryptography.hazmat.primitives.serialization import Encoding

from sushigo.client.known_hosts import (
    CertificateChanged,
    KnownHosts,
    KnownHostsError,
    client_ssl_context,
    default_known_hosts_path,
    fingerprint,
    peer_fingerprint,
)
from sushigo.server.keys import sha256_fingerprint
from sushigo.server.net.tls import (
    TlsFiles,
    certificate_fingerprint,
    ensure_certificate,
    server_ssl_context,
)

FP_A = "SHA256:" + ":".join(["AA"] * 32)
FP_B = "SHA256:" + ":".join(["BB"] * 32)


def test_new_then_known_then_changed(tmp_path: Path) -> None:
    hosts = KnownHosts(tmp_path / "cfg" / "known_hosts")
    assert hosts.check("Example.org", 7777, FP_A) == "new"
    assert hosts.path.read_text() == f"example.org:7777 {FP_A}\n"
    assert hosts.check("example.ORG", 7777, FP_A.lower()) == "known"
    assert hosts.check("example.org", 7778, FP_B) == "new"  # another port, another server
    with pytest.raises(CertificateChanged) as info:
        hosts.check("example.org", 7777, FP_B)
    error = info.value
    assert (error.stored, error.presented, error.line) == (FP_A, FP_B, 1)
    message = str(error)
    for part in ("example.org:7777", FP_A, FP_B, str(hosts.path), "line 1"):
        assert part in message
    assert hosts.lookup("example.org", 7777) == FP_A  # the refusal changed nothing


def test_ipv6_hosts_are_bracketed(tmp_path: Path) -> None:
    hosts = KnownHosts(tmp_path / "known_hosts")
    assert hosts.check("::1", 7777, FP_A) == "new"
    assert hosts.path.read_text() == f"[::1]:7777 {FP_A}\n"
    assert hosts.check("[::1]", 7777, FP_A) == "known"
    with pytest.raises(CertificateChanged, match=r"\[::1\]:7777"):
        hosts.check("::1", 7777, FP_B)


def test_comments_blank_lines_and_missing_newline(tmp_path: Path) -> None:
    path = tmp_path / "known_hosts"
    path.write_text(f"# my servers\n\n  host:1 {FP_A}  ")
    hosts = KnownHosts(path)
    assert hosts.lookup("host", 1) == FP_A
    assert hosts.lookup("host", 2) is None
    assert hosts.check("other", 2, FP_B) == "new"
    assert hosts.lookup("other", 2) == FP_B
    assert path.read_text().splitlines()[-1] == f"other:2 {FP_B}"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("host:1", "1 fields instead of 2"),
        (f"host {FP_A}", "is not HOST:PORT"),
        (f"host:0 {FP_A}", "is not HOST:PORT"),
        (f"host:99999 {FP_A}", "is not HOST:PORT"),
        (f"::1:7777 {FP_A}", "must be in brackets"),
        ("host:1 SHA256:AB", "is not a SHA256 fingerprint"),
        (f"host:1 {FP_A} extra", "3 fields"),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path: Path, line: str, reason: str) -> None:
    path = tmp_path / "known_hosts"
    path.write_text(f"# comment\nfine:1 {FP_A}\n{line}\n")
    with pytest.raises(KnownHostsError) as info:
        KnownHosts(path).check("fine", 1, FP_A)
    assert f"{path}, line 3: " in str(info.value)
    assert reason in str(info.value)


def test_duplicate_entries_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "known_hosts"
    path.write_text(f"h:1 {FP_A}\nH:1 {FP_B}\n")
    with pytest.raises(KnownHostsError, match="line 2: a second entry for h:1"):
        KnownHosts(path).lookup("h", 1)


def test_unreadable_or_unwritable_file(tmp_path: Path) -> None:
    with pytest.raises(KnownHostsError, match="cannot read"):
        KnownHosts(tmp_path).lookup("h", 1)  # a directory
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(KnownHostsError, match="cannot record"):
        KnownHosts(blocker / "known_hosts").add("h", 1, FP_A)
    with pytest.raises(ValueError):
        KnownHosts(tmp_path / "k").add("h", 1, "md5:00")


def test_default_path(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert default_known_hosts_path() == tmp_path / "sushigo" / "known_hosts"
    assert KnownHosts().path == tmp_path / "sushigo" / "known_hosts"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/ignored")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert default_known_hosts_path() == tmp_path / "home" / ".config" / "sushigo" / "known_hosts"


def test_client_and_server_fingerprints_agree(tmp_path: Path) -> None:
    files = ensure_certificate(tmp_path)
    der = x509.load_pem_x509_certificate(files.cert_path.read_bytes()).public_bytes(Encoding.DER)
    assert fingerprint(der) == files.fingerprint == certificate_fingerprint(der)
    for data in (b"", b"x", bytes(range(256))):
        assert fingerprint(data) == sha256_fingerprint(data)


def test_client_context_pins_instead_of_verifying() -> None:
    context = client_ssl_context()
    assert context.verify_mode == ssl.CERT_NONE
    assert not context.check_hostname
    assert context.minimum_version == ssl.TLSVersion.TLSv1_2


# --- a real handshake over loopback -----------------------------------------------------------


def _handshake(files: TlsFiles) -> tuple[str, str]:
    """Serve one TLS connection on 127.0.0.1; returns (client's fingerprint, TLS version)."""
    server_context = server_ssl_context(files)
    errors: list[BaseException] = []
    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(10)
        port = listener.getsockname()[1]

        def serve() -> None:
            try:
                conn, _ = listener.accept()
                conn.settimeout(10)
                with server_context.wrap_socket(conn, server_side=True) as tls:
                    tls.sendall(tls.recv(5).upper())
            except BaseException as exc:  # reported by the main thread
                errors.append(exc)

        thread = threading.Thread(target=serve, daemon=True)
        thread.start()
        with (
            socket.create_connection(("127.0.0.1", port), timeout=10) as raw,
            client_ssl_context().wrap_socket(raw, server_hostname="localhost") as tls,
        ):
            presented = peer_fingerprint(tls)
            version = tls.version() or ""
            tls.sendall(b"hello")
            assert tls.recv(5) == b"HELLO"
        thread.join(10)
    assert not thread.is_alive()
    assert not errors, errors
    return presented, version


def test_real_handshake_pins_the_certificate(tmp_path: Path) -> None:
    files = ensure_certificate(tmp_path / "server")
    hosts = KnownHosts(tmp_path / "known_hosts")
    presented, version = _handshake(files)
    assert presented == files.fingerprint
    assert version in {"TLSv1.2", "TLSv1.3"}
    assert hosts.check("127.0.0.1", 7777, presented) == "new"
    assert hosts.check("127.0.0.1", 7777, _handshake(files)[0]) == "known"

    remade = ensure_certificate(tmp_path / "remade")  # the server's files were recreated
    with pytest.raises(CertificateChanged):
        hosts.check("127.0.0.1", 7777, _handshake(remade)[0])
