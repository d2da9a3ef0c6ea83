#!/usr/bin/env bash
# neardup.spark's dedup on a local Spark cluster against the CLI's
# components on the same corpus, at N/10 and N documents, and the time of
# 10 N projected from how the two scale.
#
#   bench/spark.sh                       # N = 1,000,000
#   N=100000 MASTER='local-cluster[2,1,2048]' bench/spark.sh
#
# Corpus: N generated documents with planted near-duplicates
# (bindings/python/tests/planted.py, seed 3; English words, 20 to 400
# each, a fifth edited copies and a twentieth exact copies of earlier
# ones), written once to bench/results/spark-planted-N.jsonl with a "pos"
# field (input order). The CLI: `neardup dedup FILE --cluster components`
# (its defaults otherwise), timed whole. Spark: MASTER (default
# local-cluster[2,1,1024]: two executors of one core and 1 GB each, as the
# tests run), neardup.spark.fates(order_col="pos"), from reading the file to
# collecting the dropped ids; the dropped set must equal the CLI's.
# Needs bindings/python/.venv (scripts/test-python.sh) with the wheel
# installed. Appends JSON lines to bench/results/spark.jsonl.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-1000000}"
master="${MASTER:-local-cluster[2,1,1024]}"
py=bindings/python/.venv/bin/python
neardup=target/release/neardup
bench_build -p neardup-cli
commit=$(bench_commit)
bench_scratch
bench_begin spark N MASTER

for size in $((n / 10)) "$n"; do
    corpus=bench/results/spark-planted-$size.jsonl
    if [ ! -s "$corpus" ]; then
        $py - "$size" "$corpus" <<'PY'
import json, sys
sys.path.insert(0, "bindings/python/tests")
from planted import documents
n, out = int(sys.argv[1]), sys.argv[2]
with open(out + ".tmp", "w", encoding="utf-8") as f:
    for pos, (i, t) in enumerate(documents(n, seed=3)):
        f.write(json.dumps({"id": i, "text": t, "pos": pos}) + "\n")
import os; os.replace(out + ".tmp", out)
PY
    fi
    out="$scratch/out-$size"
    start=$(bench_now_ns)
    $neardup dedup "$corpus" --out "$out" --cluster components -q
    cli_s=$(echo "scale=3; ($(bench_now_ns) - $start) / 1000000000" | bc)
    spark=$($py bench/spark_dedup.py "$corpus" "$out/duplicates.jsonl" "$master")
    rm -rf "$out"
    line="{\"commit\": \"$commit\", \"master\": \"$master\", \"cli_seconds\": $cli_s, ${spark#\{}"
    echo "$line"
    echo "$line" >> bench/results/spark.jsonl
done
bench_record spark
echo "projection for $((n * 10)) documents: see docs/SPARK.md (t(10N) = t(N) * (t(N) / t(N/10)))"
