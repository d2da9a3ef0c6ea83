#!/usr/bin/env bash
# neardup serve --store-text on a cluster of templated pages (each new page
# a near-duplicate of all before it, so its text is judged against every
# stored one): N inserts one by one (default 800), ROUNDS times (default
# 3), each into a new store. Prints one JSON line a round.
#
#   bench/serve-cluster.sh
#   N=400 ROUNDS=1 bench/serve-cluster.sh
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
n="${N:-800}"
port="${PORT:-18092}"
cargo build --release -q -p neardup-cli
scratch="$(mktemp -d)"
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$scratch"' EXIT
for round in $(seq "${ROUNDS:-3}"); do
    target/release/neardup serve --index "$scratch/store-$round" --store-text \
        --listen "127.0.0.1:$port" 2>>"$scratch/server.log" &
    server=$!
    until curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1; do
        kill -0 "$server" 2>/dev/null || { cat "$scratch/server.log" >&2; exit 1; }
        sleep 0.05
    done
    python3 bench/serve_cluster.py "http://127.0.0.1:$port" "$n"
    kill -TERM "$server"; wait "$server" 2>/dev/null || true
    server=""
done
