#!/usr/bin/env bash
# `neardup pairs` on N identical fingerprints (default 30,000): N(N-1)/2
# pairs (450 million), sorted in runs on disk past --memory (default 256M),
# written to /dev/null. Prints the peak RSS and the wall time (GNU time),
# and records them (bench/results/pairs-dense.jsonl and .json).
#
#   bench/pairs-dense.sh
#   N=10000 NEARDUP=/tmp/neardup bench/pairs-dense.sh
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-30000}"
bench_neardup
bench_scratch
for ((i = 0; i < n; i++)); do
    printf '{"id":"d%d","fingerprint":"00000000000000ff"}\n' "$i"
done > "$scratch/dense.jsonl"
bench_begin pairs-dense N NEARDUP
bench_time "$scratch/time" "$neardup" pairs "$scratch/dense.jsonl" -k 3 > /dev/null
read -r wall _ _ rss < <(tail -1 "$scratch/time")
echo "peak RSS $rss KB, $wall s wall"
printf '{"fingerprints":%d,"pairs":%d,"wall_s":%s,"peak_rss_mb":%d,"commit":"%s"}\n' \
    "$n" "$((n * (n - 1) / 2))" "$wall" "$((rss / 1024))" "$(bench_commit)" \
    >> bench/results/pairs-dense.jsonl
bench_record pairs-dense
