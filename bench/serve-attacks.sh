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
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
n="${N:-1e6}"
port="${PORT:-18097}"
url="http://127.0.0.1:$port"
command -v wrk >/dev/null || { echo "bench/serve-attacks.sh needs wrk: apt-get install wrk" >&2; exit 2; }
cargo build --release -q -p neardup-cli
cargo build --release -q -p neardup-server --example load
load=target/release/examples/load
mkdir -p bench/results
scratch="$(mktemp -d "$root/bench/results/serve-attacks.XXXXXX")"
server=""
trap '[ -n "$server" ] && kill -9 "$server" 2>/dev/null; rm -rf "$scratch"' EXIT
"$load" fill "$scratch/store" "$n" >&2
"$load" bodies "$n" 200000 > "$scratch/bodies.jsonl"
target/release/neardup serve --index "$scratch/store" -k 3 --listen "127.0.0.1:$port" \
    --compact-after 1 2>"$scratch/server.log" &
server=$!
until curl -sf "$url/readyz" >/dev/null 2>&1; do
    kill -0 "$server" 2>/dev/null || { cat "$scratch/server.log" >&2; exit 1; }
    sleep 0.05
done
# Merged into one segment first, so that the phases see the same store.
until [ "$(curl -s "$url/v1/stats" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["segments"]))')" = 1 ]; do sleep 1; done
python3 bench/serve_attacks.py "$url" "$server" "$scratch/bodies.jsonl" \
    --stalled "${STALLED:-256}" --heads "${HEADS:-2000}" --seconds "${SECONDS_EACH:-15}" \
    | tee "$scratch/rows"
curl -s "$url/metrics" | grep -E "^neardup_(connections|accept)" >&2
kill -TERM "$server"; wait "$server" || true; server=""
python3 - "$scratch/rows" "$(git rev-parse --short HEAD)" >> bench/results/serve-attacks.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    row = json.loads(line)
    row["commit"] = sys.argv[2]
    print(json.dumps(row))
PY
echo "rows added to bench/results/serve-attacks.jsonl" >&2
