"""Sign-in to the display (`display/auth.py`): a real `croupier display` with a users file, over HTTP and over TLS, and its form in Chromium."""

from __future__ import annotations

import datetime
import http.client
import ipaddress
import json
import ssl
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID
from playwright.sync_api import Page

from pages.auth import MAX_TRIES, SESSION_COOKIE
from protocol.users import Users
from tests.web.people import person
from tests.web.teardown import screens_closer


def _users_file(path: Path) -> Path:
    Users({"ana": person("ana", "dealer", "4821"), "sam": person("sam", "surveillance", "7391"),
           "sue": person("sue", "supervisor", "5550")}).save(path)
    return path


def _self_signed(folder: Path) -> tuple[Path, Path]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "127.0.0.1")])
    now = datetime.datetime.now(datetime.timezone.utc)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]),
                           critical=False)
            .sign(key, hashes.SHA256()))
    cert_path, key_path = folder / "display.crt", folder / "display.key"
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    key_path.chmod(0o600)  # a private key others may read is refused (protocol/file_modes.py)
    return cert_path, key_path


@pytest.fixture
def served(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Callable[..., dict[str, Any]]]:
    """`served(extra="")`: a `croupier display` (no table behind it) with the users file; its ready line."""
    procs: list[subprocess.Popen[str]] = []
    close_screens = screens_closer(request)

    def start(extra: str = "") -> dict[str, Any]:
        users = _users_file(tmp_path / "users.json")
        config = tmp_path / f"display{len(procs)}.toml"
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\npublic = "tcp://127.0.0.1:9"\n'
                          f'snapshot = "tcp://127.0.0.1:9"\nusers = "{users}"\n{extra}', encoding="utf-8")
        proc = subprocess.Popen([sys.executable, "-m", "cli", "display", "--config", str(config)],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        procs.append(proc)
        line = proc.stdout.readline() if proc.stdout else ""
        assert line, proc.stderr.read() if proc.stderr else "no ready line"
        ready: dict[str, Any] = json.loads(line)
        return ready

    yield start
    close_screens()  # the test's pages first: the process then stops at once
    for proc in procs:
        proc.terminate()
        proc.wait(timeout=10)


def _request(base: str, method: str, path: str, body: Any = None, cookie: str | None = None,
             context: ssl.SSLContext | None = None) -> tuple[int, dict[str, Any], http.client.HTTPMessage]:
    scheme, _, hostport = base.partition("://")
    host, _, port = hostport.rpartition(":")
    conn: http.client.HTTPConnection
    if scheme == "https":
        conn = http.client.HTTPSConnection(host, int(port), context=context, timeout=10)
    else:
        conn = http.client.HTTPConnection(host, int(port), timeout=10)
    headers = {"Content-Type": "application/json", "Origin": base}  # a browser's own page (guard.py)
    if cookie:
        headers["Cookie"] = f"{SESSION_COOKIE}={cookie}"
    conn.request(method, path, body=None if body is None else json.dumps(body), headers=headers)
    response = conn.getresponse()
    data = json.loads(response.read() or b"{}")
    conn.close()
    return response.status, data, response.headers


def _cookie(headers: http.client.HTTPMessage) -> tuple[str, str]:
    """The session cookie's token and the whole Set-Cookie line."""
    for line in headers.get_all("Set-Cookie") or []:
        if line.startswith(f"{SESSION_COOKIE}="):
            return line.split(";")[0].split("=", 1)[1], line
    raise AssertionError(f"no {SESSION_COOKIE} cookie in {headers.items()}")


def test_sign_in_gives_a_session_with_the_users_role_and_a_wrong_pin_none(served: Callable[..., dict[str, Any]]) -> None:
    base = served()["display"]
    status, body, _ = _request(base, "POST", "/api/signin", {"user": "ana", "pin": "0000"})
    assert (status, body) == (401, {"error": "wrong user or PIN"})
    status, body, _ = _request(base, "POST", "/api/signin", {"user": "nobody", "pin": "4821"})
    assert (status, body) == (401, {"error": "wrong user or PIN"})
    assert _request(base, "GET", "/api/me")[0] == 401
    status, body, headers = _request(base, "POST", "/api/signin", {"user": "ana", "pin": "4821"})
    assert (status, body) == (200, {"user": "ana", "role": "dealer"})
    token, line = _cookie(headers)
    assert "HttpOnly" in line and "SameSite=Strict" in line and "Secure" not in line
    assert "Strict-Transport-Security" not in headers and headers["X-Frame-Options"] == "DENY"
    assert _request(base, "GET", "/api/me", cookie=token)[:2] == (200, {"user": "ana", "role": "dealer"})
    assert _request(base, "GET", "/api/me", cookie="forged")[0] == 401
    assert _request(base, "POST", "/api/signout", cookie=token)[0] == 200
    assert _request(base, "GET", "/api/me", cookie=token)[0] == 401


def test_bad_sign_in_bodies_are_refused_clearly(served: Callable[..., dict[str, Any]]) -> None:
    base = served()["display"]
    for body in (None, [], {"user": "ana"}, {"user": 3, "pin": 4821}, {"user": "a" * 1000, "pin": "1"}):
        status, data, _ = _request(base, "POST", "/api/signin", body)
        assert status in (400, 401) and data["error"], (body, status, data)


def test_repeated_failures_lock_the_user_out_for_a_while(served: Callable[..., dict[str, Any]]) -> None:
    base = served()["display"]
    for _ in range(MAX_TRIES):
        assert _request(base, "POST", "/api/signin", {"user": "sue", "pin": "1111"})[0] == 401
    status, body, _ = _request(base, "POST", "/api/signin", {"user": "sue", "pin": "5550"})
    assert status == 429 and "too many" in body["error"]


def test_pages_over_tls_mark_the_cookie_secure(served: Callable[..., dict[str, Any]], tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    ready = served(f'tls_cert = "{cert}"\ntls_key = "{key}"\n')
    assert ready["display"].startswith("https://")
    context = ssl.create_default_context(cafile=str(cert))
    status, body, headers = _request(ready["display"], "POST", "/api/signin", {"user": "sam", "pin": "7391"},
                                     context=context)
    assert (status, body) == (200, {"user": "sam", "role": "surveillance"})
    assert "Secure" in _cookie(headers)[1]
    assert headers["Strict-Transport-Security"] == "max-age=31536000"  # over TLS only (guard.py)
    with pytest.raises(ssl.SSLError):  # a client that does not trust the certificate is not let through
        _request(ready["display"], "GET", "/api/me", context=ssl.create_default_context())


def test_tls_settings_are_checked_at_start(tmp_path: Path) -> None:
    cert, key = _self_signed(tmp_path)
    wrong = tmp_path / "wrong.key"  # the certificate given as its key
    wrong.write_bytes(cert.read_bytes())
    wrong.chmod(0o600)
    open_key = tmp_path / "open.key"  # the key, readable by everyone
    open_key.write_bytes(key.read_bytes())
    open_key.chmod(0o644)
    for extra, words in ((f'tls_cert = "{cert}"\n', "give both or neither"),
                         (f'tls_cert = "{cert}"\ntls_key = "{tmp_path / "none.key"}"\n', "no such file"),
                         (f'tls_cert = "{cert}"\ntls_key = "{wrong}"\n', "not a certificate and its key"),
                         (f'tls_cert = "{cert}"\ntls_key = "{open_key}"\n', f"[display] tls_key: TLS private key "
                                                                          f"{open_key} is mode 0644")):
        config = tmp_path / "bad.toml"
        config.write_text(f'[display]\nlisten = "127.0.0.1:0"\n{extra}', encoding="utf-8")
        run = subprocess.run([sys.executable, "-m", "cli", "display", "--config", str(config)],
                             capture_output=True, text=True, timeout=30)
        assert run.returncode == 2 and words in run.stderr and "Traceback" not in run.stderr, run.stderr


def test_the_sign_in_form_in_chromium(served: Callable[..., dict[str, Any]], page: Page) -> None:
    base = served()["display"]
    page.goto(base + "/api/me")  # a page of the display's origin, then the form's module on it
    page.evaluate("""async () => {
        document.body.innerHTML = '<div id=root></div>';
        const m = await import('/static/signin.js');
        window.result = m.signIn(document.getElementById('root'), ['dealer', 'supervisor'], 'Dealer console');
    }""")
    page.fill("[data-signin] input[name=user]", "sam")
    page.fill("[data-signin] input[name=pin]", "7391")
    page.click("[data-signin] button")
    page.wait_for_selector("[data-signin-error]:not([hidden])")
    assert "sam is a surveillance" in page.inner_text("[data-signin-error]")
    page.fill("[data-signin] input[name=user]", "ana")
    page.fill("[data-signin] input[name=pin]", "1234")
    page.click("[data-signin] button")
    page.wait_for_function("() => document.querySelector('[data-signin-error]').textContent.includes('wrong')")
    page.fill("[data-signin] input[name=pin]", "4821")
    page.click("[data-signin] button")
    assert page.evaluate("window.result") == {"user": "ana", "role": "dealer"}
    assert page.evaluate("fetch('/api/me').then(r => r.json())") == {"user": "ana", "role": "dealer"}
