#!/usr/bin/env bash
# The Python package's tests: builds the neardup command (the tests compare
# with it; the dev profile's build, which `cargo test` has made already) and
# the wheel (scripts/build-test-wheel.sh: manylinux2014, checked with
# auditwheel; or NEARDUP_WHEEL names one it built already), installs
# the wheel into a venv with the pinned test requirements, runs pytest
# (Spark tests included: they need Java 17),
# then installs the wheel into a second, bare venv and imports it with no
# Rust toolchain on PATH.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=bindings/python/.venv
wheels=target/wheels

# Each step says when it starts, counted from the script's start.
step() { echo "== $* ($SECONDS s in)"; }

step "the neardup command (dev profile, as cargo test builds it)"
cargo build -q -p neardup-cli

step "the test venv ($venv)"
scripts/venv.sh "$venv" bindings/python/requirements-test.txt

if [ -z "${NEARDUP_WHEEL:-}" ]; then
    step "the wheel (scripts/build-test-wheel.sh: zig, manylinux2014, dev profile)"
    scripts/build-test-wheel.sh
fi
wheel=${NEARDUP_WHEEL:-$(ls "$wheels"/neardup-*.whl)}
"$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

step "pytest"
# From the tests' folder, so that `import neardup` is the installed wheel.
# Two workers (pytest-xdist), each taking a whole test file at a time: one
# Spark session per file, as each file's fixtures make it.
(cd bindings/python/tests && NEARDUP_BIN="$root/target/debug/neardup" \
    "$root/$venv/bin/python" -m pytest -q -p no:cacheprovider --durations=10 \
    -n 2 --dist loadfile "$@" . --doctest-modules --pyargs neardup)

step "the wheel in a bare venv, no Rust toolchain on PATH"
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
step "done"
