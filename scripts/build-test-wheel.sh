#!/usr/bin/env bash
# The wheel the Python tests install, into target/wheels/, and its check:
# built as the shipped wheels are (maturin --zig --compatibility
# manylinux2014: linked by zig against glibc 2.17's symbols, so that one
# wheel installs wherever Spark's executors run: RHEL 8, Ubuntu 20.04),
# but in the dev profile `cargo test` uses (bindings/python/Cargo.toml says
# why), then `auditwheel show`: the manylinux2014 tag, no symbol version
# above GLIBC_2.17. Needs the test venv (scripts/venv.sh makes it): maturin
# finds zig through its python (ziglang, pinned).
#
# It builds in target/wheel-build/, apart from target/debug, so that it
# never waits on another cargo's lock there (scripts/test.sh runs it beside
# the API check).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=bindings/python/.venv
wheels=target/wheels

rm -f "$wheels"/neardup-*.whl
(cd bindings/python && PATH="$root/$venv/bin:$PATH" CARGO_TARGET_DIR="$root/target/wheel-build" \
    "$root/$venv/bin/maturin" build --profile dev -q --zig --compatibility manylinux2014 --out "$root/$wheels")
wheel=$(ls "$wheels"/neardup-*.whl)

echo "== auditwheel show: manylinux2014, no symbol version above GLIBC_2.17"
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
