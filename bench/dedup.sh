#!/usr/bin/env bash
# The dedup job end to end: `neardup dedup` against the same job written with
# the Python peers, on the same file, on both cores.
#
#   bench/dedup.sh
#   RUNS=5 NEARDUP=/tmp/neardup bench/dedup.sh
#
# Input: ten copies of BBC News (22,250 documents, 50 MB of text) written
# once to bench/results/dedup-bbc10-edited.jsonl by bench/edited_copies.py.
# Copy 0 is the corpus as it is; in copies 1 to 9 each article loses or has
# changed one word in every 100 (a position drawn in each block of 100
# words; a coin says whether the word is deleted or replaced by another word
# of the same article), seeded by copy and id, so the file is the same on
# every machine. Ids are "COPY/ID". DOCS=N runs every tool on the first N
# documents instead.
#
# The job: keep the first document of each near-duplicate group, in input
# order; drop a later one near a kept one. Tools (each the whole process,
# wall clock from date +%s%N; CPU seconds, user + system, and peak RSS from
# /usr/bin/time's %U %S %M):
#   neardup          $NEARDUP dedup FILE --out DIR --force -q (its defaults:
#                    k = 8, verified by exact shingle Jaccard >= 0.8, both
#                    cores); also with
#                    --verify none (SimHash alone), with -j 1, and with
#                    -k 3 --verify none (the defaults of format 1: the
#                    fastest, but it misses about a tenth of the edited
#                    copies).
#   simhash          PyPI simhash 2.1.2: Simhash(text) per document on a
#                    multiprocessing.Pool(2), then SimhashIndex(k=3) filled
#                    incrementally (get_near_dups, add when nothing found).
#   datasketch       datasketch 2.0.0: MinHash (128 permutations) of the
#                    word 3-shingles on a Pool(2), then MinHashLSH
#                    (threshold 0.8) query-then-insert.
#   rensa            rensa 0.5.0 (Rust): RMinHash (128 permutations, seed
#                    42) of the same shingles on a Pool(2), then
#                    RMinHashLSH (threshold 0.8, 16 bands) query, candidates
#                    confirmed by estimated Jaccard >= 0.8, insert if none.
# (bench/peers/dedup_peers.py has the details.) The Python processes are
# timed with interpreter start and imports; their own clocks are printed
# too. Peak RSS is that of the largest process (for the peers, the main
# process holding the index; a worker's is reported apart).
#
# RUNS rounds (default 3) alternate the tools, so that they share the
# machine's conditions; neardup, being short, runs NEARDUP_REPS times
# (default 5) in each round. The table gives medians and neardup's
# throughput over each peer's, measured in this one run, by wall clock and
# by CPU seconds (the steadier of the two on a shared machine), and the
# kept counts: how many, how many from the edited copies (ideally none),
# how many neardup (defaults) kept too. Summaries, one JSON line per tool, are
# appended to bench/results/dedup.jsonl. The default takes 4 to 8 minutes
# on 2 cores.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-3}"
reps="${NEARDUP_REPS:-5}"
results=bench/results/dedup.jsonl
input=bench/results/dedup-bbc10-edited.jsonl
python=bench/.venv/bin/python

bench_neardup
bench_peers
bench_bbc10_edited "$input"

bench_scratch
if [[ -n "${DOCS:-}" ]]; then
    head -n "$DOCS" "$input" > "$scratch/input.jsonl"
    input="$scratch/input.jsonl"
fi
: > "$scratch/rows"

# run TOOL ROUND CMD...: one timed run; its stdout (a JSON line or nothing)
# goes into the row.
run() {
    local tool="$1" round="$2"
    shift 2
    local start end out
    start=$(bench_now_ns)
    out="$(bench_time "$scratch/mem" "$@")"
    end=$(bench_now_ns)
    python3 - "$tool" "$round" "$start" "$end" "$(tail -1 "$scratch/mem")" "$out" \
        >> "$scratch/rows" <<'PY'
import json, sys
tool, rnd, start, end, mem, out = sys.argv[1:]
_, user, system, rss = mem.split()
row = json.loads(out) if out.strip() else {}
row.update(tool=tool, round=int(rnd), wall_s=(int(end) - int(start)) / 1e9,
           cpu_s=float(user) + float(system), peak_rss_kb=int(rss))
print(json.dumps(row))
PY
}

bench_begin dedup RUNS NEARDUP_REPS DOCS NEARDUP
for round in $(seq "$runs"); do
    echo "round $round of $runs" >&2
    for _ in $(seq "$reps"); do
        run "neardup" "$round" "$neardup" dedup "$input" --out "$scratch/neardup" --force -q
        run "neardup --verify none" "$round" "$neardup" dedup "$input" \
            --out "$scratch/neardup-alone" --force -q --verify none
        run "neardup -j 1" "$round" "$neardup" dedup "$input" --out "$scratch/neardup-j1" \
            --force -q -j 1
        run "neardup -k 3 --verify none" "$round" "$neardup" dedup "$input" \
            --out "$scratch/neardup-k3" --force -q -k 3 --verify none
    done
    run "simhash" "$round" "$python" bench/peers/dedup_peers.py --peer simhash \
        --kept "$scratch/simhash.kept" "$input"
    run "datasketch" "$round" "$python" bench/peers/dedup_peers.py --peer datasketch \
        --kept "$scratch/datasketch.kept" "$input"
    run "rensa" "$round" "$python" bench/peers/dedup_peers.py --peer rensa \
        --kept "$scratch/rensa.kept" "$input"
done
for out in neardup neardup-alone neardup-j1 neardup-k3; do
    python3 -c 'import json, sys; [print(json.loads(l)["id"]) for l in open(sys.argv[1])]' \
        "$scratch/$out/unique.jsonl" > "$scratch/$out.kept"
