# The shared part of the bench/*.sh scripts; each sources it first:
#
#   source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
#
# Sourcing it sets strict mode, moves to the repository's root (the scripts
# name every path from there) and makes bench/results/, where inputs, raw
# JSON lines and the committed result files (bench/results/NAME.json) live.
# The functions below are the steps the scripts used to repeat: the binary,
# the corpora, the peers' venv, a scratch directory cleaned up on exit, a
# server waited for, timing, and the result recorded.
#
# Recording: a script that appends its measurements as JSON lines to
# bench/results/NAME.jsonl calls `bench_begin NAME` before measuring and
# `bench_record NAME` after; the lines appended in between become
# bench/results/NAME.json (bench/report.py --record), with the date, the
# commit, the machine, the load and the command line. Then
# `bench/report.py` regenerates docs/BENCHMARKS.md.

set -euo pipefail
bench_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$bench_root"
mkdir -p bench/results

# The command line as typed, with the environment knobs the script names
# in `bench_begin` (set before sourcing returns, so arguments are intact).
bench_script="${0#"$bench_root"/}"
bench_args=("$@")

# Sets $neardup to the binary to measure: $NEARDUP, else the release build
# (brought up to date first with --build, so that a binary older than the
# code is never measured; else required to exist).
bench_neardup() { # [--build]
    neardup="${NEARDUP:-target/release/neardup}"
    if [[ "${1:-}" == --build && -z "${NEARDUP:-}" ]]; then
        cargo build --release -q -p neardup-cli
    fi
    if [[ ! -x "$neardup" ]]; then
        echo "no neardup binary at $neardup (set NEARDUP, or cargo build --release -p neardup-cli)" >&2
        exit 1
    fi
}

# A release build of cargo arguments "$@" (packages, examples).
bench_build() { # cargo build arguments
    cargo build --release -q "$@"
}

# The same, portable: RUSTFLAGS set empty overrides the target-cpu of
# .cargo/config.toml, so that the numbers hold for any x86-64.
bench_build_portable() { # cargo build arguments
    RUSTFLAGS="" cargo build --release -q "$@"
}

# The corpora in data/corpora (scripts/fetch-corpora.sh), fetched if any
# named one is missing.
bench_corpora() { # corpus names, default bbc
    local name
    for name in "${@:-bbc}"; do
        if [[ ! -f "data/corpora/$name.jsonl" ]]; then
            scripts/fetch-corpora.sh >&2
            return
        fi
    done
}

# The peers' pinned venv, bench/.venv (does nothing when it is ready).
bench_peers() {
    bench/peers/setup.sh >/dev/null
}

# Ten copies of BBC News with edited copies (bench/edited_copies.py), the
# input of bench/dedup.sh, incremental.sh and short-words.sh, written once.
bench_bbc10_edited() { # path
    if [[ ! -f "$1" ]]; then
        bench_corpora bbc
        python3 bench/edited_copies.py --copies 10 "$1" data/corpora/bbc.jsonl
    fi
}

# Sets $scratch to a new directory (under bench/results with a template,
# for files too big for /tmp), removed on exit with any server still in
# $server.
bench_scratch() { # [template]
    if [[ -n "${1:-}" ]]; then
        scratch="$(mktemp -d "$bench_root/bench/results/$1")"
    else
        scratch="$(mktemp -d)"
    fi
    server=""
    trap bench_cleanup EXIT
}

bench_cleanup() {
    if [[ -n "${server:-}" ]]; then
        kill -9 "$server" 2>/dev/null || true
    fi
    rm -rf "$scratch"
}

