"""Trust on first use for TLS servers: remember each server's certificate fingerprint.

Game servers use self-signed certificates, so there is no authority to check them against.
Instead the client pins: the first connection to ``host:port`` records the certificate's
fingerprint, later connections must present the same certificate, and a different one is
refused with a message saying exactly which line of which file to delete if the change is
expected (the server's files were recreated). This is SSH's model, and its caveat: the very
first connection is trusted blindly, so compare the fingerprint the server prints at start-up.

The file holds one entry per line, ``HOST:PORT FINGERPRINT``, with IPv6 hosts in brackets
(``[::1]:7777``); blank lines and lines starting with ``#`` are ignored. A fingerprint is
``"SHA256:"`` and the SHA-256 of the DER certificate as colon-separated upper-case hex pairs,
the format ``sushigo-server --tls`` prints (the server computes it independently; a test checks
that the two agree).

Typical use, after the TLS handshake and before sending anything::

    KnownHosts().check(host, port, peer_fingerprint(writer.get_extra_info("ssl_object")))
"""

from __future__ import annotations

import hashlib
import os
import re
import ssl
from pathlib import Path
from typing import Final, Literal

__all__ = [
    "CertificateChanged",
    "KnownHosts",
    "KnownHostsError",
    "client_ssl_context",
    "default_known_hosts_path",
    "fingerprint",
    "peer_fingerprint",
]

_FINGERPRINT: Final = re.compile(r"SHA256:[0-9A-F]{2}(?::[0-9A-F]{2}){31}")


def fingerprint(der: bytes) -> str:
    """The fingerprint of a DER certificate: ``"SHA256:"`` and colon-separated hex pairs."""
    return "SHA256:" + hashlib.sha256(der).digest().hex(":").upper()


class KnownHostsError(Exception):
    """The known-hosts file cannot be read, parsed or written."""


class CertificateChanged(KnownHostsError):
    """A server presented a certificate other than the one pinned for it: refuse to talk."""

    def __init__(
        self, host: str, port: int, stored: str, presented: str, path: Path, line: int
    ) -> None:
        super().__init__(
            f"the TLS certificate of {_address(host, port)} has changed: it was {stored}, it is "
            f"now {presented}. This may be an attack, or the server's certificate was remade. "
            f"If you trust the new one, delete line {line} of {path} and connect again."
        )
        self.host = host
        """The server's host, as given to `KnownHosts.check`."""
        self.port = port
        """The server's port."""
        self.stored = stored
        """The pinned fingerprint."""
        self.presented = presented
        """The fingerprint the server presented now."""
        self.path = path
        """The known-hosts file."""
        self.line = line
        """The line of `path` holding the pinned entry (from 1)."""


def default_known_hosts_path() -> Path:
    """``$XDG_CONFIG_HOME/sushigo/known_hosts``, else ``~/.config/sushigo/known_hosts``
    (``%APPDATA%\\sushigo\\known_hosts`` on Windows)."""
    if os.name == "nt" and os.environ.get("APPDATA"):
        return Path(os.environ["APPDATA"]) / "sushigo" / "known_hosts"
    config = os.environ.get("XDG_CONFIG_HOME", "")
    # The XDG spec says a relative value is invalid and must be ignored.
    base = Path(config) if os.path.isabs(config) else Path.home() / ".config"
    return base / "sushigo" / "known_hosts"


def _address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _normal_host(host: str) -> str:
    # Host names are case-insensitive; brackets are notation, not part of an IPv6 address.
    return host.strip().strip("[]").lower()


