#!/usr/bin/env bash
# The seconds after a large merge, looked at closely: serves a copy of the
# store STORE (of N fingerprints, as `load fill` makes it; its segments
# hard-linked, so STORE must be on the filesystem of bench/results; its
# log and documents file copied; STORE left as it was) with --compact-after 5, waits until
# the idle service has merged it into one segment, then runs WINDOWS short
# wrk rounds of WIN seconds (single-fingerprint queries, 32 connections)
# back to back. Each round prints its rate and p99 with the server's minor
# and major page faults and the system's major faults and
# file refaults in it. A diagnostic, not a benchmark: nothing is recorded.
#
#   STORE=DIR N=1e8 bench/serve-tail.sh
#   STORE=DIR N=1e8 WIN=1 WINDOWS=6 DELAY=10 bench/serve-tail.sh
#
# DELAY=S waits S seconds after the merge before the first round.
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
: "${STORE:?STORE=DIR names a store that load fill made}"
n="${N:-1e7}"
windows="${WINDOWS:-10}"
win="${WIN:-2}"
port="${PORT:-18092}"
url="http://127.0.0.1:$port"
bench_needs wrk wrk
bench_build -p neardup-cli
bench_build -p neardup-server --example load
bench_scratch serve-tail.XXXXXX
mkdir "$scratch/store"
ln "$STORE"/*.ndx "$scratch/store/"
bench_copy_store_files "$STORE" "$scratch/store"
target/release/examples/load bodies "$n" 200000 > "$scratch/bodies.jsonl"

vmstat_of() { awk -v k="$1" '$1 == k {print $2}' /proc/vmstat; }
faults() { awk '{print $10, $12}' "/proc/$server/stat"; }

target/release/neardup serve --index "$scratch/store" -k 3 --listen "127.0.0.1:$port" \
    --compact-after 5 2>>"$scratch/server.log" &
server=$!
bench_wait_ready "$url" "$server" "$scratch/server.log"
bench_check_documents "$url" "$(printf '%.0f' "$n")"
from=$(bench_segments "$url")
t0=$(date +%s)
bench_wait_merged "$url" "$server" "$scratch/server.log"
echo "{\"what\": \"merged\", \"from_segments\": $from, \"seconds\": $(( $(date +%s) - t0 ))}"
sleep "${DELAY:-0}"
for w in $(seq "$windows"); do
    read -r min0 maj0 < <(faults)
    sys0=$(vmstat_of pgmajfault) refault0=$(vmstat_of workingset_refault_file)
    out=$(BODIES="$scratch/bodies.jsonl" wrk -t2 -c32 -d"${win}s" --latency -s bench/serve-query.lua "$url")
    bench_wrk_read "$out"
    read -r min1 maj1 < <(faults)
    sys1=$(vmstat_of pgmajfault) refault1=$(vmstat_of workingset_refault_file)
    echo "{\"what\": \"round\", \"round\": $w, \"seconds\": $win, \"requests_per_second\": $wrk_rps, \"p99\": \"$wrk_p99\", \"server_minor_faults\": $((min1 - min0)), \"server_major_faults\": $((maj1 - maj0)), \"system_major_faults\": $((sys1 - sys0)), \"file_refaults\": $((refault1 - refault0))}"
done
kill -TERM "$server"; wait "$server" 2>/dev/null || true
server=""
