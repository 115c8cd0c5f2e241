#!/usr/bin/env bash
# Install (or update) Croupier on a Raspberry Pi (Raspberry Pi OS / Debian) from this checkout.
#
#   sudo deploy/install-pi.sh              install or update, enable the service
#   deploy/install-pi.sh --dry-run         print every step, change nothing
#   deploy/install-pi.sh --root DIR        install the files under DIR (a staging tree or an image);
#                                          user, udev and systemctl steps are only printed, and a
#                                          venv built there names DIR in its scripts (--no-venv)
#
# Safe to run again: the user, the venv and /etc/croupier/table.toml are created only when absent
# (an edited table.toml is never overwritten); the package, the unit and the udev rule are
# refreshed, and a running service is restarted on the new code. See docs/deploy.md.
set -euo pipefail

usage() {
    cat <<'EOF'
usage: install-pi.sh [--dry-run] [--root DIR] [--python PYTHON] [--no-venv]
  --dry-run        print what would be done, do nothing
  --root DIR       install under DIR instead of / (system steps printed, not run)
  --python PYTHON  the interpreter for the venv (default python3; Python 3.11 or later)
  --no-venv        leave /opt/croupier/venv alone (files, user and service only)
EOF
}

DRY_RUN=0
ROOT=""
PYTHON=python3
VENV_STEP=1
while [[ $# -gt 0 ]]; do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --root) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; ROOT="${2%/}"; shift ;;
        --root=*) ROOT="${1#--root=}"; ROOT="${ROOT%/}" ;;
        --python) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; PYTHON="$2"; shift ;;
        --no-venv) VENV_STEP=0 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install-pi.sh: unknown option: $1" >&2; usage >&2; exit 2 ;;
    esac
    shift
done

SRC="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
USER_NAME=croupier
GROUPS_EXTRA=(dialout gpio)
VENV=/opt/croupier/venv
STATE_DIR=/var/lib/croupier
CONF_DIR=/etc/croupier
CONF="$CONF_DIR/table.toml"
UNIT=/etc/systemd/system/croupier.service
RULES=/etc/udev/rules.d/99-croupier-shoe.rules

for f in deploy/croupier.service deploy/99-croupier-shoe.rules deploy/pi.toml pyproject.toml; do
    [[ -f "$SRC/$f" ]] || { echo "install-pi.sh: $SRC/$f is missing: run me from a Croupier checkout" >&2; exit 1; }
done
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

# -- the package, in its own venv ------------------------------------------------------------------
if [[ $VENV_STEP -eq 1 ]]; then
    if [[ -x "$ROOT$VENV/bin/python" ]]; then
        note "venv $ROOT$VENV exists"
    else
        # System site packages visible: the Pi's GPIO library comes from apt (python3-lgpio).
        run "$PYTHON" -m venv --system-site-packages "$ROOT$VENV"
    fi
    run "$ROOT$VENV/bin/python" -m pip install --quiet --upgrade pip
    run "$ROOT$VENV/bin/python" -m pip install --quiet --upgrade "$SRC"
    if [[ $DRY_RUN -eq 0 ]] && ! "$ROOT$VENV/bin/python" -c "import lgpio" 2>/dev/null; then
        echo "warning: the venv cannot import lgpio, needed by [gpio] pin_factory = \"lgpio\":" \
             "sudo apt install python3-lgpio" >&2
    fi
else
    note "venv left alone (--no-venv)"
fi

# -- unit, udev rule, configuration ----------------------------------------------------------------
run install -m 0644 "$SRC/deploy/croupier.service" "$ROOT$UNIT"
run install -m 0644 "$SRC/deploy/99-croupier-shoe.rules" "$ROOT$RULES"
if [[ -e "$ROOT$CONF" ]]; then
    note "keeping $ROOT$CONF (edited by you; compare with $SRC/deploy/pi.toml after an update)"
else
    conf_owner=()
    [[ -z "$ROOT" ]] && conf_owner=(-o root -g "$USER_NAME")
    run install -m 0640 "${conf_owner[@]}" "$SRC/deploy/pi.toml" "$ROOT$CONF"
fi

# -- udev and systemd ------------------------------------------------------------------------------
system udevadm control --reload-rules
system udevadm trigger --subsystem-match=tty
system systemctl daemon-reload
system systemctl enable croupier.service
if [[ -z "$ROOT" ]] && systemctl is-active --quiet croupier.service; then
    run systemctl restart croupier.service
else
    echo "next: edit $CONF and the ids in $RULES, then: sudo systemctl start croupier"
fi
if [[ $DRY_RUN -eq 1 ]]; then echo "done (dry run: nothing changed)"; else echo "done"; fi
