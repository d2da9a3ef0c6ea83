#!/usr/bin/env bash
# Create bench/.venv (if missing) and install the pinned Python peers from
# bench/peers/requirements.txt into it. Safe to rerun: pip is skipped when the
# venv was already built from the same requirements file.
#
# Environment: PYTHON (default python3) is the interpreter the venv is made from.

set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
venv="$(cd "$here/.." && pwd)/.venv"
requirements="$here/requirements.txt"
stamp="$venv/.requirements.sha256"

if [[ ! -x "$venv/bin/python" ]]; then
    echo "creating $venv"
    "${PYTHON:-python3}" -m venv "$venv"
fi

want="$(sha256sum "$requirements" | cut -d' ' -f1)"
if [[ "$(cat "$stamp" 2>/dev/null || true)" != "$want" ]]; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check \
        --requirement "$requirements"
    echo "$want" >"$stamp"
fi

# Smoke test: every peer imports and the reference fingerprint is stable.
"$venv/bin/python" - <<'PY'
import datasketch, gaoya, jieba, numpy, rensa, simhash
from importlib.metadata import version

value = simhash.Simhash("How are you? I am fine. Thanks.").value
assert value == 0x2F73898A203EE80B, hex(value)
print("peers ready:", ", ".join(
    f"{name} {version(name)}"
    for name in ("simhash", "numpy", "gaoya", "datasketch", "rensa", "jieba", "scipy")))
PY
