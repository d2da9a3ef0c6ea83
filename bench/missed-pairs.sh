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
# (SCRATCH/missed_pairs.json, unless --json). Without --scratch and
# --json, the numbers are also appended as a JSON line to
# bench/results/missed-pairs.jsonl and recorded as the benchmark's result,
# bench/results/missed-pairs.json (bench/driver.sh). The corpus text stays in the
# scratch dir (a temporary one, removed at the end, unless --scratch).
# NEARDUP names the binary (default target/release/neardup). Standard
# library Python only; about 2 minutes and 1.1 GB on 2 cores (21,932
# documents, 103 MB).

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
bench_neardup
args=("$@")
record=""
if [[ " $* " != *" --scratch "* && " $* " != *" --scratch="* ]]; then
    bench_scratch
    args+=(--scratch "$scratch")
    if [[ " $* " != *" --json "* && " $* " != *" --json="* ]]; then
        record="$scratch/missed_pairs.json"
        bench_begin missed-pairs NEARDUP
    fi
fi
python3 bench/missed_pairs.py --neardup "$neardup" "${args[@]}"
if [[ -n "$record" ]]; then
    python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1]))))' "$record" \
        >> bench/results/missed-pairs.jsonl
    bench_record missed-pairs
fi
