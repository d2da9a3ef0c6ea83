#!/usr/bin/env bash
# The online index: build time, queries per second and memory, against PyPI
# simhash's SimhashIndex on the same fingerprints.
#
#   bench/index.sh
#
# neardup (crates/index/examples/query.rs, k = 3, the planner's tables): at
# 10^5, 10^6 and 10^7 random 64-bit fingerprints, one million queries (half
# of them stored fingerprints with 1 to 3 bits flipped, which must find
# their original), one at a time on one thread and as one batch on both
# cores; memory per fingerprint; and the index written as a segment file
# (in bench/results/, removed after), opened again (median of 3) and
# queried on the mapped file. PyPI simhash's SimhashIndex at 10^5 (build,
# then 20,000 queries), on core 0. Then text in: on ten copies of BBC News
# (22,250 documents; each copy but the first with one word dropped per
# article), gaoya's SimHashStringIndex (build from the documents, query each)
# against the neardup command on core 0 with one thread (`fingerprint` +
# `index build`, then `index query --documents`), both including their own
# fingerprinting. Results go to bench/results/index.jsonl.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
results=bench/results/index.jsonl
bench_peers
bench_build_portable -p neardup-index --example query --example pairs
bench_scratch index.XXXXXX
bench_begin index
: > "$scratch/rows"
for n in 1e5 1e6 1e7; do
    echo "n = $n" >&2
    RAYON_NUM_THREADS=2 taskset -c 0,1 target/release/examples/query --n "$n" --queries 1e6 \
        --runs 3 --save "$scratch/seg.ndx" | tee -a "$scratch/rows"
    rm -f "$scratch/seg.ndx"
done
target/release/examples/pairs --n 1e5 --planted 0 --runs 1 --dump "$scratch/fps.bin" >/dev/null
taskset -c 0 bench/.venv/bin/python bench/peers/pairs_peers.py --peer simhash-index-queries \
    "$scratch/fps.bin" | tee -a "$scratch/rows"
# Text in: gaoya against the neardup command.
bench_corpora bbc
bench_build_portable -p neardup-cli
python3 - data/corpora/bbc.jsonl "$scratch/bbc10.jsonl" <<'PY'
import json, random, sys
random.seed(7)
docs = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
with open(sys.argv[2], "w", encoding="utf-8") as f:
    for copy in range(10):
        for d in docs:
            words = d["text"].split(" ")
            if copy > 0 and len(words) > 10:
                del words[random.randrange(len(words))]
            f.write(json.dumps({"id": f"{copy}/{d['id']}", "text": " ".join(words)}) + "\n")
PY
taskset -c 0 bench/.venv/bin/python bench/peers/text_index_peers.py "$scratch/bbc10.jsonl" \
    | tee -a "$scratch/text"
start=$(bench_now_ns)
taskset -c 0 target/release/neardup fingerprint -j 1 -q "$scratch/bbc10.jsonl" > "$scratch/bbc10.fp"
taskset -c 0 target/release/neardup index build "$scratch/bbc10.fp" --index "$scratch/idx" 2>/dev/null
built=$(bench_now_ns)
taskset -c 0 target/release/neardup index query --documents "$scratch/bbc10.jsonl" -j 1 \
    --index "$scratch/idx" > "$scratch/matches.jsonl"
done_at=$(bench_now_ns)
matches=$(python3 -c "import json,sys; print(sum(len(json.loads(l)['matches']) for l in open(sys.argv[1])))" "$scratch/matches.jsonl")
seconds() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", (b - a) / 1e9 }'; }
printf '{"tool":"neardup command","documents":22250,"build_s":%s,"query_s":%s,"matches":%s}\n' \
    "$(seconds "$start" "$built")" "$(seconds "$built" "$done_at")" "$matches" \
    | tee -a "$scratch/text"

commit="$(bench_commit)"
cpu="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)"
python3 - "$scratch/rows" "$results" "$commit" "$cpu" "$scratch/text" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
with open(sys.argv[2], "a") as f:
    for r in rows:
        f.write(json.dumps({**r, "commit": sys.argv[3], "cpu": sys.argv[4]}) + "\n")
print(f"\ncommit {sys.argv[3]}; {sys.argv[4]}\n")
print("| fingerprints | tool | build s | single queries/s (1 core) | batch queries/s (2 cores) "
      "| bytes/fp | open s | queries/s on the file |")
print("|--:|---|--:|--:|--:|--:|--:|--:|")
def num(v):
    return f"{v:,}" if isinstance(v, (int, float)) else ""
for r in rows:
    print(f"| {r['n']:,} | {r.get('tool', 'neardup')} | {r['build_s']:.3f} "
          f"| {num(r['single_qps'])} | {num(r.get('batch_qps'))} "
          f"| {num(r.get('bytes_per_fingerprint'))} | {num(r.get('open_s'))} "
          f"| {num(r.get('segment_single_qps'))} |")
text = [json.loads(l) for l in open(sys.argv[5]) if l.strip()]
with open(sys.argv[2], "a") as f:
    for r in text:
        f.write(json.dumps({**r, "commit": sys.argv[3], "cpu": sys.argv[4]}) + "\n")
print("\nText in, 22,250 BBC articles, one core:\n")
print("| tool | build s | query all s | matches |")
print("|---|--:|--:|--:|")
for r in text:
    print(f"| {r['tool']} | {r['build_s']:.3f} | {r['query_s']:.3f} | {r['matches']:,} |")
PY
bench_record index
