#!/usr/bin/env bash
# Install (or update) Croupier on a Raspberry Pi (Raspberry Pi OS / Debian) from this checkout.
#
#   sudo deploy/install-pi.sh              install or update, enable the services (controller, display)
#   deploy/install-pi.sh --dry-run         print every step, change nothing
#   deploy/install-pi.sh --root DIR        install the files under DIR (a staging tree or an image);
#                                          user, udev and systemctl steps are only printed, and a
#                                          venv built there names DIR in its scripts (--no-venv)
#   sudo deploy/install-pi.sh --sign-key /media/usb/table-sign.key
#                                          also sign the installed code's manifest with the key on a
#                                          removable stick (never copied onto the Pi): it writes
#                                          /etc/croupier/manifest.json and manifest.pub
#
# Safe to run again: the user, the venv, /etc/croupier/table.toml, /etc/croupier/display.toml and the
# table's CURVE key (/etc/croupier/keys/table.key_secret) are created only when absent (an edited
# configuration is never overwritten); the package, the units (croupier.service, the controller;
# croupier-display.service, its pages) and the udev rules (the shoe's, the chip reader board's) are
# refreshed, and a running service is restarted on the new code. See docs/deploy.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: install-pi.sh [--dry-run] [--root DIR] [--python PYTHON] [--no-venv] [--compile] [--sign-key FILE]
  --dry-run        print what would be done, do nothing
  --root DIR       install under DIR instead of / (system steps printed, not run)
  --python PYTHON  the interpreter for the venv (default python3; Python 3.11 or later)
  --no-venv        leave /opt/croupier/venv alone (files, user and service only)
  --compile        also compile the engine with mypyc (a C compiler and the Python headers needed): the
                   controller runs no faster for it and holds ~6 MB more (docs/benchmarks.md); pure by default
  --sign-key FILE  sign the installed code's manifest with this secret key (kept off the Pi:
                   a removable stick); writes /etc/croupier/manifest.json and manifest.pub
EOF
}

DRY_RUN=0
ROOT=""
PYTHON=python3
VENV_STEP=1
COMPILE_STEP=0
SIGN_KEY=""
while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; ROOT="${2%/}"; shift ;;
        --root=*) ROOT="${1#--root=}"; ROOT="${ROOT%/}" ;;
        --python) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; PYTHON="$2"; shift ;;
        --no-venv) VENV_STEP=0 ;;
        --compile) COMPILE_STEP=1 ;;
        --sign-key) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; SIGN_KEY="$2"; shift ;;
        --sign-key=*) SIGN_KEY="${1#--sign-key=}" ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
USER_NAME=croupier
GROUPS_EXTRA=(dialout gpio spi)   # spi: /dev/spidev*, the PN5180 chip reader
VENV=/opt/croupier/venv
STATE_DIR=/var/lib/croupier
CONF_DIR=/etc/croupier
CONF="$CONF_DIR/table.toml"
UNIT=/etc/systemd/system/croupier.service
DISPLAY_UNIT=/etc/systemd/system/croupier-display.service   # the pages, below the controller
DISPLAY_CONF="$CONF_DIR/display.toml"
FIREWALL_UNIT=/etc/systemd/system/croupier-firewall.service   # per-address connection limits (nftables)
RULES=/etc/udev/rules.d/99-croupier-shoe.rules
CHIP_RULES=/etc/udev/rules.d/99-croupier-chips.rules   # a smart table's chip reader board
MANIFEST="$CONF_DIR/manifest.json"
MANIFEST_KEY="$CONF_DIR/manifest.pub"
PROFILES_DIR="$CONF_DIR/profiles"
KEYS_DIR="$CONF_DIR/keys"          # the table's own key pair: [security] server_key
CLIENTS_DIR="$CONF_DIR/clients"    # the client keys let in: [security] clients
TABLE_KEY="$KEYS_DIR/table.key_secret"
TLS_DIR="$CONF_DIR/tls"            # the display's HTTPS certificate: [display] tls_cert, tls_key
TLS_KEY="$TLS_DIR/display.key"

