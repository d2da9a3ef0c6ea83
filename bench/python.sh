#!/usr/bin/env bash
# The Python package against its peers (bench/python_api.py says what each
# part measures): fingerprint_batch's throughput, neardup.compat against
# PyPI simhash on its README's usage, and neardup.dedup over a million
# texts in memory against rensa's and datasketch's dedup loops.
#
#   bench/python.sh                      # every part
#   PARTS="compat" bench/python.sh
#   DOCS=300000 PARTS=dedup bench/python.sh
#   ROUNDS=3 PARTS=dedup bench/python.sh   # rounds per part (default: 5, 3, 1)
#
# Builds the wheel (maturin, from bindings/python/.venv, made by
# scripts/test-python.sh) unless WHEEL names one, installs it into
# bench/.venv (bench/peers/setup.sh, the peers' pinned venv) and appends
# one JSON line per measurement to bench/results/python.jsonl. The dedup
# part takes 5 to 10 minutes on 2 cores (datasketch most of it).

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
parts="${PARTS:-fingerprint compat dedup}"
results=bench/results/python.jsonl

bench_peers
bench_corpora bbc tech_docs
if [ -z "${WHEEL:-}" ]; then
    if [ ! -x bindings/python/.venv/bin/maturin ]; then
        echo "bindings/python/.venv is missing: run scripts/test-python.sh once" >&2
        exit 1
    fi
    rm -f target/wheels/neardup-*.whl
    (cd bindings/python && CARGO_TARGET_DIR="$bench_root/target" "$bench_root/bindings/python/.venv/bin/maturin" \
        build --release -q --out "$bench_root/target/wheels")
    WHEEL=$(ls target/wheels/neardup-*.whl)
fi
bench/.venv/bin/pip install -q --disable-pip-version-check --force-reinstall --no-deps "$WHEEL"

commit=$(bench_commit)
bench_begin python PARTS DOCS ROUNDS WHEEL
for part in $parts; do
    bench/.venv/bin/python bench/python_api.py --part "$part" --docs "${DOCS:-1000000}" \
        ${ROUNDS:+--rounds "$ROUNDS"} \
        | while read -r line; do
            echo "$line"
            echo "{\"commit\": \"$commit\", \"date\": \"$(date -u +%FT%TZ)\", ${line#\{}" >> "$results"
        done
done
bench_record python
