#!/usr/bin/env bash
# Long, mutually similar documents (many candidate pairs, few true
# duplicates): what verification costs where it has most to do.
#
#   bench/dedup-similar.sh          # about 30 MB
#   MAX_MB=100 RUNS=5 bench/dedup-similar.sh
#
# Input, written once to bench/results/similar.jsonl: the licence and
# copyright texts already on the machine (/usr/share/common-licenses,
# /usr/share/doc/*/copyright, LICENSE files of the crates under
# ~/.cargo/registry) and its manual pages (troff source), in path order,
# until MAX_MB. The machine's packages decide what is there, so the
# file is rebuilt with the results' other numbers, not compared across
# machines.
#
# Runs `neardup dedup` at its defaults and with --verify none (SimHash
# alone), alternately, RUNS times each (default 3), and prints the medians
# and the throughput of the defaults as a share of --verify none's, both
# measured in this run. A JSON line is appended to
# bench/results/dedup-similar.jsonl.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-3}"
max_mb="${MAX_MB:-30}"
bench_neardup
input=bench/results/similar.jsonl
if [[ ! -f "$input" ]]; then
    python3 - "$input" "$max_mb" <<'PY'
import glob, gzip, json, os, sys
path, max_mb = sys.argv[1], float(sys.argv[2])
home = os.path.expanduser("~")
paths = sorted(glob.glob("/usr/share/common-licenses/*")) \
    + sorted(glob.glob("/usr/share/doc/*/copyright")) \
    + sorted(glob.glob(home + "/.cargo/registry/src/*/*/LICENSE*")) \
    + sorted(glob.glob("/usr/share/man/man[1-8]/*.gz"))
total, docs = 0, 0
tmp = path + ".tmp"
with open(tmp, "w") as out:
    for p in paths:
        if total > max_mb * 1e6 or not os.path.isfile(p):
            continue
        try:
            raw = gzip.open(p).read() if p.endswith(".gz") else open(p, "rb").read()
            text = raw.decode("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        if len(text) < 200:
            continue
        out.write(json.dumps({"id": p, "text": text}) + "\n")
        total += len(text.encode())
        docs += 1
os.replace(tmp, path)
print(f"{path}: {docs} documents, {total / 1e6:.1f} MB", file=sys.stderr)
PY
fi
bench_scratch
commit="$(bench_commit)"
bench_begin dedup-similar RUNS MAX_MB NEARDUP
for round in $(seq "$runs"); do
    for flags in "" "--verify none"; do
        # shellcheck disable=SC2086 # flags are words
        bench_time "$scratch/time" \
            "$neardup" dedup "$input" --out "$scratch/out" --force -q $flags
        echo "${flags:-defaults}|$(cat "$scratch/time")|$(python3 -c '
import json, sys; s = json.load(open(sys.argv[1]))
print(s["documents"], s["unique"], s["candidate_pairs"])' "$scratch/out/summary.json")" \
            >> "$scratch/runs"
    done
done
python3 - "$scratch/runs" "$input" "$commit" <<'PY' | tee -a bench/results/dedup-similar.jsonl
import json, os, statistics, sys
runs, path, commit = sys.argv[1:]
by = {}
for line in open(runs):
    name, timed, counts = line.strip().split("|")
    wall, user, system, rss = timed.split()
    docs, unique, candidates = counts.split()
    by.setdefault(name, []).append((float(wall), float(user) + float(system), int(rss), int(docs), int(unique), int(candidates)))
row = {"commit": commit, "input_bytes": os.path.getsize(path)}
for name, rs in by.items():
    row[name] = {"wall_s": statistics.median(r[0] for r in rs), "cpu_s": statistics.median(r[1] for r in rs),
                 "peak_rss_mb": round(max(r[2] for r in rs) / 1024, 1), "documents": rs[0][3],
                 "unique": rs[0][4], "candidate_pairs": rs[0][5]}
row["defaults_share_of_verify_none"] = round(row["--verify none"]["wall_s"] / row["defaults"]["wall_s"], 3)
print(json.dumps(row))
PY
bench_record dedup-similar
