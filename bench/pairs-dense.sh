#!/usr/bin/env bash
# `neardup pairs` on N identical fingerprints (default 30,000): N(N-1)/2
# pairs (450 million), sorted in runs on disk past --memory (default 256M),
# written to /dev/null. Prints the peak RSS and the wall time (GNU time).
#
#   bench/pairs-dense.sh
#   N=10000 NEARDUP=/tmp/neardup bench/pairs-dense.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
n="${N:-30000}"
neardup="${NEARDUP:-$root/target/release/neardup}"
[[ -x "$neardup" ]] || { echo "no neardup binary at $neardup (set NEARDUP)" >&2; exit 1; }
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
for ((i = 0; i < n; i++)); do
    printf '{"id":"d%d","fingerprint":"00000000000000ff"}\n' "$i"
done > "$scratch/dense.jsonl"
/usr/bin/time -f "peak RSS %M KB, %e s wall" "$neardup" pairs "$scratch/dense.jsonl" -k 3 > /dev/null
