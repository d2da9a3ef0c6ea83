#!/usr/bin/env bash
# What the `neardup` command keeps of the library's speed, end to end.
#
#   bench/command.sh
#
# 1. Fetches the corpora if needed and builds, portably (RUSTFLAGS empty),
#    the `neardup` binary and the throughput example.
# 2. Writes COPIES (default 40) copies of BBC News's JSON lines to
#    bench/results/bbcCOPIES.jsonl (202 MB of text for 40), so that start-up
#    costs are small against the run.
# 3. Alternates, PAIRS times (default 7) and all on core 1 (taskset -c 1):
#    the library (`throughput --profile auto --threads 1` on BBC, the
#    profile the command uses by default) and the command
#    (`neardup fingerprint -j 1 bbc40.jsonl > /dev/null`: read, parse the
#    JSON, fingerprint, write one JSON line per document).
# 4. Prints the median MB/s of each, the command's share of the library's
#    speed, and the command's peak memory; appends them as a JSON line to
#    bench/results/command.jsonl.
#
# Alternating the two keeps them under the same conditions on a shared
# machine: compare the ratio, not the absolute numbers across runs.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
pairs="${PAIRS:-7}"
bbc=data/corpora/bbc.jsonl
copies="${COPIES:-40}"
big=bench/results/bbc$copies.jsonl

bench_corpora bbc
bench_build_portable -p neardup-cli -p neardup-core --example throughput
if [[ ! -f "$big" ]]; then
    for _ in $(seq "$copies"); do cat "$bbc"; done > "$big.tmp"
    mv "$big.tmp" "$big"
fi
text_bytes=$(target/release/examples/throughput --runs 1 "$big" |
    sed -E 's/.*"bytes":([0-9]+).*/\1/')

bench_begin command PAIRS COPIES
library=()
command=()
memory=()
for _ in $(seq "$pairs"); do
    library+=("$(taskset -c 1 target/release/examples/throughput --profile auto --threads 1 \
        --runs 5 "$bbc" | sed -E 's/.*"mb_per_s":([0-9.]+).*/\1/')")
    # Wall time in nanoseconds (time's %e has only 10 ms steps); peak
    # memory from time's %M.
    start=$(bench_now_ns)
    /usr/bin/time -f "%M" -o "$big.mem" taskset -c 1 target/release/neardup fingerprint \
        -j 1 --quiet "$big" > /dev/null
    end=$(bench_now_ns)
    command+=("$(awk -v b="$text_bytes" -v ns="$((end - start))" 'BEGIN { print b / 1e6 / (ns / 1e9) }')")
    memory+=("$(tail -1 "$big.mem")")
done

lib=$(printf '%s\n' "${library[@]}" | bench_median)
cmd=$(printf '%s\n' "${command[@]}" | bench_median)
mem=$(printf '%s\n' "${memory[@]}" | bench_median)
share=$(awk -v c="$cmd" -v l="$lib" 'BEGIN { printf "%.1f", 100 * c / l }')
commit=$(bench_commit)
echo "library (auto, 1 thread): ${library[*]} MB/s; median $lib"
echo "command (-j 1, bbc$copies):    ${command[*]} MB/s; median $cmd"
echo "command keeps ${share}% of the library's speed; peak memory ${mem} KB (median)"
printf '{"commit":"%s","pairs":%s,"library_mb_per_s":%s,"command_mb_per_s":%s,"share_pct":%s,"peak_kb":%s}\n' \
    "$commit" "$pairs" "$lib" "$cmd" "$share" "$mem" >> bench/results/command.jsonl
bench_record command
