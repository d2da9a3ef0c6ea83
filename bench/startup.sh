#!/usr/bin/env bash
# What meeting Chinese costs a process: `neardup fingerprint` on one short
# English document and on one short document holding two Han characters,
# alternated RUNS times (default 21); prints the median wall time (date
# +%s%N) and peak RSS (/usr/bin/time) of each. The difference is the cost of the Han
# dictionary's first use: its tables, built when neardup-core is compiled,
# are decoded from the binary.
#
#   bench/startup.sh
#   NEARDUP=/tmp/neardup RUNS=51 bench/startup.sh

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
runs="${RUNS:-21}"
neardup="${NEARDUP:-target/release/neardup}"
[[ -x "$neardup" ]] || cargo build --release -q -p neardup-cli
dir="$(mktemp -d)"
trap 'rm -rf "$dir"' EXIT
printf '{"text":"a short note in plain english"}\n' > "$dir/en.jsonl"
printf '{"text":"a short note with two han characters: 中文"}\n' > "$dir/han.jsonl"
for _ in $(seq "$runs"); do
  for kind in en han; do
    start=$(date +%s%N)
    /usr/bin/time -o "$dir/rss" -f "%M" "$neardup" fingerprint "$dir/$kind.jsonl" > /dev/null
    echo "$(( ($(date +%s%N) - start) / 1000 )) $(cat "$dir/rss")" >> "$dir/$kind.time"
  done
done
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for kind in en han; do
  micros="$(cut -d' ' -f1 "$dir/$kind.time" | median)"
  kb="$(cut -d' ' -f2 "$dir/$kind.time" | median)"
  printf '%-4s median %d ms, peak RSS %d MB (%s runs)\n' "$kind" "$((micros / 1000))" "$((kb / 1024))" "$runs"
done
