#!/usr/bin/env bash
# The quality benchmark with the peers in the same tables (docs/QUALITY.md).
#
#   bench/quality.sh                 # neardup's defaults
#   bench/quality.sh --plots docs/quality --k-max 12     # docs/QUALITY.md's tables and plots
#   bench/quality.sh --threshold 0.9 -k 6                # any `neardup eval` options
#
# Builds the benchmark of `neardup eval` (same seed and size every time),
# exports it, lets the Python peers (bench/peers/eval_peers.py: PyPI
# simhash fed its default features and fed words, gaoya, datasketch MinHash
# LSH, rensa RMinHashLSH, on the truth's shingles) answer every pair and
# run their own dedups, and scores their answers with neardup's own scoring,
# after neardup's own tables. Options are passed to `neardup eval` for
# neardup's rows only. NEARDUP names the binary (default
# target/release/neardup). Takes about 15 minutes on 2 cores, most of it
# PyPI simhash.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
bench_neardup
bench_corpora tech_docs
bench_peers
bench_scratch
"$neardup" eval --export "$scratch" > /dev/null
bench/.venv/bin/python bench/peers/eval_peers.py "$scratch"
bench/.venv/bin/python bench/peers/eval_peers.py --dedup "$scratch"
"$neardup" eval "$@" \
    --predictions "PyPI simhash=$scratch/simhash.jsonl" \
    --predictions "PyPI simhash, words=$scratch/simhash-words.jsonl" \
    --predictions "gaoya SimHash=$scratch/gaoya.jsonl" \
    --predictions "datasketch MinHash LSH 0.8=$scratch/datasketch.jsonl" \
    --predictions "rensa RMinHashLSH 0.8=$scratch/rensa.jsonl" \
    --dedup-predictions "datasketch MinHash LSH 0.8=$scratch/datasketch.dedup.jsonl" \
    --dedup-predictions "rensa RMinHashLSH 0.8=$scratch/rensa.dedup.jsonl" \
    --dedup-predictions "PyPI simhash, k = 3=$scratch/simhash-k3.dedup.jsonl" \
    --dedup-predictions "PyPI simhash, words, k = 8=$scratch/simhash-words-k8.dedup.jsonl"
