#!/usr/bin/env bash
# The service against its OpenAPI document (docs/API.md, "Checked against
# its document"): schemathesis, pinned in tests/api/requirements.txt, runs
# every check it has (--checks all) on `neardup serve --store-text`, once
# without a token and once with --token-file, each on a new store, and any
# failure fails the script.
#
# tests/api/hooks.py narrows the document to the service under test (its
# store's k and width, the token required), read from its /v1/stats;
# tests/api/schemathesis.toml keeps stateful tests to the document's own
# links. No check is excluded.
#
# NEARDUP_API_EXAMPLES: test cases per operation and phase (default 200).
# NEARDUP_API_MAX_TIME=SECONDS: a time budget per run instead, fuzzing and
# stateful tests repeating until it is spent (docs/API.md: 600).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv=$root/target/api-venv
neardup=${CARGO_TARGET_DIR:-$root/target}/debug/neardup

echo "== the neardup command (debug, as cargo test builds it)"
cargo build -q -p neardup-cli

echo "== schemathesis ($venv)"
scripts/venv.sh "$venv" tests/api/requirements.txt

work=$(mktemp -d)
server=""
stop_server() {
    if [ -n "$server" ]; then
        kill "$server" 2>/dev/null || true
        wait "$server" 2>/dev/null || true
        server=""
    fi
}
trap 'stop_server; rm -rf "$work"' EXIT

if [ -n "${NEARDUP_API_MAX_TIME:-}" ]; then
    budget=(--max-time "$NEARDUP_API_MAX_TIME")
else
    budget=(--max-examples "${NEARDUP_API_EXAMPLES:-200}")
fi

# check NAME TOKEN [serve flags]: a service on a new store, on a port of
# its own choosing (0), and schemathesis against it.
check() {
    local name=$1 token=$2
    shift 2
    local log=$work/$name.log url=""
    # Made before the server starts, so that reading it never races its
    # creation.
    : >"$log"
    "$neardup" serve --index "$work/$name-store" --store-text --listen 127.0.0.1:0 "$@" 2>"$log" &
    server=$!
    # Its first line says where it listens.
    for _ in $(seq 300); do
        url=$(sed -n 's|.* on \(http://[0-9.:]*\)$|\1|p' "$log")
        if [ -n "$url" ] || ! kill -0 "$server" 2>/dev/null; then
            break
        fi
        sleep 0.1
    done
    if [ -z "$url" ]; then
        echo "neardup serve did not start:" >&2
        cat "$log" >&2
        exit 1
    fi
    # Ready once /healthz answers.
    "$venv/bin/python" - "$url/healthz" <<'PY'
import sys, time, urllib.request
for _ in range(300):
    try:
        with urllib.request.urlopen(sys.argv[1], timeout=1) as answer:
            if answer.status == 200:
                sys.exit(0)
    except OSError:
        time.sleep(0.1)
sys.exit(f"{sys.argv[1]} never answered 200")
PY
    local header=()
    if [ -n "$token" ]; then
        header=(-H "Authorization: Bearer $token")
    fi
    echo "== schemathesis, $name: $url"
    # From the work directory, where schemathesis keeps what it finds.
    # schemathesis leaves out the operation that serves the document
    # (GET /openapi.json) unless paths are selected: all of them are.
    (cd "$work" && NEARDUP_API_URL=$url NEARDUP_API_TOKEN=$token \
        SCHEMATHESIS_HOOKS=$root/tests/api/hooks.py \
        "$venv/bin/schemathesis" --config-file "$root/tests/api/schemathesis.toml" \
        run "$url/openapi.json" --checks all --include-path-regex '^/' \
        --no-color "${budget[@]}" "${header[@]}")
    # SIGTERM: the service stops cleanly (exit 0) after all that.
    kill -TERM "$server"
    local code=0
    wait "$server" || code=$?
    server=""
    if [ "$code" -ne 0 ]; then
        echo "neardup serve exited $code on SIGTERM:" >&2
        tail -5 "$log" >&2
        exit 1
    fi
}

check no-token ""

# A token of 32 characters, in a file only its owner reads.
token=$("$venv/bin/python" -c 'import secrets; print(secrets.token_hex(16))')
(umask 077 && printf '%s\n' "$token" >"$work/token")
check token "$token" --token-file "$work/token"
echo "API checks passed"
