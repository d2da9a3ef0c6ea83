#!/usr/bin/env bash
# Dense clusters: N documents, each one word apart from a common text (a
# templated page), deduplicated at the defaults, greedy and components.
# Their pairs grow as N²/2 (1.25 billion for 50,000): a job that lists them
# cannot finish; one that compares each document with the kept ones only
# meets about one pair per document.
#
#   bench/dedup-dense.sh            # N=50000
#   N=20000 bench/dedup-dense.sh
#
# Input, written once to bench/results/dense-N.jsonl: the text of Genesis 1
# in the KJV (samples/bible/kjv.jsonl, public domain, 797 words), with word
# i mod 797 of document i replaced by "variant<i>". Each run is the whole
# process under /usr/bin/time (wall seconds, peak RSS); a JSON line per run
# is appended to bench/results/dedup-dense.jsonl.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-50000}"
bench_neardup
results=bench/results/dedup-dense.jsonl
input="bench/results/dense-$n.jsonl"
if [[ ! -f "$input" ]]; then
    python3 - "$n" "$input" <<'PY'
import json, os, sys
n, path = int(sys.argv[1]), sys.argv[2]
with open("samples/bible/kjv.jsonl") as f:
    base = next(json.loads(l)["text"] for l in f if json.loads(l)["id"] == "kjv/Genesis 1")
words = base.split()
tmp = path + ".tmp"
with open(tmp, "w") as out:
    for i in range(n):
        w = list(words)
        w[i % len(w)] = f"variant{i}"
        out.write(json.dumps({"id": f"page-{i}", "text": " ".join(w)}) + "\n")
os.replace(tmp, path)
PY
fi
bench_scratch
commit="$(bench_commit)"
bench_begin dedup-dense N NEARDUP
for cluster in greedy components; do
    bench_time "$scratch/time" \
        "$neardup" dedup "$input" --out "$scratch/out" --force -q --cluster "$cluster"
    python3 - "$cluster" "$n" "$(tail -1 "$scratch/time")" "$scratch/out/summary.json" \
        "$commit" <<'PY' | tee -a "$results"
import json, sys
cluster, n, timed, summary, commit = sys.argv[1:]
wall, user, system, rss = timed.split()
s = json.load(open(summary))
print(json.dumps({
    "cluster": cluster, "commit": commit, "documents": s["documents"],
    "unique": s["unique"], "candidate_pairs": s["candidate_pairs"],
    "wall_s": float(wall), "cpu_s": float(user) + float(system),
    "peak_rss_mb": round(int(rss) / 1024, 1),
}))
PY
done
bench_record dedup-dense