for f in deploy/croupier.service deploy/croupier-display.service deploy/croupier-firewall.service deploy/99-croupier-shoe.rules \
         deploy/99-croupier-chips.rules deploy/pi.toml deploy/display.toml pyproject.toml; do
    [[ -f "$SRC/$f" ]] || { echo "install-pi.sh: $SRC/$f is missing: run me from a Croupier checkout" >&2; exit 1; }
done
if [[ -n "$SIGN_KEY" && ( ! -f "$SIGN_KEY" || ! -f "$SIGN_KEY.pub" ) ]]; then
    echo "install-pi.sh: --sign-key $SIGN_KEY: needs the secret key and its $SIGN_KEY.pub" \
         "(croupier integrity key --out FILE, on the signing machine)" >&2
    exit 2
fi
if [[ $DRY_RUN -eq 0 && -z "$ROOT" && $EUID -ne 0 ]]; then
    echo "install-pi.sh: run as root (sudo), or use --dry-run / --root DIR" >&2
    exit 1
fi

# A step that changes the machine: printed, then run (unless --dry-run).
run() {
    if [[ $DRY_RUN -eq 1 ]]; then
        echo "would run: $*"
    else
        echo "+ $*"
        "$@"
    fi
}

# A step on the live system (users, udev, systemd): never run under --root.
system() {
    if [[ -n "$ROOT" ]]; then
        echo "skip (--root): $*"
    else
        run "$@"
    fi
}

note() { echo "ok: $*"; }

# -- the service user ------------------------------------------------------------------------------
for group in "${GROUPS_EXTRA[@]}"; do
    if [[ -z "$ROOT" ]] && getent group "$group" >/dev/null; then
        note "group $group exists"
    else
        system groupadd --system "$group"
    fi
done
if [[ -z "$ROOT" ]] && getent passwd "$USER_NAME" >/dev/null; then
    note "user $USER_NAME exists"
else
    system useradd --system --user-group --home-dir "$STATE_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Croupier table controller" "$USER_NAME"
fi
system usermod --append --groups "$(IFS=,; echo "${GROUPS_EXTRA[*]}")" "$USER_NAME"

# -- directories -----------------------------------------------------------------------------------
owner=()
[[ -z "$ROOT" ]] && owner=(-o "$USER_NAME" -g "$USER_NAME")
run install -d -m 0755 "$ROOT$CONF_DIR" "$ROOT/opt/croupier" "$ROOT/etc/systemd/system" "$ROOT/etc/udev/rules.d"
run install -d -m 0750 "${owner[@]}" "$ROOT$STATE_DIR"

