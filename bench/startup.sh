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

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-21}"
bench_neardup --build
bench_scratch
dir="$scratch"
printf '{"text":"a short note in plain english"}\n' > "$dir/en.jsonl"
printf '{"text":"a short note with two han characters: 中文"}\n' > "$dir/han.jsonl"
bench_begin startup RUNS NEARDUP
for _ in $(seq "$runs"); do
  for kind in en han; do
    start=$(bench_now_ns)
    /usr/bin/time -o "$dir/rss" -f "%M" "$neardup" fingerprint "$dir/$kind.jsonl" > /dev/null
    echo "$(( ($(bench_now_ns) - start) / 1000 )) $(cat "$dir/rss")" >> "$dir/$kind.time"
  done
done
for kind in en han; do
  micros="$(cut -d' ' -f1 "$dir/$kind.time" | bench_median)"
  kb="$(cut -d' ' -f2 "$dir/$kind.time" | bench_median)"
  printf '%-4s median %d ms, peak RSS %d MB (%s runs)\n' "$kind" "$((micros / 1000))" "$((kb / 1024))" "$runs"
  printf '{"document":"%s","runs":%d,"median_ms":%s,"median_peak_rss_mb":%d}\n' "$kind" "$runs" \
    "$(awk -v u="$micros" 'BEGIN { printf "%.1f", u / 1000 }')" "$((kb / 1024))" >> bench/results/startup.jsonl
done
bench_record startup
