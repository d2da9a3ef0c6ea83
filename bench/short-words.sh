#!/usr/bin/env bash
# What `--short-words all` costs: `neardup dedup` at its defaults (texts
# under 50 words compared by their shingles, longer ones found by SimHash
# within 8 bits) and with every text compared by its shingles (every pair
# at or above the threshold found), alternating, on the same file.
#
#   bench/short-words.sh                 # BBC News ten times, edited (bench/dedup.sh's input)
#   RUNS=3 bench/short-words.sh FILE     # any JSON lines file
#
# Prints, per mode, the medians of wall clock, CPU seconds (user + system)
# and peak RSS (/usr/bin/time), the kept and dropped counts, and the ratios
# all / default. NEARDUP names the binary (default target/release/neardup).

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-7}"
bench_neardup
input="${1:-bench/results/dedup-bbc10-edited.jsonl}"
if [[ $# -eq 0 ]]; then
    bench_bbc10_edited "$input"
fi
bench_scratch

bench_begin short-words RUNS NEARDUP
for i in $(seq "$runs"); do
    for mode in default all; do
        extra=()
        [[ $mode == all ]] && extra=(--short-words all)
        bench_time "$scratch/time" \
            "$neardup" dedup "$input" --out "$scratch/out" --force -q "${extra[@]}"
        python3 - "$mode" "$(tail -1 "$scratch/time")" "$scratch/out/summary.json" \
            >> "$scratch/rows" <<'PY'
import json, sys
mode, timing, summary = sys.argv[1:]
wall, user, system, rss = timing.split()
s = json.load(open(summary))
print(json.dumps({"mode": mode, "wall": float(wall), "cpu": float(user) + float(system),
                  "rss_mb": int(rss) / 1024, "unique": s["unique"], "dropped": s["dropped"]}))
PY
    done
done

cat "$scratch/rows" >> bench/results/short-words.jsonl
bench_record short-words

python3 - "$scratch/rows" "$input" "$runs" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print(f"{sys.argv[2]}, {sys.argv[3]} runs of each, alternating; medians")
print("| mode | wall s | CPU s | peak RSS MB | unique | dropped |")
print("|---|--:|--:|--:|--:|--:|")
med = {}
for mode in ("default", "all"):
    r = [x for x in rows if x["mode"] == mode]
    med[mode] = {k: statistics.median(x[k] for x in r) for k in ("wall", "cpu", "rss_mb")}
    m = med[mode]
    print(f"| {mode} | {m['wall']:.2f} | {m['cpu']:.2f} | {m['rss_mb']:.0f} | {r[0]['unique']} | {r[0]['dropped']} |")
ratio = {k: med["all"][k] / med["default"][k] for k in ("wall", "cpu", "rss_mb")}
print(f"| all / default | {ratio['wall']:.2f}x | {ratio['cpu']:.2f}x | {ratio['rss_mb']:.2f}x | | |")
PY