# -- the engine compiled by mypyc (docs/architecture.md, "The compiled engine") ------------------------------------
# An optional accelerator over the same source, as msgpack's and pyzmq's C extensions are: built in the staging
# directory by mypy's mypyc (pinned as in the dev extra, in a throw-away venv), its extensions and its `__init__.py`
# (engine.COMPILED = True) then put beside the installed engine's modules, where the code manifest hashes them.
# Every extension an earlier install left is taken away first: the pure engine runs unless --compile asks for it
# (at the table it pays nothing: the controller's CPU a card the same within the bench's noise, its RSS 6 MB more:
# docs/benchmarks.md), and wherever the build cannot be made (no C compiler, no Python headers, no network for mypy)
# or fails, and the install goes on.
compile_engine() {
    local site
    if [[ $DRY_RUN -eq 1 ]]; then
        if [[ $COMPILE_STEP -eq 1 ]]; then echo "would run: $SRC/tools/compile_engine.py (mypyc) into the venv's engine"; fi
        return 0
    fi
    site="$("$ROOT$VENV/bin/python" -c 'import engine, os; print(os.path.dirname(os.path.abspath(engine.__file__)))')"
    find "$site" -name '*.so' -print -delete
    if [[ $COMPILE_STEP -eq 0 ]]; then note "the pure engine (--compile to compile it by mypyc)"; return; fi
    if ! command -v cc >/dev/null || ! "$PYTHON" -c 'import os, sys, sysconfig
sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))'; then
        note "the pure engine: no C compiler or Python headers to compile it (sudo apt install gcc python3-dev)"
        return
    fi
    if run "$PYTHON" -m venv "$STAGE/mypyc" && run "$STAGE/mypyc/bin/python" -m pip install --quiet "mypy==2.4.1" setuptools \
            && run "$STAGE/mypyc/bin/python" "$SRC/tools/compile_engine.py" "$STAGE/compiled"; then
        (cd "$STAGE/compiled/engine" && find . -name '*.so' -exec install -D -m 0644 {} "$site/{}" \;)
        run install -m 0644 "$STAGE/compiled/engine/__init__.py" "$site/__init__.py"
        if "$ROOT$VENV/bin/python" -c 'import engine, engine.poker.state, engine.house; assert engine.COMPILED'; then
            note "the engine compiled by mypyc (engine.COMPILED)"
        else   # built but not importable here: back to the pure engine
            find "$site" -name '*.so' -delete
            run install -m 0644 "$STAGE/engine/__init__.py" "$site/__init__.py"
            echo "warning: the compiled engine does not import (above): the pure engine runs" >&2
        fi
    else
        echo "warning: the engine could not be compiled (above): the pure engine runs" >&2
    fi
}

# -- the package, in its own venv ------------------------------------------------------------------
if [[ $VENV_STEP -eq 1 ]]; then
    if [[ -x "$ROOT$VENV/bin/python" ]]; then
        note "venv $ROOT$VENV exists"
    else
        # System site packages visible: the Pi's GPIO library comes from apt (python3-lgpio).
        run "$PYTHON" -m venv --system-site-packages "$ROOT$VENV"
    fi
    run "$ROOT$VENV/bin/python" -m pip install --quiet --upgrade pip
    # Only what the Pi runs: the table's folders (protocol/packages.py TABLE: engine, drivers, protocol, pages,
    # firmware_host, cli), copied beside the pyproject into a staging directory and installed from there;
    # the floor server, the analysis and the simulations stay off the table (`croupier demo` there says so).
    STAGE="$(mktemp -d)"
    trap 'rm -rf "$STAGE"' EXIT
    read -r -a TABLE_FOLDERS <<< "$(cd "$SRC" && "$PYTHON" -c 'from protocol.packages import TABLE; print(*TABLE)')"
    run cp "$SRC/pyproject.toml" "$SRC/README.md" "$STAGE/"
    for folder in "${TABLE_FOLDERS[@]}"; do
        run cp -r "$SRC/$folder" "$STAGE/$folder"
    done
    run "$ROOT$VENV/bin/python" -m pip install --quiet --no-compile --upgrade "$STAGE[web]"  # web: croupier display
    compile_engine
    if [[ $DRY_RUN -eq 0 ]] && ! "$ROOT$VENV/bin/python" -c "import lgpio" 2>/dev/null; then
        echo "warning: the venv cannot import lgpio, needed by [gpio] pin_factory = \"lgpio\":" \
             "sudo apt install python3-lgpio" >&2
    fi
else
    note "venv left alone (--no-venv)"
fi

# -- unit, udev rule, configuration ----------------------------------------------------------------
run install -m 0644 "$SRC/deploy/croupier.service" "$ROOT$UNIT"
run install -m 0644 "$SRC/deploy/croupier-display.service" "$ROOT$DISPLAY_UNIT"
run install -m 0644 "$SRC/deploy/croupier-firewall.service" "$ROOT$FIREWALL_UNIT"
# A udev rule holds the ids a technician set for this table's device (CHANGE ME in the shipped one): an
# installed rule that differs from the shipped one is kept, as the configuration is.
install_rule() {
    if [[ -e "$ROOT$2" ]] && ! cmp -s "$1" "$ROOT$2"; then
        note "keeping $ROOT$2 (its ids edited by you; compare with $1 after an update)"
    else
        run install -m 0644 "$1" "$ROOT$2"
    fi
}
install_rule "$SRC/deploy/99-croupier-shoe.rules" "$RULES"
install_rule "$SRC/deploy/99-croupier-chips.rules" "$CHIP_RULES"  # names nothing until a board with its ids is plugged in
if [[ -e "$ROOT$CONF" ]]; then
    note "keeping $ROOT$CONF (edited by you; compare with $SRC/deploy/pi.toml after an update)"
