#!/usr/bin/env bash
# The Python package's wheels for Linux, into dist/: x86_64 and aarch64,
# both linked by zig against glibc 2.17 (maturin --zig --compatibility
# manylinux2014: they install on any Linux with glibc 2.17 or later), the
# aarch64 one cross-built. Then, with qemu-user, the fingerprint and index
# crates' tests (golden vectors included) run as aarch64 code, to show the
# fingerprints are the same there. The test command builds and tests the
# x86_64 wheel the same way but in the dev profile
# (scripts/build-test-wheel.sh); scripts/test-wheel-old-glibc.sh runs a
# wheel on glibc 2.31.
#
#   scripts/build-wheels.sh              # both wheels and the aarch64 tests
#   TEST_AARCH64=0 scripts/build-wheels.sh
#
# Needs bindings/python/.venv (scripts/test-python.sh makes it), rustup's
# aarch64-unknown-linux-gnu target (added here), and for the tests the
# Debian packages qemu-user, libc6-arm64-cross and gcc-aarch64-linux-gnu.
# Not part of CI: it fetches the target's standard library from rustup.

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
venv="$root/bindings/python/.venv"
if [ ! -x "$venv/bin/maturin" ]; then
    echo "bindings/python/.venv is missing: run scripts/test-python.sh once" >&2
    exit 1
fi
"$venv/bin/pip" install -q --disable-pip-version-check "ziglang==0.13.0"
rustup target add aarch64-unknown-linux-gnu
mkdir -p dist
cd bindings/python
# maturin finds zig through the venv's python (python -m ziglang).
PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="$root/target" "$venv/bin/maturin" build \
    --release -q --zig --compatibility manylinux2014 --out "$root/dist"
PATH="$venv/bin:$PATH" CARGO_TARGET_DIR="$root/target/cross" "$venv/bin/maturin" build \
    --release -q --target aarch64-unknown-linux-gnu --zig --compatibility manylinux2014 --out "$root/dist"
cd "$root"
ls -l dist/neardup-*.whl
for wheel in dist/neardup-*manylinux2014_*.whl; do "$venv/bin/auditwheel" show "$wheel"; done
if [ "${TEST_AARCH64:-1}" = 1 ]; then
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc \
    CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu" \
    CARGO_TARGET_DIR="$root/target/cross" \
        cargo test --release --target aarch64-unknown-linux-gnu -p neardup-core -p neardup-index
fi