# Copies a store's redb files (its log and documents file) into $2 and
# drops both copies' pages from the page cache: at 10^8 they are 7 GB,
# and read and written through the cache they displaced the mapped
# segments that queries read (the segments of a running service stay
# cached; the documents file is read for ids and texts only).
bench_copy_store_files() { # store-dir into-dir
    cp "$1"/*.redb "$2/"
    python3 - "$1"/*.redb "$2"/*.redb <<'PY'
import os, sys
for path in sys.argv[1:]:
    fd = os.open(path, os.O_RDONLY)
    os.fsync(fd)
    os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    os.close(fd)
PY
}

# Waits until the server of pid $2 answers $1/readyz; if it dies first,
# prints its log $3 and fails.
bench_wait_ready() { # url pid log
    until curl -sf "$1/readyz" >/dev/null 2>&1; do
        kill -0 "$2" 2>/dev/null || { cat "$3" >&2; exit 1; }
        sleep 0.01
    done
}

# How many segments the store of the service at $1 has.
bench_segments() { # url
    curl -s "$1/v1/stats" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["segments"]))'
}

# Waits until the service at $1 (pid $2, log $3) has merged its store into
# one segment; fails if it dies first or a merge fails.
bench_wait_merged() { # url pid log
    local stats
    while true; do
        kill -0 "$2" 2>/dev/null || { cat "$3" >&2; echo "the server died" >&2; exit 1; }
        stats=$(curl -s "$1/v1/stats" || true)
        case "$(python3 -c 'import json,sys
s = json.load(sys.stdin)
print("error" if s["merge_error"] else len(s["segments"]))' <<<"$stats" 2>/dev/null)" in
            1) return ;;
            error) echo "a merge failed: $stats" >&2; exit 1 ;;
        esac
        sleep 0.5
    done
}

# Fails unless the service at $1 holds $2 documents (a store that
# `load fill DIR N` made, for N).
bench_check_documents() { # url count
    local stored
    stored=$(curl -s "$1/v1/stats" | python3 -c 'import json,sys; print(json.load(sys.stdin)["documents"])')
    if [ "$stored" != "$2" ]; then
        echo "the store holds $stored fingerprints, not N = $2: fill it with N (load fill DIR N)" >&2
        exit 1
    fi
}

# Sets $wrk_rps and $wrk_p99 from wrk's output $1 (run with --latency);
# fails when wrk saw errors or answers other than 2xx.
bench_wrk_read() { # wrk-output
    if grep -qE "Non-2xx|errors" <<<"$1"; then
        echo "$1" >&2
        echo "wrk saw errors" >&2
        exit 1
    fi
    wrk_rps=$(grep "Requests/sec" <<<"$1" | awk '{print $2}')
    wrk_p99=$(grep " 99%" <<<"$1" | awk '{print $2}')
}

# Fails unless command $1 is installed (Debian package $2).
bench_needs() { # command package
    command -v "$1" >/dev/null || {
        echo "$bench_script needs $1: apt-get install $2" >&2
        exit 2
    }
}

# Samples, every half second until file $3 exists, the resident memory of
# the process whose command line matches $1 (pgrep -f): the largest
# anonymous (the process's own) and file-backed (the binary, mapped
# temporary files, which the system may evict) seen, in KB, written to $2
# as "anon file". Run it in the background beside the measured command.
bench_sample_memory() { # pgrep-pattern out-file done-file
    local pid="" anon=0 file=0 a f
    echo "0 0" > "$2"
    while [[ -z "$pid" ]] && [[ ! -e "$3" ]]; do
        pid="$(pgrep -f -- "$1" | head -1 || true)"
        sleep 0.1
    done
    while [[ -n "$pid" ]] && [[ -r "/proc/$pid/status" ]] && [[ ! -e "$3" ]]; do
        a="$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
        f="$(awk '/^RssFile:/ {print $2}' "/proc/$pid/status" 2>/dev/null || true)"
        (( ${a:-0} > anon )) && anon=$a
        (( ${f:-0} > file )) && file=$f
        echo "$anon $file" > "$2"
        sleep 0.5
    done
}

# The commit measured, short.
bench_commit() {
    git rev-parse --short HEAD
}

# Now, in nanoseconds.
bench_now_ns() {
    date +%s%N
}

# Runs "$@" under /usr/bin/time, the last line of file $1 then reading
# "wall_s user_s system_s peak_rss_kb".
bench_time() { # file command...
    local out="$1"
    shift
    /usr/bin/time -f '%e %U %S %M' -o "$out" "$@"
}

# The median of the numbers on stdin, one a line (the lower middle one of
# an even count).
bench_median() {
    sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# Starts recording benchmark $1: the lines later appended to
# bench/results/$1.jsonl are this run's. Names $2... are the environment
# knobs of the script, recorded with the command when set.
bench_begin() { # name [knob...]
    local name="$1" knob
    shift
    bench_command=""
    for knob in "$@"; do
        if [[ -n "${!knob:-}" ]]; then
            bench_command+="$knob=${!knob} "
        fi
    done
    bench_command+="$bench_script${bench_args[*]:+ ${bench_args[*]}}"
    bench_load_before="$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || true)"
    touch "bench/results/$name.jsonl"
    bench_lines_before="$(wc -l < "bench/results/$name.jsonl")"
}

# Writes bench/results/$1.json from the lines appended to
# bench/results/$1.jsonl since `bench_begin`.
bench_record() { # name
    local rows
    rows="$(mktemp)"
    tail -n "+$((bench_lines_before + 1))" "bench/results/$1.jsonl" > "$rows"
    python3 bench/report.py --record "$1" --rows "$rows" --command "$bench_command" \
        --load-before "$bench_load_before"
    rm -f "$rows"
}
