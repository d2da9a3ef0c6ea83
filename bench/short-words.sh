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

set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
neardup="${NEARDUP:-target/release/neardup}"
runs="${RUNS:-7}"
[[ -x "$neardup" ]] || { echo "no neardup binary at $neardup (set NEARDUP)" >&2; exit 1; }
input="${1:-bench/results/dedup-bbc10-edited.jsonl}"
if [[ $# -eq 0 && ! -f "$input" ]]; then
    [[ -f data/corpora/bbc.jsonl ]] || scripts/fetch-corpora.sh
    mkdir -p bench/results
    python3 bench/edited_copies.py --copies 10 "$input" data/corpora/bbc.jsonl
fi
scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT

for i in $(seq "$runs"); do
    for mode in default all; do
        extra=()
        [[ $mode == all ]] && extra=(--short-words all)
        /usr/bin/time -f '%e %U %S %M' -o "$scratch/time" \
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
