#!/usr/bin/env bash
# neardup serve under load on loopback: a store of N random 64-bit
# fingerprints (k = 3; default N = 10^7), then
#   - restart: from starting `neardup serve` to /readyz answering, after a
#     clean stop (SIGTERM) and after SIGKILL, median of 3 each;
#   - the ceiling: wrk on GET /healthz, which does no work (what HTTP on
#     loopback allows, wrk sharing the cores);
#   - queries: wrk, one fingerprint a request (POST /v1/documents, mode
#     query; half of them stored fingerprints with 1 to 3 bits flipped),
#     2 threads and 32 connections for 20 s: requests a second and p99;
#     first on the segments the bulk load left (tiers, as under a steady
#     stream of writes), then once the idle service merged them into one
#     (--compact-after 5), where the load example also checks the answers
#     (every planted fingerprint found) with 16 clients for 10 s;
#   - durable inserts: wrk, one new fingerprint a request (mode insert,
#     acknowledged after the group commit syncs it), 64 and 256
#     connections, 20 s each;
#   - memory: the fill's peak RSS, and the server's anonymous and
#     file-backed RSS after the queries (per stored fingerprint), with the
#     store's bytes on disk.
# Server and load share the machine's cores, as on a 2-core box they must.
# Needs wrk (Debian package wrk). Rows: bench/results/serve.jsonl, the
# run bench/results/serve.json (another N than 1e7: serve-N.jsonl and
# serve-N.json).
#
# Each wrk measurement is made ROUNDS times (default 3): the machine is
# shared, so take the median.
#
#   bench/serve.sh            N = 10^7
#   N=1e6 ROUNDS=1 bench/serve.sh
#
# STORE=DIR takes the store of N fingerprints that
# `target/release/examples/load fill DIR N` made (10^8 took 48 to 72
# minutes to fill before 3569184, whose batches scanned their own ids,
# and 62 minutes at 5965771 on a machine at half speed beside builds;
# 10^6 went from 51.5 to 11.7 s) instead of
# filling one: its segments are hard-linked (so
# their cached pages are the ones the fill wrote; DIR must be on the
# filesystem of bench/results) and its log and documents file copied, so DIR is left as it
# was for the next run; no fill row is written then. TAG=T records under
# serve-N-T (a store unlike the fill's, say one merged already, keeps its
# own record).
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-1e7}"
name=serve
[[ "$n" == 1e7 ]] || name="serve-$n"
[[ -z "${TAG:-}" ]] || name="$name-$TAG"
rounds="${ROUNDS:-3}"
port="${PORT:-18090}"
url="http://127.0.0.1:$port"
bench_needs wrk wrk
bench_build -p neardup-cli
bench_build -p neardup-server --example load
load=target/release/examples/load
bench_scratch serve.XXXXXX
results="$scratch/rows"
commit=$(bench_commit)
bench_begin "$name" N ROUNDS STORE TAG

