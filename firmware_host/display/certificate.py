"""The display's TLS certificate made at install: self-signed ECDSA P-256, its SHA-256 fingerprint to check in the browser.

`croupier keys tls --dir DIR --host NAME [--host ADDRESS ...]` writes `DIR/display.crt` (mode 0644) and
`DIR/display.key` (mode 0600, never overwritten) for `[display] tls_cert` and `tls_key`: the pages' sign-in is
served over HTTPS off loopback (`config.py` refuses plaintext there). The certificate names every `--host` (a
DNS name or an IP address) and is valid for `VALID_DAYS`; staff check the fingerprint the command prints
against the browser's the first time they open the pages (there is no CA on a casino floor's closed network).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

VALID_DAYS = 825
"""How long a certificate holds: the longest browsers accept for a server certificate."""


class CertificateError(ValueError):
    """A certificate that cannot be made: a file already there, a host that is not a name or an address."""


def _names(hosts: list[str]) -> list[x509.GeneralName]:
    out: list[x509.GeneralName] = []
    for host in hosts:
        try:
            out.append(x509.IPAddress(ipaddress.ip_address(host)))
        except ValueError:
            if not host or any(c.isspace() or c in "/:@" for c in host):
                raise CertificateError(f"--host {host!r} is not a DNS name or an IP address") from None
            out.append(x509.DNSName(host))
    return out


def fingerprint(cert: x509.Certificate) -> str:
    """The SHA-256 fingerprint as browsers show it: `AB:CD:...`."""
    return ":".join(f"{b:02X}" for b in cert.fingerprint(hashes.SHA256()))


def make(directory: str | Path, hosts: list[str], name: str = "display",
         now: datetime.datetime | None = None) -> tuple[Path, Path, str]:
    """Write `NAME.crt` and `NAME.key` in `directory` (made if absent); return both paths and the fingerprint.
    Raises CertificateError (a file already there, a bad host) or OSError."""
    if not hosts:
        raise CertificateError("give at least one --host: the name or address the pages are opened at")
    folder = Path(directory)
    crt, key_path = folder / f"{name}.crt", folder / f"{name}.key"
    for path in (crt, key_path):
        if path.exists():
            raise CertificateError(f"{path} is already there: remove it first to make a new certificate")
    names = _names(hosts)
    key = ec.generate_private_key(ec.SECP256R1())
    start = now or datetime.datetime.now(datetime.timezone.utc)
    subject = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, hosts[0]),
                         x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Croupier display")])
    cert = (x509.CertificateBuilder().subject_name(subject).issuer_name(subject).public_key(key.public_key())
            .serial_number(x509.random_serial_number())
            .not_valid_before(start - datetime.timedelta(minutes=5))
            .not_valid_after(start + datetime.timedelta(days=VALID_DAYS))
            .add_extension(x509.SubjectAlternativeName(names), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(key, hashes.SHA256()))
    folder.mkdir(parents=True, exist_ok=True)
    fd = os.open(key_path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                  serialization.NoEncryption()))
    crt.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    crt.chmod(0o644)
    return crt, key_path, fingerprint(cert)
