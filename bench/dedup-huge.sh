#!/usr/bin/env bash
# Many short documents with planted near-duplicates: how the job scales in
# documents (issue 12 asks for 100 million at the defaults).
#
#   N=1000000 bench/dedup-huge.sh                 # the defaults
#   N=10000000 FLAGS="--verify none" bench/dedup-huge.sh
#   N=100000000 WORDS=20-25 MAX_LETTERS=6 bench/dedup-huge.sh   # 16 GB
#   N=1000000 WORDS=20-25 MAX_LETTERS=6 ZIPF=1000000 EDIT=end bench/dedup-huge.sh
#
# Input, written once to bench/results/huge-N[-wWORDS-lMAX_LETTERS].jsonl by
# a seeded generator (bench/short_documents.py): documents of 20 to 40 words
# (WORDS) drawn from the vocabulary of the KJV (samples/bible/kjv.jsonl,
# public domain; words of at most MAX_LETTERS letters if set, for a smaller
# file; ZIPF=V: V words by Zipf's law); one in ten is a planted
# near-duplicate: an earlier document with one word replaced (its id says
# which: "dup-of-<id>"), any word, or the last with EDIT=end (the file name
# then ends in -end): at the default --threshold 0.8 only the latter is a
# near-duplicate of a 20-word text (docs/BENCHMARKS-LOG.md). After the run, every planted document must be
# dropped (or be an exact copy of a dropped one), and the script prints how
# many were not. Whole process under /usr/bin/time, its passes timed from
# its lines on stderr ("passes": seconds from the start, what it said: the
# gaps between passes are the work between them); a JSON line is appended
# to bench/results/dedup-huge.jsonl, with a hash of the kept ids (the same
# hash, the same kept set).
#
# With CAP_MB, the run is given `--memory ${CAP_MB}M` and runs inside a
# memory cgroup limited to CAP_MB (page cache included; needs root and
# cgroup v1 or v2), whose peak use is recorded too:
#
#   N=1000000 CAP_MB=256 bench/dedup-huge.sh

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-1000000}"
flags="${FLAGS:-}"
bench_neardup
words="${WORDS:-20-40}"
letters="${MAX_LETTERS:-}"
zipf="${ZIPF:-}"
edit="${EDIT:-word}"
at_end=""
[[ "$edit" == word ]] || at_end="-$edit"
input="bench/results/huge-$n.jsonl"
[[ "$words" == 20-40 && -z "$letters" && -z "$zipf" && -z "$at_end" ]] ||
    input="bench/results/huge-$n-w$words${letters:+-l$letters}${zipf:+-z$zipf}$at_end.jsonl"
[[ -f "$input" ]] || python3 bench/short_documents.py "$n" "$input" --words "$words" \
    ${letters:+--max-letters "$letters"} ${zipf:+--zipf "$zipf"} --edit "$edit" \
    --jobs "${JOBS:-1}"
bench_scratch
group=""
trap 'bench_cleanup; [[ -z "$group" ]] || rmdir "$group" 2>/dev/null || true' EXIT
wrap=()
peak_file=""
if [[ -n "${CAP_MB:-}" ]]; then
    flags="$flags --memory ${CAP_MB}M"
    if [[ -f /sys/fs/cgroup/cgroup.controllers ]] && mkdir -p /sys/fs/cgroup/neardup-huge 2>/dev/null; then
        group=/sys/fs/cgroup/neardup-huge
        echo $((CAP_MB << 20)) > "$group/memory.max"
        peak_file="$group/memory.peak"
    elif [[ -d /sys/fs/cgroup/memory ]] && mkdir -p /sys/fs/cgroup/memory/neardup-huge 2>/dev/null; then
        group=/sys/fs/cgroup/memory/neardup-huge
        echo $((CAP_MB << 20)) > "$group/memory.limit_in_bytes"
        peak_file="$group/memory.max_usage_in_bytes"
    else
        echo "CAP_MB: cannot make a memory cgroup here (needs root)" >&2
        exit 1
    fi
    # The wrapper moves itself into the group, then runs the command.
    wrap=(sh -c 'echo $$ > "$0/cgroup.procs" && exec "$@"' "$group")
fi
# Peak RSS counts the pages of mapped temporary files, which the system
# may evict: the sampler records anonymous and file-backed memory apart.
bench_begin dedup-huge N FLAGS WORDS MAX_LETTERS ZIPF EDIT CAP_MB NEARDUP
bench_sample_memory "^$neardup dedup .*--out $scratch/out" "$scratch/sampled" "$scratch/done" &
sampler=$!
# The run's lines on stderr (a pass's start and end), each with the
# seconds since the start: where the time went, in the JSON line.
started=$(date +%s.%N)
# shellcheck disable=SC2086 # flags are words
bench_time "$scratch/time" "${wrap[@]}" \
    "$neardup" dedup "$input" --out "$scratch/out" --force $flags \
    2> >(while IFS= read -r line; do
        awk -v s="$started" -v now="$(date +%s.%N)" -v l="$line" 'BEGIN { printf "%.1f %s\n", now - s, l }'
    done > "$scratch/said")
touch "$scratch/done"
wait "$sampler" || true
read -r anon_kb file_kb < "$scratch/sampled" || { anon_kb=0; file_kb=0; }
peak=""
[[ -z "$peak_file" ]] || peak="$(cat "$peak_file" 2>/dev/null || true)"
sleep 1 # the stderr reader's last line
python3 - "$n" "$flags" "$(tail -1 "$scratch/time")" "$scratch/out" "$(bench_commit)" "$peak" "$anon_kb" "$file_kb" "$scratch/said" <<'PY' | tee -a bench/results/dedup-huge.jsonl
import hashlib, json, os, sys
n, flags, timed, out, commit, peak, anon_kb, file_kb, said = sys.argv[1:]
# "12.3 neardup: pass 1/3 fingerprinting: 10000000 documents in 26.1 s"
lines = [line.split(" ", 1) for line in open(said) if line.strip()]
passes = [[round(float(t), 1), text.strip().removeprefix("neardup: ")]
          for t, text in lines
          if text.startswith("neardup: pass") or text.strip().endswith(" s so far)")]
wall, user, system, rss = timed.split()
s = json.load(open(os.path.join(out, "summary.json")))
missed = 0
kept = hashlib.sha256()
with open(os.path.join(out, "unique.jsonl")) as f:
    for line in f:
        doc_id = json.loads(line)["id"]
        kept.update(doc_id.encode() + b"\n")
        if doc_id.startswith("dup-of-"):
            missed += 1
print(json.dumps({
    "documents": s["documents"], "flags": flags, "commit": commit, "unique": s["unique"],
    "planted_kept": missed, "candidate_pairs": s["candidate_pairs"],
    "wall_s": float(wall), "cpu_s": float(user) + float(system),
    "peak_rss_mb": round(int(rss) / 1024, 1),
    "bytes_per_document": round(int(rss) * 1024 / max(s["documents"], 1), 1),
    "cgroup_peak_mb": round(int(peak) / 2**20, 1) if peak else None,
    "sampled_anon_mb": round(int(anon_kb) / 1024, 1),
    "sampled_file_mb": round(int(file_kb) / 1024, 1),
    "kept_sha256": kept.hexdigest()[:16],
    "passes": passes,
}))
PY
bench_record dedup-huge