count=$(printf '%.0f' "$n")
if [ -n "${STORE:-}" ]; then
    mkdir "$scratch/store"
    ln "$STORE"/*.ndx "$scratch/store/"
    bench_copy_store_files "$STORE" "$scratch/store"
else
    bench_time "$scratch/fill-time" "$load" fill "$scratch/store" "$n" | tee -a "$results"
    read -r fill_s _ _ fill_rss_kb < <(tail -1 "$scratch/fill-time")
    echo "{\"what\": \"fill process\", \"fingerprints\": $count, \"seconds\": $fill_s, \"peak_rss_kb\": $fill_rss_kb}" | tee -a "$results"
fi

# The server's memory now: anonymous (its own) and file-backed (mapped
# segments, which the system may evict), per stored fingerprint, and the
# store's bytes on disk.
memory_row() { # when
    local anon file disk
    anon=$(awk '/^RssAnon:/ {print $2}' "/proc/$server/status")
    file=$(awk '/^RssFile:/ {print $2}' "/proc/$server/status")
    disk=$(du -sb "$scratch/store" | cut -f1)
    echo "{\"what\": \"memory\", \"when\": \"$1\", \"fingerprints\": $count, \"rss_anon_kb\": $anon, \"rss_file_kb\": $file, \"anon_bytes_per_fingerprint\": $(awk -v a="$anon" -v n="$count" 'BEGIN { printf "%.1f", a * 1024 / n }'), \"store_bytes\": $disk, \"store_bytes_per_fingerprint\": $(awk -v d="$disk" -v n="$count" 'BEGIN { printf "%.1f", d / n }'), \"commit\": \"$commit\"}" | tee -a "$results"
}

# Starts the server; sets $server and $ready_ms (spawn to /readyz).
start() { # extra flags
    local t0 t1
    t0=$(bench_now_ns)
    target/release/neardup serve --index "$scratch/store" -k 3 --listen "127.0.0.1:$port" "$@" 2>>"$scratch/server.log" &
    server=$!
    bench_wait_ready "$url" "$server" "$scratch/server.log"
    t1=$(bench_now_ns)
    ready_ms=$(( (t1 - t0) / 1000000 ))
}

for how in TERM KILL; do
    times=()
    start --compact-after 0
    bench_check_documents "$url" "$count"
    for _ in 1 2 3; do
        kill -"$how" "$server"; wait "$server" 2>/dev/null || true
        start --compact-after 0
        times+=("$ready_ms")
    done
    median=$(printf '%s\n' "${times[@]}" | sort -n | sed -n 2p)
    echo "{\"what\": \"restart\", \"after\": \"SIG$how\", \"fingerprints\": $n, \"ms\": [${times[0]}, ${times[1]}, ${times[2]}], \"median_ms\": $median}" | tee -a "$results"
    kill -TERM "$server"; wait "$server" 2>/dev/null || true
done

"$load" bodies "$n" 200000 > "$scratch/bodies.jsonl"
wrk_row() { # what connections output segments
    bench_wrk_read "$3"
    echo "{\"what\": \"$1\", \"tool\": \"wrk\", \"connections\": $2, \"fingerprints\": $n, \"segments\": $4, \"requests_per_second\": $wrk_rps, \"p99\": \"$wrk_p99\", \"commit\": \"$commit\"}" | tee -a "$results"
}
start --compact-after 0
tiers=$(bench_segments "$url")
# The ceiling: GET /healthz does no work, so its rate is what HTTP on
# loopback allows this machine with wrk beside the server.
for _ in $(seq "$rounds"); do
    out=$(wrk -t2 -c32 -d20s --latency "$url/healthz")
    wrk_row healthz 32 "$out" "$tiers"
done
for _ in $(seq "$rounds"); do
    out=$(BODIES="$scratch/bodies.jsonl" wrk -t2 -c32 -d20s --latency -s bench/serve-query.lua "$url")
    wrk_row query 32 "$out" "$tiers"
done
memory_row "after queries on $tiers segments"
kill -TERM "$server"; wait "$server" 2>/dev/null || true
start --compact-after 5
t0=$(date +%s)
bench_wait_merged "$url" "$server" "$scratch/server.log"
echo "{\"what\": \"idle compaction\", \"from_segments\": $tiers, \"seconds_after_start\": $(( $(date +%s) - t0 ))}" | tee -a "$results"
for _ in $(seq "$rounds"); do
    out=$(BODIES="$scratch/bodies.jsonl" wrk -t2 -c32 -d20s --latency -s bench/serve-query.lua "$url")
    wrk_row query 32 "$out" 1
done
"$load" query "$url" "$n" 10 16 1 | tee -a "$results"
memory_row "after queries on one segment"
for c in 64 256; do
    for _ in $(seq "$rounds"); do
        out=$(wrk -t2 -c"$c" -d20s --latency -s bench/serve-insert.lua "$url")
        wrk_row insert "$c" "$out" "$(bench_segments "$url")"
    done
done
curl -s "$url/v1/stats" | tee -a "$scratch/stats.json"; echo
kill -TERM "$server"; wait "$server" 2>/dev/null || true
server=""
cat "$results" >> "bench/results/$name.jsonl"
echo "rows added to bench/results/$name.jsonl" >&2
bench_record "$name"
