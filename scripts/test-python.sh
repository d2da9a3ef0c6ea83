#!/usr/bin/env bash
# The Python package's tests: builds the neardup command (the tests compare
# with it) and the wheel, installs the wheel into a venv with the pinned
# test requirements, runs pytest (Spark tests included: they need Java 17),
# then installs the wheel into a second, bare venv and imports it with no
# Rust toolchain on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=bindings/python/.venv
wheels=target/wheels

echo "== the neardup command"
cargo build --release -q -p neardup-cli

echo "== the test venv ($venv)"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv"
fi
"$venv/bin/pip" install -q --disable-pip-version-check -r bindings/python/requirements-test.txt

echo "== the wheel (maturin build --release)"
rm -f "$wheels"/neardup-*.whl
(cd bindings/python && CARGO_TARGET_DIR="$root/target" "$root/$venv/bin/maturin" build --release -q --out "$root/$wheels")
wheel=$(ls "$wheels"/neardup-*.whl)
"$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

echo "== pytest"
# From the tests' folder, so that `import neardup` is the installed wheel.
(cd bindings/python/tests && NEARDUP_BIN="$root/target/release/neardup" \
    "$root/$venv/bin/python" -m pytest -q -p no:cacheprovider "$@" . --doctest-modules --pyargs neardup)

echo "== the wheel in a bare venv, no Rust toolchain on PATH"
bare=$(mktemp -d)
trap 'rm -rf "$bare"' EXIT
python3 -m venv "$bare/venv"
"$bare/venv/bin/pip" install -q --disable-pip-version-check "$wheel"
env -i PATH=/usr/bin:/bin HOME="$bare" "$bare/venv/bin/python" -c '
import shutil, neardup
assert shutil.which("cargo") is None and shutil.which("rustc") is None
r = neardup.dedup(["the river rose in the night and the town woke to water",
                   "the river rose in the night and the town woke to water!",
                   "a recipe for bread"])
assert r.kept.tolist() == [True, False, True], r
print("bare venv: neardup", neardup.__version__, "imports and runs:", r.summary["unique"], "unique of 3")
'
