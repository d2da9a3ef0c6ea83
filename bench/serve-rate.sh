#!/usr/bin/env bash
# Durable inserts at fixed rates: the latency a client sees when the
# service is asked for RATE single-fingerprint inserts a second, held (an
# open loop, as wrk2 paces; the load example's `insert ... RATE`), rather
# than the latency at saturation that a closed loop (wrk, bench/serve.sh)
# reports. A request held back by a slow answer counts from when it was
# due, so a pause of the writer counts for every request it delayed.
#
# One `neardup serve` on a store of N random 64-bit fingerprints at k = 3
# (the load example's `fill`, merged into one segment; or a copy of
# STORE, its segments hard-linked), then, on the same service, each rate
# of RATES in turn for SECONDS_EACH seconds from CONNECTIONS clients (tasks
# on two threads, each with its own connection). Each row: the rate asked
# and held, p50, p99 and p99.9 in ms, the requests sent late for want of a
# free client, and from the server's /metrics over that rate's run: its
# group commits, their mean size, the share of the time the writer spent
# committing, the merges with the share of the time they ran
# (`merge_busy`, in the background: merges that end in the run, counted
# whole), the checkpoints of the write-ahead
# log with the share of the time they held the writer, the flushes ended
# in it with the share of the time they took (`flush_busy`, in the
# background; `flush_records_busy` the part in taking their records from
# the log), and the documents not in a segment at its end
# (`recent_after`: when flushes fall behind, it climbs to twice the flush
# size, where writes wait); and from the host
# of a virtual machine, the time it kept the CPUs waiting (steal) and the
# free memory the guest reported to it (free page reporting: each rate
# whose requests all stopped for 100-500 ms had such a report at its start,
# docs/BENCHMARKS-LOG.md, session 45).
#
# With BATCH documents a request (`POST /v1/documents:batch`), RATES are
# requests a second, and each row gives the documents a second too. With
# IDS=1 each insert brings an id that sorts anywhere among the stored ones,
# as a crawler's URLs do (without, the service numbers them in order, and a
# flush's move of their records into the documents file is an append).
#
#   bench/serve-rate.sh
#   N=1e6 RATES="500 1000 2000 4000 8000" SECONDS_EACH=20 bench/serve-rate.sh
#   STORE=/path/to/store N=1e8 bench/serve-rate.sh
#   BATCH=10 RATES="1000 2000 3000" bench/serve-rate.sh
#   IDS=1 STORE=/path/to/store N=1e8 BATCH=10 bench/serve-rate.sh
#   IDS=1 STORE=/path/to/store N=1e8 BATCH=10 RATES="1000 2000" SECONDS_EACH=120 bench/serve-rate.sh
#
# Rows: bench/results/serve-rate.jsonl, the run bench/results/serve-rate.json
# (another N than 1e6: serve-rate-N.jsonl and .json; BATCH other than 1:
# serve-rate-batchB.jsonl and .json, or serve-rate-N-batchB; IDS=1 adds
# -ids; SECONDS_EACH other than 20 adds -Ss, so that a sustained run keeps
# its own record).
source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
n="${N:-1e6}"
rates="${RATES:-500 1000 2000 4000 8000}"
seconds="${SECONDS_EACH:-20}"
connections="${CONNECTIONS:-128}"
batch="${BATCH:-1}"
ids="${IDS:-}"
port="${PORT:-18097}"
url="http://127.0.0.1:$port"
name=serve-rate
[[ "$n" == 1e6 ]] || name="serve-rate-$n"
[[ "$batch" == 1 ]] || name="$name-batch$batch"
[[ -z "$ids" ]] || name="$name-ids"
[[ "$seconds" == 20 ]] || name="$name-${seconds}s"
bench_neardup --build
bench_build -p neardup-server --example load
load=target/release/examples/load
bench_scratch serve-rate.XXXXXX
commit=$(bench_commit)
bench_begin "$name" N RATES SECONDS_EACH CONNECTIONS BATCH STORE IDS

if ss -ltn | grep -q ":$port "; then
    echo "port $port is taken (a server left running?): free it or set PORT" >&2
    exit 1
