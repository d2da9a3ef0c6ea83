#!/usr/bin/env bash
# All pairs within k = 3 bits: neardup's join against brute force and the
# peers, on the same random 64-bit fingerprints with 1% planted
# near-duplicates (1 to 3 bits from a random original).
#
#   bench/pairs.sh            # 10^5, 10^6 and 10^7 fingerprints
#   BIG=1 bench/pairs.sh      # and 10^8 (neardup only; about 2 GB of memory)
#
# neardup: crates/index/examples/pairs.rs, median of RUNS (default 3), on
# one core (taskset -c 0, RAYON_NUM_THREADS=1) and on both; it checks that
# every planted pair was found and reports peak memory per fingerprint.
# Brute force (one thread) at 10^5 only. Peers (bench/peers/pairs_peers.py,
# one run each, on core 0): simhash-pybind's find_all at every size, PyPI
# simhash's SimhashIndex at 10^5. Results go to bench/results/pairs.jsonl.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-3}"
results=bench/results/pairs.jsonl
bench_peers
bench/peers/setup-pybind.sh
bench_build_portable -p neardup-index --example pairs
exe=target/release/examples/pairs
bench_scratch
bench_begin pairs RUNS BIG
: > "$scratch/rows"

sizes=(1e5 1e6 1e7)
if [[ -n "${BIG:-}" ]]; then
    sizes+=(1e8)
fi
for n in "${sizes[@]}"; do
    planted=$(python3 -c "print(int(float('$n') / 100))")
    file="$scratch/fps-$n.bin"
    echo "n = $n" >&2
    RAYON_NUM_THREADS=2 taskset -c 0,1 "$exe" --n "$n" --planted "$planted" --runs "$runs" \
        --dump "$file" | tee -a "$scratch/rows"
    if [[ "$n" != 1e8 ]]; then
        RAYON_NUM_THREADS=1 taskset -c 0 "$exe" --n "$n" --planted "$planted" --runs "$runs" \
            | tee -a "$scratch/rows"
        taskset -c 0 bench/.venv-pybind/bin/python bench/peers/pairs_peers.py \
            --peer simhash-pybind "$file" | tee -a "$scratch/rows"
    fi
    if [[ "$n" == 1e5 ]]; then
        RAYON_NUM_THREADS=1 taskset -c 0 "$exe" --n "$n" --planted "$planted" --runs 1 --brute \
            | tee -a "$scratch/rows"
        taskset -c 0 bench/.venv/bin/python bench/peers/pairs_peers.py \
            --peer simhash-index "$file" | tee -a "$scratch/rows"
    fi
    rm -f "$file"
done

python3 - "$scratch/rows" "$results" "$(bench_commit)" \
    "$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
commit, cpu = sys.argv[3], sys.argv[4]
with open(sys.argv[2], "a") as f:
    for r in rows:
        f.write(json.dumps({**r, "commit": commit, "cpu": cpu}) + "\n")
print(f"\ncommit {commit}; {cpu}\n")
print("| fingerprints | tool | threads | pairs | s | neardup (2 threads) faster | bytes/fp |")
print("|--:|---|--:|--:|--:|--:|--:|")
ours = {r["n"]: r for r in rows if r["tool"] == "neardup" and r.get("threads") == 2}
for r in rows:
    o = ours.get(r["n"])
    ratio = f"{r['median_s'] / o['median_s']:.0f}×" if o and r is not o and o["median_s"] > 0 else ""
    mem = f"{r['peak_bytes_per_fingerprint']:.1f}" if "peak_bytes_per_fingerprint" in r else ""
    print(f"| {r['n']:,} | {r['tool']} | {r.get('threads', 1)} | {r['pairs']:,} "
          f"| {r['median_s']:.3f} | {ratio} | {mem} |")
PY
bench_record pairs
