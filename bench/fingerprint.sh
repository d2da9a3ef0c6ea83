#!/usr/bin/env bash
# Fingerprinting throughput: neardup against its Python peers, in one command.
#
#   bench/fingerprint.sh
#
# 1. Fetches the corpora (scripts/fetch-corpora.sh) if data/corpora lacks
#    them, and makes sure the peers' venv is ready (bench/peers/setup.sh,
#    which does nothing when it already is).
# 2. Builds crates/core/examples/throughput.rs in release, portably:
#    RUSTFLAGS is set empty, which overrides any rustflags (such as
#    target-cpu=native) from .cargo/config.toml files.
# 3. Runs neardup on core 0 with 1 thread (taskset -c 0) and on both cores
#    with 2 threads (taskset -c 0,1): en and python-simhash on BBC News, zh on
#    People's Daily; and jieba-rs's cut alone on People's Daily, the
#    segmentation neardup's own reproduces.
# 4. Runs each peer (bench/peers/fingerprint_peers.py) in its own process on
#    core 0: simhash (char 4-grams and words) and gaoya on BBC; jieba+simhash,
#    jieba and jieba without HMM on People's Daily.
# 5. Appends every result as a JSON line to bench/results/fingerprint.jsonl,
#    each with the machine (nproc, CPU model) and the git commit, and prints
#    a markdown table: MB/s (1 MB = 1e6 bytes of UTF-8 text, median of the
#    runs), how many times faster single-threaded neardup is than each peer
#    on the same corpus, the 2-core speedup, and how busy the rest of the
#    machine was meanwhile (it is shared; see measure below).
#
# Environment: RUNS (default 7) timed passes for neardup and gaoya;
# SLOW_RUNS (default 3) for the pure-Python peers, which take 10-20 s a pass.
# Every tool warms up with one untimed pass first.

source "$(dirname "${BASH_SOURCE[0]}")/driver.sh"
runs="${RUNS:-7}"
slow_runs="${SLOW_RUNS:-3}"
bbc=data/corpora/bbc.jsonl
pd=data/corpora/peoples_daily.jsonl
results=bench/results/fingerprint.jsonl
python=bench/.venv/bin/python

# 1. Inputs.
bench_corpora bbc peoples_daily
bench_peers

# 2. A portable release build.
unset CARGO_ENCODED_RUSTFLAGS
export RUSTFLAGS=""
for config in .cargo/config.toml .cargo/config "${CARGO_HOME:-$HOME/.cargo}/config.toml"; do
    if [[ -f "$config" ]] && grep -q 'target-cpu' "$config"; then
        echo "note: $config sets target-cpu; ignored, since RUSTFLAGS is set" >&2
    fi
done
echo "building the throughput example (release)" >&2
exe="$(cargo build --release -p neardup-core --example throughput \
    --message-format=json-render-diagnostics |
    "$python" -c '
import json, sys
for line in sys.stdin:
    m = json.loads(line)
    if m.get("reason") == "compiler-artifact" and m["target"]["name"] == "throughput" \
            and m.get("executable"):
        print(m["executable"])
')"
if [[ ! -x "$exe" ]]; then
    echo "error: cargo did not report the throughput executable" >&2
    exit 1
fi

# 3 and 4. Measure; every command prints one JSON line.
bench_scratch
raw="$scratch/raw"
cores="$(nproc)"

# measure CMD...: runs CMD, which prints one JSON line, and appends that line
# to $raw with two more fields: wall_s, the whole command's wall time, and
# others_cpu_s, the CPU time the rest of the machine used meanwhile (busy
# time in /proc/stat minus CMD's own). The machine is shared; a large
# others_cpu_s means the measurement competed for the cores.
measure() {
    echo "running: $*" >&2
    "$python" - "$@" <<'PY' | tee -a "$raw"
import json, os, resource, subprocess, sys, time

def busy_s():
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal ...
    busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6]
    return busy / os.sysconf("SC_CLK_TCK")

def own_s():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime

b0, o0, t0 = busy_s(), own_s(), time.monotonic()
out = subprocess.run(sys.argv[1:], stdout=subprocess.PIPE, text=True, check=True).stdout
wall, others = time.monotonic() - t0, (busy_s() - b0) - (own_s() - o0)
row = json.loads(out.strip().splitlines()[-1])
row.update(wall_s=round(wall, 3), others_cpu_s=round(max(others, 0.0), 3))
print(json.dumps(row), flush=True)
PY
}

