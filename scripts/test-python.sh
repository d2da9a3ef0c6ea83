#!/usr/bin/env bash
# The Python package's tests: builds the neardup command (the tests compare
# with it; the dev profile's build, which `cargo test` has made already) and
# the wheel (manylinux2014, checked with auditwheel), installs
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

step "the wheel (maturin build --release --zig --compatibility manylinux2014)"
# Linked by zig against glibc 2.17's symbols, so that the one wheel installs
# wherever Spark's executors run (RHEL 8, Ubuntu 20.04: older than the glibc
# 2.34 a wheel linked on this machine asks for). maturin finds zig through the
# venv's python (ziglang, pinned). It builds for an explicit --target, into
# target/x86_64-unknown-linux-gnu/, apart from the command's target/release.
rm -f "$wheels"/neardup-*.whl
(cd bindings/python && PATH="$root/$venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" \
    "$root/$venv/bin/maturin" build --release -q --zig --compatibility manylinux2014 --out "$root/$wheels")
wheel=$(ls "$wheels"/neardup-*.whl)
"$venv/bin/pip" install -q --disable-pip-version-check --force-reinstall --no-deps "$wheel"

step "auditwheel show: manylinux2014, no symbol version above GLIBC_2.17"
"$venv/bin/auditwheel" show "$wheel" | tee "$wheels/auditwheel.txt"
"$venv/bin/python" - "$wheel" "$wheels/auditwheel.txt" <<'PY'
import re, sys
wheel, shown = sys.argv[1], open(sys.argv[2]).read()
assert wheel.endswith("manylinux_2_17_x86_64.manylinux2014_x86_64.whl"), wheel
assert re.search(r'consistent with the following platform tag:\s*"manylinux_2_17_x86_64"', shown), shown
versions = {tuple(map(int, v)) for v in re.findall(r"GLIBC_(\d+)\.(\d+)", shown)}
assert versions and max(versions) <= (2, 17), sorted(versions)
print("auditwheel: manylinux_2_17_x86_64; newest symbol version GLIBC_%d.%d" % max(versions))
PY

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
