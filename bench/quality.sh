#!/usr/bin/env bash
# The quality benchmark with the peers in the same tables (docs/QUALITY.md).
#
#   bench/quality.sh                 # neardup's defaults
#   bench/quality.sh --plots docs/quality --k-max 12     # docs/QUALITY.md's tables and plots
#   bench/quality.sh --verify jaccard:0.8 --profile en   # any `neardup eval` options
#
# Builds the benchmark of `neardup eval` (same seed and size every time),
# exports it, lets the Python peers (bench/peers/eval_peers.py: PyPI
# simhash, gaoya, datasketch MinHash LSH) answer every pair, and scores
# their answers with neardup's own scoring, after neardup's own tables.
# Options are passed to `neardup eval` for neardup's rows only. NEARDUP
# names the binary (default target/release/neardup).

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
neardup="${NEARDUP:-target/release/neardup}"
[[ -x "$neardup" ]] || { echo "no neardup binary at $neardup (set NEARDUP)" >&2; exit 1; }
[[ -f data/corpora/bbc.jsonl ]] || scripts/fetch-corpora.sh
bench/peers/setup.sh >/dev/null
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
"$neardup" eval --export "$scratch" > /dev/null
bench/.venv/bin/python bench/peers/eval_peers.py "$scratch"
"$neardup" eval "$@" \
    --predictions "PyPI simhash=$scratch/simhash.jsonl" \
    --predictions "gaoya SimHash=$scratch/gaoya.jsonl" \
    --predictions "MinHash LSH 0.8=$scratch/datasketch.jsonl"
