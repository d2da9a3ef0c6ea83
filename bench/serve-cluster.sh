#!/usr/bin/env bash
# neardup serve --store-text on a cluster of templated pages (each new page
# a near-duplicate of all before it, so its text is judged against every
# stored one): N inserts one by one (default 800), ROUNDS times (default
# 3), each into a new store. Prints one JSON line a round, appended to
# bench/results/serve-cluster.jsonl and recorded (bench/driver.sh).
#
#   bench/serve-cluster.sh
#   N=400 ROUNDS=1 bench/serve-cluster.sh
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-800}"
port="${PORT:-18092}"
bench_build -p neardup-cli
bench_scratch
bench_begin serve-cluster N ROUNDS
for round in $(seq "${ROUNDS:-3}"); do
    target/release/neardup serve --index "$scratch/store-$round" --store-text \
        --listen "127.0.0.1:$port" 2>>"$scratch/server.log" &
    server=$!
    bench_wait_ready "http://127.0.0.1:$port" "$server" "$scratch/server.log"
    python3 bench/serve_cluster.py "http://127.0.0.1:$port" "$n" | tee -a bench/results/serve-cluster.jsonl
    kill -TERM "$server"; wait "$server" 2>/dev/null || true
    server=""
done
bench_record serve-cluster
