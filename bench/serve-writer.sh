#!/usr/bin/env bash
# The writer's tail: builds of `neardup serve` in turn, each on its own
# copy of one store (N random 64-bit fingerprints at k = 3, default
# N = 10^6, written by the load example and merged into one segment), under
# durable single-fingerprint inserts (wrk, 2 threads, 64 connections) for
# SECONDS_EACH (default 60) seconds: long enough for about ten flushes
# and a few merges, which a 20 s run of bench/serve-ab.sh mostly misses.
# Each row has wrk's rate, p50, p90 and p99, and the server's own
# histogram of its group commits' times (/metrics, neardup_commit_seconds;
# builds before da4742a have none). ROUNDS (default 3) rounds, the builds
# alternating: the machine is shared, only rounds in turn compare builds.
#
#   bench/serve-writer.sh OLD=/path/to/neardup NEW=target/release/neardup
#   N=1e6 ROUNDS=1 SECONDS_EACH=30 bench/serve-writer.sh A=… B=… C=…
#
# Each argument is NAME=BINARY. Needs wrk. Rows: bench/results/serve-writer.jsonl.
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
[ "${#bench_args[@]}" -ge 1 ] || { echo "give builds as NAME=BINARY" >&2; exit 2; }
n="${N:-1e6}"
rounds="${ROUNDS:-3}"
seconds="${SECONDS_EACH:-60}"
port="${PORT:-18096}"
url="http://127.0.0.1:$port"
bench_needs wrk wrk
bench_build -p neardup-server --example load
load=target/release/examples/load
bench_scratch serve-writer.XXXXXX
commit=$(bench_commit)
bench_begin serve-writer N ROUNDS SECONDS_EACH

if ss -ltn | grep -q ":$port "; then
    echo "port $port is taken (a server left running?): free it or set PORT" >&2
    exit 1
fi
"$load" fill "$scratch/store" "$n" >&2
"$load" compact "$scratch/store" >&2

for round in $(seq "$rounds"); do
    for build in "${bench_args[@]}"; do
        name="${build%%=*}"
        binary="${build#*=}"
        rm -rf "$scratch/inserted"
        cp -r "$scratch/store" "$scratch/inserted"
        "$binary" serve --index "$scratch/inserted" -k 3 --listen "127.0.0.1:$port" \
            --compact-after 0 2>>"$scratch/server.log" &
        server=$!
        bench_wait_ready "$url" "$server" "$scratch/server.log"
        out=$(wrk -t2 -c64 -d"${seconds}s" --latency -s bench/serve-insert.lua "$url")
        metrics=$(curl -sf "$url/metrics")
        kill -TERM "$server"
        wait "$server" 2>/dev/null || true
        server=""
        bench_wrk_read "$out"
        p50=$(grep " 50%" <<<"$out" | awk '{print $2}')
        p90=$(grep " 90%" <<<"$out" | awk '{print $2}')
        # The cumulative buckets as {"le": count}, and the merges made.
        commits=$(awk '/^neardup_commit_seconds_bucket/ {split($1, a, "\""); printf "%s\"%s\": %s", sep, a[2], $2; sep=", "}' <<<"$metrics")
        merges=$(awk '/^neardup_merges_total/ {print $2}' <<<"$metrics")
        echo "{\"what\": \"insert\", \"build\": \"$name\", \"binary\": \"$binary\", \"round\": $round, \"connections\": 64, \"seconds\": $seconds, \"fingerprints\": $n, \"requests_per_second\": $wrk_rps, \"p50\": \"$p50\", \"p90\": \"$p90\", \"p99\": \"$wrk_p99\", \"merges\": ${merges:-null}, \"commit_seconds_le\": {$commits}, \"commit\": \"$commit\"}" \
            | tee -a bench/results/serve-writer.jsonl
    done
done