else
    conf_owner=()
    [[ -z "$ROOT" ]] && conf_owner=(-o root -g "$USER_NAME")
    run install -m 0640 "${conf_owner[@]}" "$SRC/deploy/pi.toml" "$ROOT$CONF"
fi
if [[ -e "$ROOT$DISPLAY_CONF" ]]; then
    note "keeping $ROOT$DISPLAY_CONF (edited by you; compare with $SRC/deploy/display.toml after an update)"
else
    conf_owner=()
    [[ -z "$ROOT" ]] && conf_owner=(-o root -g "$USER_NAME")
    run install -m 0640 "${conf_owner[@]}" "$SRC/deploy/display.toml" "$ROOT$DISPLAY_CONF"
fi

# -- the code's signed manifest (docs/security.md, "Code integrity") -------------------------------
# Signed after the package is installed, before the service is (re)started on it: with [security]
# manifest set, a start on code that differs from the manifest is refused. The secret key is read
# from where it lies (a removable stick) and never copied; only its public half goes to the Pi.
if [[ -n "$SIGN_KEY" ]]; then
    if [[ ! -x "$ROOT$VENV/bin/croupier" && $DRY_RUN -eq 0 ]]; then
        echo "install-pi.sh: --sign-key: no $ROOT$VENV/bin/croupier to sign with (install the venv first)" >&2
        exit 1
    fi
    sign_args=(integrity sign --key "$SIGN_KEY" --out "$ROOT$MANIFEST")
    [[ -d "$ROOT$PROFILES_DIR" ]] && sign_args+=(--profiles "$ROOT$PROFILES_DIR")
    run "$ROOT$VENV/bin/croupier" "${sign_args[@]}"
    run install -m 0644 "$SIGN_KEY.pub" "$ROOT$MANIFEST_KEY"
    run chmod 0644 "$ROOT$MANIFEST"
    echo "next: remove the stick holding $SIGN_KEY; set [security] manifest = \"$MANIFEST\" and" \
         "manifest_key = \"$MANIFEST_KEY\" in $CONF if not yet"
elif [[ -e "$ROOT$CONF" ]] && grep -Eq '^[[:space:]]*manifest[[:space:]]*=' "$ROOT$CONF"; then
    echo "warning: $CONF names a [security] manifest but no --sign-key was given: the service refuses" \
         "to start on the new code until it is signed again (sudo deploy/install-pi.sh --sign-key FILE)" >&2
fi

# -- keys: the table's own CURVE key, and the directory of the client keys it lets in --------------
# (docs/deploy.md "Secure set-up"; the service reads them, root alone writes them)
key_owner=()
[[ -z "$ROOT" ]] && key_owner=(-o root -g "$USER_NAME")
run install -d -m 0750 "${key_owner[@]}" "$ROOT$KEYS_DIR" "$ROOT$CLIENTS_DIR"
if [[ -e "$ROOT$TABLE_KEY" ]]; then
    note "keeping the table's key $ROOT$TABLE_KEY"
elif [[ $DRY_RUN -eq 1 || -x "$ROOT$VENV/bin/croupier" ]]; then
    run "$ROOT$VENV/bin/croupier" keys new table --role table --dir "$ROOT$KEYS_DIR"
    [[ -z "$ROOT" ]] && run chgrp "$USER_NAME" "$ROOT$TABLE_KEY"
    run chmod 0640 "$ROOT$TABLE_KEY"
