#!/usr/bin/env bash
# The x86_64 wheel on an old glibc: installs it into a Debian bullseye root
# (glibc 2.31, python3.9: what RHEL 8 and Ubuntu 20.04 executors of a
# Spark cluster look like to a wheel) and runs it there: neardup.dedup on
# three texts, and fingerprints that must be the bits this machine computes.
#
#   scripts/test-wheel-old-glibc.sh [WHEEL]    # default: the manylinux2014
#                                              # wheel in target/wheels/
#
# Needs root (debootstrap, chroot), the Debian package debootstrap, and
# bindings/python/.venv (scripts/test-python.sh makes it, and the wheel).
# The root is made once with debootstrap from deb.debian.org (about 2
# minutes, 260 MB) into target/old-glibc/bullseye and reused; numpy is
# fetched by this machine's pip and installed there offline, so the root
# needs no network of its own. Not part of CI: it needs root and Debian's
# mirror; CI checks the wheel's symbol versions with auditwheel instead.

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/bindings/python/.venv"
jail="${NEARDUP_OLD_GLIBC_ROOT:-$root/target/old-glibc/bullseye}"
wheel="${1:-$(ls target/wheels/neardup-*manylinux2014_x86_64.whl 2>/dev/null | head -1)}"
if [ -z "$wheel" ] || [ ! -f "$wheel" ]; then
    echo "no manylinux2014 x86_64 wheel in target/wheels: run scripts/test-python.sh first, or name one" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "needs root (debootstrap, chroot): run it with sudo" >&2
    exit 1
fi
if [ ! -x "$jail/usr/bin/python3" ]; then
    command -v debootstrap >/dev/null || { echo "needs debootstrap: apt-get install debootstrap" >&2; exit 1; }
    echo "== a Debian bullseye root in $jail (debootstrap, once)"
    rm -rf "$jail"
    mkdir -p "$(dirname "$jail")"
    debootstrap --variant=minbase --include=python3,python3-venv bullseye "$jail" http://deb.debian.org/debian \
        >"$jail.log" 2>&1 || { tail -20 "$jail.log" >&2; exit 1; }
fi

echo "== $(basename "$wheel") in $(chroot "$jail" ldd --version | head -1)"
# The wheel and numpy for the root's python3.9, fetched here.
rm -rf "$jail/tmp/neardup-wheels"
mkdir -p "$jail/tmp/neardup-wheels"
cp "$wheel" "$jail/tmp/neardup-wheels/"
"$venv/bin/pip" download -q --disable-pip-version-check --only-binary=:all: --implementation cp \
    --python-version 3.9 --platform manylinux2014_x86_64 -d "$jail/tmp/neardup-wheels" "numpy>=1.21"

texts='["the river rose in the night and the town woke to water",
        "the river rose in the night and the town woke to water!",
        "a recipe for bread",
        "河水在夜里上涨，镇上的人醒来时街道已经进水"]'
check="
import json, platform, sys, neardup
texts = json.loads('''$texts''')
r = neardup.dedup(texts[:3])
assert r.keep.tolist() == [True, False, True], r
print(json.dumps([platform.libc_ver()[1], sys.version.split()[0], neardup.Fingerprinter().fingerprint_batch(texts).tolist()]))
"
got=$(chroot "$jail" /usr/bin/env -i PATH=/usr/bin:/bin HOME=/root /bin/sh -c "
    rm -rf /tmp/neardup-venv && python3 -m venv /tmp/neardup-venv &&
    /tmp/neardup-venv/bin/pip install -q --disable-pip-version-check --no-index \
        --find-links /tmp/neardup-wheels neardup >&2 &&
    /tmp/neardup-venv/bin/python -c \"\$0\"" "$check")
want=$("$venv/bin/python" -c "
import json, neardup
print(json.dumps(neardup.Fingerprinter().fingerprint_batch(json.loads('''$texts''')).tolist()))")
"$venv/bin/python" - "$got" "$want" <<'PY'
import json, sys
(glibc, python, got), want = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert got == want, f"fingerprints differ on glibc {glibc}: {got} != {want}"
print(f"glibc {glibc}, python {python}: the wheel installs, dedups, and fingerprints as here")
PY
