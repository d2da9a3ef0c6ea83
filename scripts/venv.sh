#!/usr/bin/env bash
# A venv at DIR with the pinned requirements of FILE installed (made if
# missing; pip only checks what is there already): the one way the test
# scripts make theirs.
#
#   scripts/venv.sh DIR FILE
set -euo pipefail
dir=$1 requirements=$2
if [ ! -x "$dir/bin/python" ]; then
    python3 -m venv "$dir"
fi
"$dir/bin/pip" install -q --disable-pip-version-check -r "$requirements"