bench_begin fingerprint RUNS SLOW_RUNS
for spec in "en $bbc" "zh $pd" "python-simhash $bbc"; do
    read -r profile file <<<"$spec"
    measure taskset -c 0 "$exe" --profile "$profile" --threads 1 --runs "$runs" "$file"
    if ((cores >= 2)); then
        measure taskset -c 0,1 "$exe" --profile "$profile" --threads 2 --runs "$runs" "$file"
    fi
done
if ((cores < 2)); then
    echo "note: one core only; no 2-thread runs" >&2
fi
# jieba-rs's own cut (no HMM), which neardup's Han segmentation reproduces:
# the segmentation alone, against the whole zh pipeline above.
measure taskset -c 0 "$exe" --jieba-only --runs "$runs" "$pd"

peer() {
    local name="$1" n="$2" file="$3"
    measure taskset -c 0 "$python" bench/peers/fingerprint_peers.py \
        --peer "$name" --runs "$n" "$file"
}
peer gaoya "$runs" "$bbc"
peer simhash-words "$slow_runs" "$bbc"
peer simhash "$slow_runs" "$bbc"
peer jieba-simhash "$slow_runs" "$pd"
peer jieba "$slow_runs" "$pd"
peer jieba-nohmm "$slow_runs" "$pd"

# 5. Record and summarise.
commit="$(bench_commit)"
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
    commit="$commit-dirty"
fi
NPROC="$cores" \
    CPU="$(lscpu | sed -n 's/^Model name:[[:space:]]*//p' | head -n1)" \
    COMMIT="$commit" \
    RUSTC="$(rustc --version)" \
    DATE="$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
    "$python" - "$raw" "$results" <<'PY'
import json, os, platform, sys

raw, out = sys.argv[1], sys.argv[2]
env = {
    "nproc": int(os.environ["NPROC"]),
    "cpu": os.environ["CPU"],
    "commit": os.environ["COMMIT"],
    "rustc": os.environ["RUSTC"],
    "python": platform.python_version(),
    "date": os.environ["DATE"],
}
rows = [{**json.loads(line), **env} for line in open(raw) if line.strip()]
with open(out, "a") as f:
    for row in rows:
        f.write(json.dumps(row) + "\n")

def ours(profile, threads):
    for r in rows:
        if (r["tool"], r["profile"], r["threads"]) == ("neardup", profile, threads):
            return r
    return None

# Which neardup profile each peer is compared with (single-threaded).
compare = {
    ("simhash", "char4"): ["en", "python-simhash"],
    ("simhash", "words"): ["en"],
    ("gaoya", "words"): ["en"],
    ("jieba+simhash", "words"): ["zh"],
    ("jieba", "segment"): ["zh"],
    ("jieba", "segment-nohmm"): ["zh"],
    ("neardup", "jieba-rs-cut"): ["zh"],
}

print()
print("## Fingerprinting throughput")
print()
print(f"commit {env['commit']}; {env['cpu']}; nproc {env['nproc']}; "
      f"{env['rustc']}; Python {env['python']}; {env['date']}")
print()
print("| corpus | tool | profile | threads | docs | MB | s per corpus | runs | MB/s "
      "| neardup ÷ tool | 2-core speedup | others' CPU |")
print("|---|---|---|--:|--:|--:|--:|--:|--:|---|--:|--:|")
for r in rows:
    ratio = ""
    speedup = ""
    if r["tool"] == "neardup" and r["threads"] > 1:
        one = ours(r["profile"], 1)
        if one:
            speedup = f"{r['mb_per_s'] / one['mb_per_s']:.2f}×"
    for profile in compare.get((r["tool"], r["profile"]), []):
        one = ours(profile, 1)
        if one and one["corpus"] == r["corpus"]:
            ratio += f"{'; ' if ratio else ''}{profile} {one['mb_per_s'] / r['mb_per_s']:.1f}×"
    print(f"| {r['corpus']} | {r['tool']} | {r['profile']} | {r['threads']} | {r['docs']} "
          f"| {r['bytes'] / 1e6:.2f} | {r['median_s'] / r.get('repeat', 1):.3f} | {r['runs']} "
          f"| {r['mb_per_s']:.2f} | {ratio} | {speedup} "
          f"| {100 * r['others_cpu_s'] / r['wall_s'] / env['nproc']:.0f}% |")
print()
print(f"neardup with 1 thread ran on core 0 (taskset -c 0), with 2 threads on both; "
      f"every peer on core 0, one process each. s per corpus: the median time of "
      f"one pass over the corpus (neardup's timed passes repeat it to last at "
      f"least 0.25 s). Others' CPU: the share of the "
      f"{env['nproc']} cores that other processes used during that command. "
      f"Results: {out}")
PY
bench_record fingerprint