else
    echo "next: make the table's key: croupier keys new table --role table --dir $KEYS_DIR (docs/deploy.md)"
fi

# -- the display's HTTPS certificate: sign-in off loopback is refused in plaintext --------------------
# (docs/deploy.md "The display"); self-signed, made once: its fingerprint is printed to check in the browser
run install -d -m 0750 "${key_owner[@]}" "$ROOT$TLS_DIR"
if [[ -e "$ROOT$TLS_KEY" ]]; then
    note "keeping the display's certificate in $ROOT$TLS_DIR"
elif [[ $DRY_RUN -eq 1 || -x "$ROOT$VENV/bin/croupier" ]]; then
    tls_hosts=(--host "$(hostname).local")
    for address in $(hostname -I 2>/dev/null); do tls_hosts+=(--host "$address"); done
    run "$ROOT$VENV/bin/croupier" keys tls --dir "$ROOT$TLS_DIR" "${tls_hosts[@]}"
    [[ -z "$ROOT" ]] && run chgrp "$USER_NAME" "$ROOT$TLS_KEY"
    run chmod 0640 "$ROOT$TLS_KEY"
else
    echo "next: make the display's certificate: croupier keys tls --dir $TLS_DIR --host NAME (docs/deploy.md)"
fi

# -- the controller's real-time policy (docs/deploy.md, "Scheduling"): a kernel built with RT group scheduling
# refuses it to a service's cgroup, and the unit then fails to start (status 214/SETSCHEDULER)
if [[ -z "$ROOT" ]]; then
    kernel_config=""
    if [[ -r /proc/config.gz ]]; then kernel_config="$(zcat /proc/config.gz 2>/dev/null || true)"
    elif [[ -r "/boot/config-$(uname -r)" ]]; then kernel_config="$(cat "/boot/config-$(uname -r)")"; fi
    if grep -q '^CONFIG_RT_GROUP_SCHED=y' <<< "$kernel_config"; then
        echo "warning: this kernel has CONFIG_RT_GROUP_SCHED=y: croupier.service may fail to start at its" \
             "real-time policy (status 214/SETSCHEDULER); docs/deploy.md, \"Scheduling\", says what to do" >&2
    fi
fi

# -- udev and systemd ------------------------------------------------------------------------------
system udevadm control --reload-rules
system udevadm trigger --subsystem-match=tty
system systemctl daemon-reload
system systemctl enable croupier.service
system systemctl enable croupier-display.service
# The firewall (docs/security.md): nftables' per-address limits on the table's ports, made from the two
# configurations at each start; without nft the table runs unlimited, and says so.
if [[ -n "$ROOT" ]] || command -v nft >/dev/null; then
    system systemctl enable croupier-firewall.service
    if [[ -z "$ROOT" ]] && systemctl is-active --quiet croupier-firewall.service; then
        run systemctl restart croupier-firewall.service
    else
        echo "next: once $CONF and $DISPLAY_CONF are edited: sudo systemctl start croupier-firewall" \
             "(see its rules: sudo croupier firewall --config $CONF --display $DISPLAY_CONF)"
    fi
else
    echo "warning: nft is not installed: no per-address limit on the table's ports (a flood of handshakes" \
         "slows the feeds): sudo apt install nftables, then run this script again" >&2
fi
if [[ -z "$ROOT" ]] && systemctl is-active --quiet croupier.service; then
    run systemctl restart croupier.service
else
    echo "next: edit $CONF and the ids in $RULES (and in $CHIP_RULES at a smart table), then: sudo systemctl start croupier"
fi
if [[ -z "$ROOT" ]] && systemctl is-active --quiet croupier-display.service; then
    run systemctl restart croupier-display.service
else
    echo "next: make the display's keys and edit $DISPLAY_CONF (docs/deploy.md, \"The display\"), then:" \
         "sudo systemctl start croupier-display"
fi
if [[ $DRY_RUN -eq 1 ]]; then echo "done (dry run: nothing changed)"; else echo "done"; fi