fi
mkdir "$scratch/store"
if [[ -n "${STORE:-}" ]]; then
    ln "$STORE"/*.ndx "$scratch/store/"
    bench_copy_store_files "$STORE" "$scratch/store"
else
    "$load" fill "$scratch/store" "$n" >&2
    "$load" compact "$scratch/store" >&2
fi

"$neardup" serve --index "$scratch/store" -k 3 --listen "127.0.0.1:$port" \
    --compact-after 0 2>>"$scratch/server.log" &
server=$!
bench_wait_ready "$url" "$server" "$scratch/server.log"
# What the machine's host took during a rate, where it says: the time the
# virtual CPUs were kept waiting (steal, in ticks of /proc/stat) and the
# free memory the guest handed back to it (virtio-balloon free page
# reporting; 0 without it).
host() {
    local reported=/sys/module/page_reporting/parameters/reported_kib
    awk '/^cpu / { printf "%s ", $9 }' /proc/stat
    if [[ -r "$reported" ]]; then cat "$reported"; else echo 0; fi
}
for rate in $rates; do
    before=$(curl -sf "$url/metrics")
    host_before=$(host)
    out=$("$load" insert "$url" "$seconds" "$connections" "$batch" "$rate" ${ids:+ids})
    host_after=$(host)
    after=$(curl -sf "$url/metrics")
    python3 - "$out" "$before" "$after" "$n" "$commit" "$host_before" "$host_after" <<'PY' | tee -a "bench/results/$name.jsonl"
import json, os, sys

row, before, after, n, commit, host_before, host_after = sys.argv[1:]
row = json.loads(row)
(steal_before, reported_before), (steal_after, reported_after) = (
    map(int, host_before.split()), map(int, host_after.split()))
tick_ms = 1000 / os.sysconf("SC_CLK_TCK")


def metric(text, name):
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[1])
    sys.exit(f"/metrics has no {name}; an older build?")


def change(name):
    return metric(after, name) - metric(before, name)


def change_if_counted(name):
    """A counter a build before its metric lacks: None there."""
    if all(line.split()[0] != name for line in before.splitlines() if line.strip()):
        return None
    return change(name)


checkpoint_seconds = change_if_counted("neardup_checkpoint_seconds_total")
flush_seconds = change_if_counted("neardup_flush_seconds_total")
merge_seconds = change_if_counted("neardup_merge_seconds_total")


commits = change("neardup_commit_seconds_count")
print(json.dumps({
    "what": "insert at a rate", "fingerprints": float(n),
    "rate": row["rate"], "requests_per_second": round(row["requests_per_second"], 1),
    "connections": row["connections"], "batch": row["batch"],
    "documents_per_second": round(row["items_per_second"], 1),
    "seconds": round(row["seconds"], 2),
    "p50_ms": round(row["p50_ms"], 3), "p99_ms": round(row["p99_ms"], 3),
    "p999_ms": round(row["p999_ms"], 3), "late": row["late"],
    "commits": int(commits),
    "writes_a_commit": round(change("neardup_commit_writes_sum") / max(commits, 1), 2),
    "writer_busy": round(change("neardup_commit_seconds_sum") / row["seconds"], 3),
    "merges": int(change("neardup_merges_total")),
    "merge_busy": None if merge_seconds is None else round(merge_seconds / row["seconds"], 3),
    "checkpoints": None if checkpoint_seconds is None else int(change("neardup_checkpoints_total")),
    "checkpoint_busy": None if checkpoint_seconds is None else round(checkpoint_seconds / row["seconds"], 3),
    "flushes": None if flush_seconds is None else int(change("neardup_flushes_total")),
    "flush_busy": None if flush_seconds is None else round(flush_seconds / row["seconds"], 3),
    "flush_records_busy": None if flush_seconds is None else round(change("neardup_flush_records_seconds_total") / row["seconds"], 3),
    "recent_after": int(metric(after, "neardup_recent_documents")),
    "host_steal_ms": round((steal_after - steal_before) * tick_ms),
    "host_reported_mib": round((reported_after - reported_before) / 1024),
    "commit": commit,
}))
PY
done
kill -TERM "$server"
wait "$server" 2>/dev/null || true
server=""
bench_record "$name"
