#!/usr/bin/env bash
# `--memory` as a budget: one input deduplicated at the default budget,
# then at a tenth and a hundredth of its size; the process's own memory
# (anonymous, sampled) against the budget, the wall time against the
# default run's, and the kept set compared.
#
#   bench/dedup-budget.sh                      # both inputs below
#   INPUTS=planted bench/dedup-budget.sh       # one of them
#
# Inputs, 2 GB of JSON lines each, written once into bench/results/:
# - planted: 2.54 million documents of 85 to 115 words of the KJV, one in
#   ten a planted near-duplicate of an earlier one
#   (bench/short_documents.py, seeded): no document is short, so the run
#   is carried by the fingerprints' pairs and the kept documents' sketches.
# - news: 190 copies of BBC News and People's Daily, half of each copy's
#   articles exact copies and half lightly edited (bench/edited_copies.py):
#   1.03 million documents in clusters of near-duplicates.
#
# Each run is the whole process under /usr/bin/time, with a sampler of its
# resident memory every half second (anonymous and file-backed apart: the
# pages of mapped temporary files count in RSS but are the system's to
# evict). A JSON line per run goes to bench/results/dedup-budget.jsonl,
# with `anon_over_budget` (at most 1.25 is the goal), `wall_over_default`
# (at most 2) and whether the kept set equals the default run's; the
# script fails when the kept set differs.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
bench_neardup
inputs="${INPUTS:-planted news}"
planted=bench/results/budget-planted.jsonl
news=bench/results/large-190.jsonl
for name in $inputs; do
    case "$name" in
        planted)
            [[ -f "$planted" ]] || python3 bench/short_documents.py 2540000 "$planted" \
                --words 85-115 --jobs "${JOBS:-2}"
            ;;
        news)
            bench_corpora bbc peoples_daily
            [[ -f "$news" ]] || python3 bench/edited_copies.py --copies 190 --exact 0.5 "$news" \
                data/corpora/bbc.jsonl data/corpora/peoples_daily.jsonl
            ;;
        *)
            echo "INPUTS: planted or news, not $name" >&2
            exit 2
            ;;
    esac
done
bench_scratch budget.XXXXXX
commit="$(bench_commit)"
bench_begin dedup-budget INPUTS NEARDUP

# measure INPUT-NAME INPUT BUDGET-NAME [FLAGS...]: one run, one JSON line;
# the default run's kept set and wall time are the others' reference.
measure() {
    local name="$1" input="$2" budget="$3"
    shift 3
    rm -f "$scratch/done"
    bench_sample_memory "^$neardup dedup $input --out $scratch/out" "$scratch/sampled" \
        "$scratch/done" &
    local sampler=$!
    bench_time "$scratch/time" "$neardup" dedup "$input" --out "$scratch/out" --force "$@" \
        2> "$scratch/stderr"
    touch "$scratch/done"
    wait "$sampler" || true
    python3 - "$name" "$input" "$budget" "$(tail -1 "$scratch/time")" "$(cat "$scratch/sampled")" \
        "$scratch" "$commit" <<'PY' | tee -a bench/results/dedup-budget.jsonl
import hashlib, json, os, sys
name, path, budget, timed, sampled, scratch, commit = sys.argv[1:]
wall, user, system, rss = timed.split()
anon_kb, file_kb = sampled.split()
s = json.load(open(os.path.join(scratch, "out", "summary.json")))
kept = hashlib.sha256(open(os.path.join(scratch, "out", "unique.jsonl"), "rb").read()).hexdigest()[:16]
reference = os.path.join(scratch, f"{name}.default")
if budget == "default":
    open(reference, "w").write(f"{kept} {wall}")
ref_kept, ref_wall = open(reference).read().split()
budget_mb = None if budget == "default" else int(budget) / 2**20
anon_mb = int(anon_kb) / 1024
print(json.dumps({
    "input": name, "input_gb": round(os.path.getsize(path) / 1e9, 2), "documents": s["documents"],
    "budget_mb": budget_mb and round(budget_mb), "commit": commit, "unique": s["unique"],
    "wall_s": float(wall), "cpu_s": round(float(user) + float(system), 1),
    "peak_rss_mb": round(int(rss) / 1024), "anon_mb": round(anon_mb),
    "file_mb": round(int(file_kb) / 1024),
    "anon_over_budget": budget_mb and round(anon_mb / budget_mb, 2),
    "wall_over_default": round(float(wall) / float(ref_wall), 2),
    "same_kept": kept == ref_kept, "kept_sha256": kept,
    "below_floor": "below this run's floor" in " ".join(s.get("notes", [])),
    "spilling": sorted({l.split(" to temporary")[0][len("neardup: spilling "):]
                        for l in open(os.path.join(scratch, "stderr")) if l.startswith("neardup: spilling ")}),
}))
PY
}

for name in $inputs; do
    input="$planted"
    [[ "$name" == news ]] && input="$news"
    size=$(stat -c %s "$input")
    measure "$name" "$input" default
    for part in 10 100; do
        measure "$name" "$input" $((size / part)) --memory $((size / part))
    done
done
bench_record dedup-budget
python3 - <<'PY'
import json
rows = json.load(open("bench/results/dedup-budget.json"))["rows"]
bad = [r for r in rows if not r["same_kept"]]
for r in rows:
    print(f'{r["input"]:8} {str(r["budget_mb"] or "default"):>8} MB  {r["wall_s"]:7.1f} s '
          f'({r["wall_over_default"]}x)  anon {r["anon_mb"]} MB ({r["anon_over_budget"]}x)  '
          f'same kept: {r["same_kept"]}  floor note: {r["below_floor"]}')
if bad:
    raise SystemExit(f"{len(bad)} runs kept another set than the default run")
PY
