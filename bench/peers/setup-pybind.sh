#!/usr/bin/env bash
# Create bench/.venv-pybind with simhash-pybind (seomoz's C++ simhash). It
# installs as the module `simhash`, like PyPI simhash, so it gets a venv of
# its own. Safe to rerun.
set -euo pipefail
venv="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/.venv-pybind"
if [[ ! -x "$venv/bin/python" ]]; then
    "${PYTHON:-python3}" -m venv "$venv"
fi
if ! "$venv/bin/python" -c 'import simhash; simhash.find_all' 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check simhash-pybind==0.0.3
fi
