#!/usr/bin/env bash
# `neardup dedup` on a corpus larger than the memory it uses: peak memory in
# all and per document.
#
#   bench/dedup-large.sh                 # 100 copies: 1.08 GB, 543,200 documents
#   COPIES=400 CAP_MB=1024 bench/dedup-large.sh   # 4.3 GB under a 1 GiB memory cap
#
# Input: COPIES copies of BBC News and People's Daily (English and Chinese,
# 10.8 MB and 5,432 articles a copy) by bench/edited_copies.py: copy 0 as it
# is; in each later copy, half of the articles are exact copies and half
# lightly edited (one word, or one character for Chinese, deleted or
# replaced in every 100), seeded, so the file is the same on every machine.
# It is written once to bench/results/large-COPIES.jsonl.
#
# Runs `neardup dedup` (its defaults, both cores) on one copy and on all of
# them, and on all of them with --verify none (SimHash alone: what
# verification costs, measured in the same run), each the whole process
# under /usr/bin/time (peak RSS, wall and CPU seconds). The growth of peak RSS from one copy to all, divided by the
# documents added, is the memory a document costs; what one copy needs is
# mostly fixed (the Chinese dictionary and IDF tables, buffers). With
# CAP_MB, the big run is repeated inside a memory cgroup limited to CAP_MB
# (page cache included), which needs root and cgroup v1 or v2; the script
# says so if it cannot make one; the capped run must keep the same documents
# (the SHA-256 of unique.jsonl is compared). A JSON line per run is appended
# to bench/results/dedup-large.jsonl, and the ratios are printed last.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
copies="${COPIES:-100}"
bench_neardup
results=bench/results/dedup-large.jsonl
bench_corpora bbc peoples_daily
one=bench/results/large-1.jsonl
all="bench/results/large-$copies.jsonl"
for spec in "1 $one" "$copies $all"; do
    set -- $spec
    [[ -f "$2" ]] || python3 bench/edited_copies.py --copies "$1" --exact 0.5 "$2" \
        data/corpora/bbc.jsonl data/corpora/peoples_daily.jsonl
done
bench_scratch
commit="$(bench_commit)"

# measure NAME INPUT "FLAGS" [WRAPPER...]: one run, one JSON line.
measure() {
    local name="$1" input="$2" flags="$3"
    shift 3
    # shellcheck disable=SC2086 # FLAGS are words
    "$@" /usr/bin/time -f '%e %U %S %M' -o "$scratch/time" \
        "$neardup" dedup "$input" --out "$scratch/out" --force -q $flags
    python3 - "$name" "$input" "$(tail -1 "$scratch/time")" "$scratch/out" \
        "$commit" <<'PY' | tee -a "$results"
import hashlib, json, os, sys
name, path, timed, out, commit = sys.argv[1:]
wall, user, system, rss = timed.split()
s = json.load(open(os.path.join(out, "summary.json")))
digest = hashlib.sha256()
with open(os.path.join(out, "unique.jsonl"), "rb") as f:
    for block in iter(lambda: f.read(1 << 20), b""):
        digest.update(block)
print(json.dumps({
    "run": name, "commit": commit, "input_bytes": os.path.getsize(path),
    "documents": s["documents"], "unique": s["unique"], "exact_copies": s["exact_copies"],
    "pairs": s["pairs"], "wall_s": float(wall), "cpu_s": float(user) + float(system),
    "peak_rss_mb": int(rss) / 1024, "unique_sha256": digest.hexdigest(),
}))
PY
}

bench_begin dedup-large COPIES CAP_MB NEARDUP
measure "1 copy" "$one" ""
measure "$copies copies" "$all" ""
measure "$copies copies, --verify none" "$all" "--verify none"

if [[ -n "${CAP_MB:-}" ]]; then
    group=""
    if [[ -d /sys/fs/cgroup/memory ]] && mkdir -p /sys/fs/cgroup/memory/neardup-bench 2>/dev/null; then
        group=/sys/fs/cgroup/memory/neardup-bench
        echo $((CAP_MB << 20)) > "$group/memory.limit_in_bytes"
    elif [[ -f /sys/fs/cgroup/cgroup.controllers ]] && mkdir -p /sys/fs/cgroup/neardup-bench 2>/dev/null; then
        group=/sys/fs/cgroup/neardup-bench
        echo $((CAP_MB << 20)) > "$group/memory.max"
    fi
    if [[ -z "$group" ]]; then
        echo "CAP_MB: cannot make a memory cgroup here (needs root); skipped" >&2
    else
        # The wrapper moves itself into the group, then runs the command.
        measure "$copies copies, capped at $CAP_MB MB" "$all" "" \
            sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$group"
        rmdir "$group" 2>/dev/null || true
    fi
fi

python3 - "$results" "$copies" "$commit" <<'PY'
import json, sys
results, copies, commit = sys.argv[1:]
rows = [json.loads(l) for l in open(results)]
rows = [r for r in rows if r["commit"] == commit][-4:]
def run(name):
    return next((r for r in reversed(rows) if r["run"] == name), None)
one, big = run("1 copy"), run(f"{copies} copies")
bare = run(f"{copies} copies, --verify none")
capped = next((r for r in reversed(rows) if r["run"].startswith(f"{copies} copies, capped")), None)
grow = (big["peak_rss_mb"] - one["peak_rss_mb"]) * 2**20 / (big["documents"] - one["documents"])
print(f"{big['input_bytes'] / 1e9:.2f} GB, {big['documents']:,} documents: "
      f"peak RSS {big['peak_rss_mb']:.0f} MB ({one['peak_rss_mb']:.0f} MB for one copy), "
      f"{grow:.0f} bytes per added document, {big['wall_s']:.1f} s")
print(f"defaults / --verify none: {big['wall_s']:.1f} s / {bare['wall_s']:.1f} s = "
      f"{big['wall_s'] / bare['wall_s']:.2f}x wall, "
      f"{big['cpu_s'] / bare['cpu_s']:.2f}x CPU")
if capped:
    same = capped["unique_sha256"] == big["unique_sha256"]
    print(f"{capped['run']}: {capped['wall_s']:.1f} s = {capped['wall_s'] / big['wall_s']:.2f}x "
          f"the uncapped run; kept set {'the same' if same else 'DIFFERENT'}")
PY
bench_record dedup-large
