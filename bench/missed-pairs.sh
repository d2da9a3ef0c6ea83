#!/usr/bin/env bash
# What `neardup dedup` misses on real text nobody here wrote: the copyright
# files, man pages and common licences of this machine, against the exact
# Jaccard truth computed independently in Python (bench/missed_pairs.py).
#
#   bench/missed-pairs.sh                           # defaults: -k 8, --threshold 0.8, all three corpora
#   bench/missed-pairs.sh -k 12 --threshold 0.9
#   bench/missed-pairs.sh --corpus copyright,licenses --troff keep
#   bench/missed-pairs.sh --scratch /tmp/mp --json result.json   # keep the corpus and outputs there
#
# Prints a table of documents, true pairs (J >= T), pairs left both kept and
# their fingerprint distances, and writes every number to a JSON file
# (bench/results/missed-pairs.json, or SCRATCH/missed_pairs.json when
# --scratch is given, unless --json). The corpus text stays in the
# scratch dir (a temporary one, removed at the end, unless --scratch).
# NEARDUP names the binary (default target/release/neardup). Standard
# library Python only; about 2 minutes and 1.1 GB on 2 cores (21,932
# documents, 103 MB).

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
neardup="${NEARDUP:-target/release/neardup}"
[[ -x "$neardup" ]] || { echo "no neardup binary at $neardup (set NEARDUP)" >&2; exit 1; }
args=("$@")
if [[ " $* " != *" --scratch "* && " $* " != *" --scratch="* ]]; then
    scratch="$(mktemp -d)"
    trap 'rm -rf "$scratch"' EXIT
    args+=(--scratch "$scratch")
    if [[ " $* " != *" --json "* && " $* " != *" --json="* ]]; then
        mkdir -p bench/results
        args+=(--json bench/results/missed-pairs.json)
    fi
fi
python3 bench/missed_pairs.py --neardup "$neardup" "${args[@]}"
