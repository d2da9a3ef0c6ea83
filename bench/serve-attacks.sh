#!/usr/bin/env bash
# neardup serve under slow and hostile clients (issue 30): a store of N
# random 64-bit fingerprints (default 10^6, written by the load example),
# served with its default limits; then queries (wrk, 1 thread, 16
# connections) and /healthz probes (a new connection every 20 ms) before,
# during and after an attack that holds STALLED stalled bodies (default
# 256) and HEADS unfinished heads (default 2000) open, reopening whatever
# the service closes. Reports queries a second, the probes' p50/p99/max
# and failures, and the server's peak RSS in each phase
# (bench/serve_attacks.py). Needs wrk. Results: bench/results/serve-attacks.jsonl.
#
#   bench/serve-attacks.sh
#   HEADS=6000 bench/serve-attacks.sh      past --max-connections (4096)
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-1e6}"
port="${PORT:-18097}"
url="http://127.0.0.1:$port"
bench_needs wrk wrk
bench_build -p neardup-cli
bench_build -p neardup-server --example load
load=target/release/examples/load
bench_scratch serve-attacks.XXXXXX
"$load" fill "$scratch/store" "$n" >&2
"$load" bodies "$n" 200000 > "$scratch/bodies.jsonl"
target/release/neardup serve --index "$scratch/store" -k 3 --listen "127.0.0.1:$port" \
    --compact-after 1 2>"$scratch/server.log" &
server=$!
bench_wait_ready "$url" "$server" "$scratch/server.log"
# Merged into one segment first, so that the phases see the same store.
until [ "$(bench_segments "$url")" = 1 ]; do sleep 1; done
bench_begin serve-attacks N STALLED HEADS SECONDS_EACH
python3 bench/serve_attacks.py "$url" "$server" "$scratch/bodies.jsonl" \
    --stalled "${STALLED:-256}" --heads "${HEADS:-2000}" --seconds "${SECONDS_EACH:-15}" \
    | tee "$scratch/rows"
curl -s "$url/metrics" | grep -E "^neardup_(connections|accept)" >&2
kill -TERM "$server"; wait "$server" || true; server=""
python3 - "$scratch/rows" "$(bench_commit)" >> bench/results/serve-attacks.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line)
    row["commit"] = sys.argv[2]
    print(json.dumps(row))
PY
echo "rows added to bench/results/serve-attacks.jsonl" >&2
bench_record serve-attacks
