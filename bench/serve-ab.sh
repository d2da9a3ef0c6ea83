#!/usr/bin/env bash
# Two builds of `neardup serve` against each other on one store: N random
# 64-bit fingerprints at k = 3 (default N = 10^7, written by the load
# example as bench/serve.sh does), then single-fingerprint queries (wrk,
# 2 threads, 32 connections, 20 s) with each build in turn, ROUNDS times
# (default 3) alternating: first on the segments the bulk load left
# (tiers), then on the same store merged into one segment; then durable
# inserts (wrk, 2 threads, 64 connections, one new fingerprint a request)
# with each build in turn, each round on a copy of the merged store. The
# machine is shared and its speed drifts within minutes, so only rounds
# taken in turn say whether a change moved the service.
#
#   OLD=/path/to/neardup-before NEW=/path/to/neardup-after bench/serve-ab.sh
#   OLD=… NEW=… N=1e6 ROUNDS=1 SECONDS_EACH=5 bench/serve-ab.sh
#
# A build of an earlier commit: `git worktree add /tmp/before REV`, then
# `cargo build --release -p neardup-cli` there (with CARGO_TARGET_DIR set
# to a directory of its own). Needs wrk. Results: bench/results/serve-ab.jsonl.
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
old="${OLD:?OLD=path to the neardup binary before the change}"
new="${NEW:?NEW=path to the neardup binary after it}"
n="${N:-1e7}"
rounds="${ROUNDS:-3}"
seconds="${SECONDS_EACH:-20}"
port="${PORT:-18095}"
url="http://127.0.0.1:$port"
bench_needs wrk wrk
bench_build -p neardup-server --example load
load=target/release/examples/load
bench_scratch serve-ab.XXXXXX
bench_begin serve-ab OLD NEW N ROUNDS SECONDS_EACH

"$load" fill "$scratch/store" "$n" >&2
"$load" bodies "$n" 200000 > "$scratch/bodies.jsonl"

# Starts build $1 on store $3 (default: the filled one) with
# --compact-after $2; sets $server.
start() {
    "$1" serve --index "${3:-$scratch/store}" -k 3 --listen "127.0.0.1:$port" \
        --compact-after "$2" 2>>"$scratch/server.log" &
    server=$!
    bench_wait_ready "$url" "$server" "$scratch/server.log"
}
stop() { kill -TERM "$server"; wait "$server" 2>/dev/null || true; server=""; }

# One round of each build, in turn, on the store as it is.
rounds() {
    for round in $(seq "$rounds"); do
        for build in old new; do
            local binary="$old"
            [ "$build" = new ] && binary="$new"
            start "$binary" 0
            local segs out
            segs=$(bench_segments "$url")
            out=$(BODIES="$scratch/bodies.jsonl" wrk -t2 -c32 -d"${seconds}s" --latency \
                -s bench/serve-query.lua "$url")
            stop
            bench_wrk_read "$out"
            echo "{\"what\": \"query\", \"build\": \"$build\", \"binary\": \"$binary\", \"round\": $round, \"segments\": $segs, \"fingerprints\": $n, \"requests_per_second\": $wrk_rps, \"p99\": \"$wrk_p99\"}" \
                | tee -a "$scratch/rows"
        done
    done
}

rounds
# Merged into one segment by the new build's idle compaction.
start "$new" 1
until [ "$(bench_segments "$url")" = 1 ]; do sleep 1; done
stop
rounds

# Durable inserts, each build on its own copy of the merged store.
for round in $(seq "$rounds"); do
    for build in old new; do
        binary="$old"
        [ "$build" = new ] && binary="$new"
        rm -rf "$scratch/inserted"
        cp -r "$scratch/store" "$scratch/inserted"
        start "$binary" 0 "$scratch/inserted"
        out=$(wrk -t2 -c64 -d"${seconds}s" --latency -s bench/serve-insert.lua "$url")
        stop
        bench_wrk_read "$out"
        echo "{\"what\": \"insert\", \"build\": \"$build\", \"binary\": \"$binary\", \"round\": $round, \"connections\": 64, \"fingerprints\": $n, \"requests_per_second\": $wrk_rps, \"p99\": \"$wrk_p99\"}" \
            | tee -a "$scratch/rows"
    done
done
cat "$scratch/rows" >> bench/results/serve-ab.jsonl
echo "rows added to bench/results/serve-ab.jsonl" >&2
bench_record serve-ab