class KnownHosts:
    """The pinned certificate fingerprints, in a text file (re-read on every call, so edits
    made while the client runs are honoured)."""

    def __init__(self, path: str | os.PathLike[str] | None = None) -> None:
        self.path = Path(path) if path is not None else default_known_hosts_path()
        """The file (it need not exist yet)."""

    def _entries(self) -> dict[tuple[str, int], tuple[str, int]]:
        """``(host, port) -> (fingerprint, line number)`` for every entry in the file."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError) as exc:
            raise KnownHostsError(f"{self.path}: cannot read: {exc}") from None
        entries: dict[tuple[str, int], tuple[str, int]] = {}
        for number, raw in enumerate(text.splitlines(), start=1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            key, fp = self._parse(line, number)
            if key in entries:
                first = entries[key][1]
                raise KnownHostsError(
                    f"{self.path}, line {number}: a second entry for {_address(*key)} "
                    f"(the first is on line {first}); keep one"
                )
            entries[key] = (fp, number)
        return entries

    def _parse(self, line: str, number: int) -> tuple[tuple[str, int], str]:
        def bad(reason: str) -> KnownHostsError:
            return KnownHostsError(
                f"{self.path}, line {number}: {reason}; expected 'HOST:PORT SHA256:AB:CD:...'"
                " (fix or delete the line)"
            )

        fields = line.split()
        if len(fields) != 2:
            raise bad(f"{len(fields)} fields instead of 2")
        address, fp = fields
        host, sep, port_text = address.rpartition(":")
        if not sep or not host or not port_text.isdigit() or not 0 < int(port_text) < 65536:
            raise bad(f"{address!r} is not HOST:PORT")
        if ":" in host and not (host.startswith("[") and host.endswith("]")):
            raise bad(f"the IPv6 address in {address!r} must be in brackets")
        if not _FINGERPRINT.fullmatch(fp.upper()):
            raise bad(f"{fp!r} is not a SHA256 fingerprint")
        return (_normal_host(host), int(port_text)), fp.upper()

    def lookup(self, host: str, port: int) -> str | None:
        """The fingerprint pinned for ``host:port``, or None."""
        found = self._entries().get((_normal_host(host), port))
        return None if found is None else found[0]

    def add(self, host: str, port: int, fingerprint: str) -> None:
        """Pin ``host:port`` to `fingerprint` (appending a line; the file and its directory are
        created if needed). Does not check for an existing entry: `check` does."""
        fp = fingerprint.upper()
        if not _FINGERPRINT.fullmatch(fp):
            raise ValueError(f"not a SHA256 fingerprint: {fingerprint!r}")
        line = f"{_address(_normal_host(host), port)} {fp}\n"
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            # One small O_APPEND write: concurrent clients cannot interleave inside a line.
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            try:
                if os.fstat(fd).st_size and not self._ends_with_newline():
                    line = "\n" + line
                os.write(fd, line.encode("utf-8"))
                os.fsync(fd)
            finally:
                os.close(fd)
        except OSError as exc:
            raise KnownHostsError(f"{self.path}: cannot record {host}:{port}: {exc}") from None

    def _ends_with_newline(self) -> bool:
        with self.path.open("rb") as file:
            file.seek(-1, os.SEEK_END)
            return file.read(1) == b"\n"

    def check(self, host: str, port: int, fingerprint: str) -> Literal["new", "known"]:
        """Trust on first use: ``"new"`` (now pinned) for an unknown server, ``"known"`` for a
        matching one. Raises `CertificateChanged` for a different certificate, and
        `KnownHostsError` for a malformed file (naming the file and line)."""
        presented = fingerprint.upper()
        found = self._entries().get((_normal_host(host), port))
        if found is None:
            self.add(host, port, presented)
            return "new"
        stored, line = found
        if stored != presented:
            raise CertificateChanged(host, port, stored, presented, self.path, line)
        return "known"


def client_ssl_context() -> ssl.SSLContext:
    """A client context for pinned servers: TLS 1.2 or later, no CA or host-name checks.

    Skipping verification is safe only because the caller then checks `peer_fingerprint`
    against `KnownHosts` before sending anything over the connection.
    """
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.check_hostname = False  # must be turned off before verify_mode may be CERT_NONE
    context.verify_mode = ssl.CERT_NONE
    return context


def peer_fingerprint(ssl_object: ssl.SSLObject | ssl.SSLSocket) -> str:
    """The fingerprint of the certificate the server presented in a completed handshake."""
    der = ssl_object.getpeercert(binary_form=True)
    if not der:
        raise KnownHostsError("the server presented no TLS certificate")
    return fingerprint(der)