done

python3 - "$scratch" "$input" "$results" "$(bench_commit)" \
    "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)" "$(nproc)" \
    "$("$neardup" --version 2>/dev/null || echo unknown)" "$runs" "$reps" \
    "$(sha256sum "$neardup" | cut -c1-12)" <<'PY'
import json, statistics, sys
scratch, corpus, results, commit, cpu, nproc, version, runs, reps, binary = sys.argv[1:]
rows = [json.loads(l) for l in open(f"{scratch}/rows")]
texts = [json.loads(l)["text"] for l in open(corpus, encoding="utf-8")]
docs, size = len(texts), sum(len(t.encode("utf-8")) for t in texts)
kept_files = {"neardup": "neardup", "neardup --verify none": "neardup-alone",
              "neardup -j 1": "neardup-j1", "neardup -k 3 --verify none": "neardup-k3",
              "simhash": "simhash", "datasketch": "datasketch", "rensa": "rensa"}
kept = {t: [l.strip() for l in open(f"{scratch}/{f}.kept")] for t, f in kept_files.items()}
ours = set(kept["neardup"])
tools = list(dict.fromkeys(r["tool"] for r in rows))
names = {"simhash": "PyPI simhash SimhashIndex (Pool 2)",
         "datasketch": "datasketch MinHashLSH (Pool 2)",
         "rensa": "rensa RMinHashLSH (Pool 2)"}
summary = {}
for t in tools:
    rs = [r for r in rows if r["tool"] == t]
    wall = statistics.median(r["wall_s"] for r in rs)
    s = {"tool": names.get(t, t), "documents": docs, "bytes": size, "samples": len(rs),
         "wall_s": [round(r["wall_s"], 3) for r in rs], "median_s": round(wall, 3),
         "cpu_s": round(statistics.median(r["cpu_s"] for r in rs), 2),
         "docs_per_s": round(docs / wall, 1), "mb_per_s": round(size / 1e6 / wall, 2),
         "peak_rss_kb": int(statistics.median(r["peak_rss_kb"] for r in rs)),
         "kept": len(kept[t]),
         "kept_from_edited_copies": sum(1 for k in kept[t] if not k.startswith("0/")),
         "kept_also_by_neardup": len(ours & set(kept[t]))}
    if "total_s" in rs[0]:
        for key in ("read_s", "fingerprint_s", "index_s", "total_s"):
            s["inner_" + key] = round(statistics.median(r[key] for r in rs), 3)
        s["worker_peak_rss_kb"] = int(statistics.median(r["worker_peak_rss_kb"] for r in rs))
        assert all(r["kept"] == len(kept[t]) for r in rs)
    summary[t] = s
base, base_cpu = summary["neardup"]["median_s"], summary["neardup"]["cpu_s"]
for t, s in summary.items():
    s["neardup_speedup"] = round(s["median_s"] / base, 2)
    s["neardup_cpu_ratio"] = round(s["cpu_s"] / base_cpu, 2) if base_cpu else None
    # The peer's wall time over the median of neardup's in the same round.
    per_round = [r["wall_s"] / statistics.median(o["wall_s"] for o in rows
                                                 if o["tool"] == "neardup" and o["round"] == r["round"])
                 for r in rows if r["tool"] == t]
    s["neardup_speedup_per_round"] = [round(x, 1) for x in per_round] if t in names else None
with open(results, "a") as f:
    for s in summary.values():
        f.write(json.dumps({**s, "input": corpus.split("/")[-1], "runs": int(runs),
                            "neardup_reps": int(reps), "neardup_version": version,
                            "neardup_sha256": binary,
                            "commit": commit, "cpu": cpu, "nproc": int(nproc)}) + "\n")
print(f"\ncommit {commit} (the tree's HEAD; the binary's sha256 begins {binary}); {version}; "
      f"{cpu}; nproc {nproc}; {runs} rounds")
print(f"{docs:,} documents, {size / 1e6:.1f} MB of text ({corpus.split('/')[-1]})\n")
print("| tool | median wall s | docs/s | MB/s | neardup faster (wall) | CPU s "
      "| neardup faster (CPU s) | peak RSS MB | kept | kept of edited copies "
      "| kept also by neardup |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|")
for s in summary.values():
    speed = "" if s["tool"] == "neardup" else f"{s['neardup_speedup']:.1f}×"
    cpu = "" if s["tool"] == "neardup" or not s["neardup_cpu_ratio"] else f"{s['neardup_cpu_ratio']:.1f}×"
    print(f"| {s['tool']} | {s['median_s']:.3f} | {s['docs_per_s']:,.0f} | {s['mb_per_s']:.2f} "
          f"| {speed} | {s['cpu_s']:.2f} | {cpu} | {s['peak_rss_kb'] / 1024:.0f} | {s['kept']:,} "
          f"| {s['kept_from_edited_copies']:,} | {s['kept_also_by_neardup']:,} |")
print("\nneardup faster (wall), peer over neardup in the same round: " + "; ".join(
    f"{s['tool']} {s['neardup_speedup_per_round']}" for s in summary.values()
    if s["neardup_speedup_per_round"]))
print("\nPeers' own clocks (median s): read + parse | fingerprint (Pool 2) | index | total; "
      "worker peak RSS")
for s in summary.values():
    if "inner_total_s" in s:
        print(f"  {s['tool']}: {s['inner_read_s']} | {s['inner_fingerprint_s']} "
              f"| {s['inner_index_s']} | {s['inner_total_s']}; "
              f"{s['worker_peak_rss_kb'] / 1024:.0f} MB")
PY
bench_record dedup
