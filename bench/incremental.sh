#!/usr/bin/env bash
# What an incremental day costs: the last third of a file deduplicated
# alone (a batch run) and against an index of the first two thirds'
# kept documents (`--against`, judged by the rule on the stored texts),
# alternating, on the same day's file.
#
#   bench/incremental.sh                 # BBC News ten times, edited (bench/dedup.sh's input)
#   RUNS=3 bench/incremental.sh FILE     # any JSON lines file
#
# Prints the medians of wall clock and CPU seconds of each, the ratio
# against / alone, and how many each kept. NEARDUP names the binary
# (default target/release/neardup).

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-5}"
bench_neardup
input="${1:-bench/results/dedup-bbc10-edited.jsonl}"
if [[ $# -eq 0 ]]; then
    bench_bbc10_edited "$input"
fi
bench_scratch

# The days before: two thirds of the file, saved to an index.
lines=$(wc -l < "$input")
before=$((lines * 2 / 3))
head -n "$before" "$input" > "$scratch/before.jsonl"
tail -n "+$((before + 1))" "$input" > "$scratch/day.jsonl"
"$neardup" dedup "$scratch/before.jsonl" --out "$scratch/o-before" -q --save-index "$scratch/index"

bench_begin incremental RUNS NEARDUP
for i in $(seq "$runs"); do
    for mode in alone against; do
        extra=()
        [[ $mode == against ]] && extra=(--against "$scratch/index")
        bench_time "$scratch/time" \
            "$neardup" dedup "$scratch/day.jsonl" --out "$scratch/o-day" --force -q "${extra[@]}"
        python3 - "$mode" "$(tail -1 "$scratch/time")" "$scratch/o-day/summary.json" \
            >> "$scratch/rows" <<'PY'
import json, sys
mode, timing, summary = sys.argv[1:]
wall, user, system, _ = timing.split()
s = json.load(open(summary))
print(json.dumps({"mode": mode, "wall": float(wall), "cpu": float(user) + float(system),
                  "unique": s["unique"], "against": s["dropped_against_index"]}))
PY
    done
done

cat "$scratch/rows" >> bench/results/incremental.jsonl
bench_record incremental

python3 - "$scratch/rows" "$input" "$runs" "$before" "$lines" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
path, runs, before, lines = sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
print(f"{path}: the last {lines - before} documents, alone and against an index of the first "
      f"{before}'s kept ones; {runs} runs of each, alternating; medians")
print("| day | wall s | CPU s | kept | dropped for the index |")
print("|---|--:|--:|--:|--:|")
med = {}
for mode in ("alone", "against"):
    r = [x for x in rows if x["mode"] == mode]
    med[mode] = {k: statistics.median(x[k] for x in r) for k in ("wall", "cpu")}
    print(f"| {mode} | {med[mode]['wall']:.2f} | {med[mode]['cpu']:.2f} | {r[0]['unique']} | {r[0]['against']} |")
print(f"| against / alone | {med['against']['wall'] / med['alone']['wall']:.2f}x | "
      f"{med['against']['cpu'] / med['alone']['cpu']:.2f}x | | |")
PY
