"""`croupier integrity key|sign|verify`: the code's Ed25519-signed manifest (`docs/security.md`).

`key --out FILE` writes a new signing key pair: FILE (the secret key, mode 0600: keep it off the
Pi) and FILE.pub (the public key the Pi verifies with); an existing file is never overwritten.
`sign --key FILE [--out MANIFEST] [--profiles DIR]` writes the manifest of the installed code
(every file of `engine`, `drivers` and `firmware_host`) and of the profiles directory, signed.
`verify --manifest FILE --pubkey FILE [--profiles DIR]` checks the signature and every file: exit 0
with a summary, 1 naming each file changed, missing or added (or a refused signature), 2 when an
argument cannot be used (no such file, not a manifest, not a key).
"""

from __future__ import annotations

import argparse
import sys

from firmware_host.service import manifest as mf
from protocol.audit import software_version


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="action", required=True, metavar="ACTION")
    key = sub.add_parser("key", help="make a signing key pair", description="make a signing key pair")
    key.add_argument("--out", required=True, metavar="FILE", help="the secret key's file (the public key: FILE.pub)")
    sign = sub.add_parser("sign", help="write the signed manifest of the installed code and profiles",
                          description="write the signed manifest of the installed code and profiles")
    sign.add_argument("--key", required=True, metavar="FILE", help="the secret signing key")
    sign.add_argument("--out", default="manifest.json", metavar="MANIFEST",
                      help="where to write it (default manifest.json)")
    sign.add_argument("--profiles", metavar="DIR", help="the profiles directory ([security] profiles)")
    verify = sub.add_parser("verify", help="check the manifest's signature and every file",
                            description="check the manifest's signature and every file")
    verify.add_argument("--manifest", required=True, metavar="FILE", help="the signed manifest")
    verify.add_argument("--pubkey", required=True, metavar="FILE", help="the public key it is signed with")
    verify.add_argument("--profiles", metavar="DIR", help="the profiles directory ([security] profiles)")


def main(args: argparse.Namespace) -> int:
    try:
        if args.action == "key":
            return _key(args.out)
        if args.action == "sign":
            return _sign(args.key, args.out, args.profiles)
        return _verify(args.manifest, args.pubkey, args.profiles)
    except mf.ManifestError as exc:
        print(f"croupier integrity: {exc}", file=sys.stderr)
        return 2


def _key(out: str) -> int:
    public = mf.new_key_pair(out)
    print(f"signing key pair written: secret key {out} (mode 0600: keep it off the Pi), public key {public}")
    return 0


def _sign(key_path: str, out: str, profiles: str | None) -> int:
    secret = mf.load_secret_key(key_path)
    files = mf.installed_files()
    files.update(mf.profile_files(profiles))
    manifest = mf.sign(mf.build(software_version(), files), secret)
    try:
        mf.write_manifest(out, manifest)
    except OSError as exc:
        raise mf.ManifestError(f"{out}: cannot write the manifest: {exc.strerror or exc}") from exc
    print(f"manifest signed: {out}: {len(files)} files, version {manifest['version']}, "
          f"sha256 {mf.file_hash(out)}")
    return 0


def _verify(manifest_path: str, key_path: str, profiles: str | None) -> int:
    public = mf.load_public_key(key_path)
    manifest = mf.load(manifest_path)
    actual = mf.installed_files()
    actual.update(mf.profile_files(profiles))
    try:
        checked = mf.verify(manifest, public, actual)
    except mf.SignatureRefused as exc:
        print(f"manifest REFUSED: {manifest_path}: {exc}", file=sys.stderr)
        return 1
    if not checked.ok:
        print(f"code CHANGED: {len(checked.differences)} file(s) differ from {manifest_path}:", file=sys.stderr)
        for d in checked.differences:
            print(f"  {d}", file=sys.stderr)
        return 1
    print(f"code ok: {manifest_path}: signature holds, {checked.files} files as signed "
          f"(version {checked.version}; installed {software_version()}), sha256 {mf.file_hash(manifest_path)}")
    return 0
