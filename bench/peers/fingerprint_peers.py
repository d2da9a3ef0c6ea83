"""Fingerprinting throughput of the Python peers, as one JSON line per run.

    bench/.venv/bin/python bench/peers/fingerprint_peers.py --peer simhash-words \\
        --runs 7 data/corpora/bbc.jsonl

Reads the "text" field of every line of FILE, runs the peer over all texts
once to warm up, then times --runs passes and prints

    {"tool": .., "profile": .., "threads": 1, "corpus": .., "bytes": ..,
     "docs": .., "runs": .., "median_s": .., "mb_per_s": ..}

the same line as `cargo run --example throughput` (crates/core/examples/):
bytes are the UTF-8 bytes of the texts, MB is 1e6 bytes, median_s is the
median time of one pass. Every peer runs in this one process on one thread;
run one process per peer (bench/fingerprint.sh does) so that no peer pays for
another's imports or memory. Tokenisation is timed, since it is part of
turning a text into a fingerprint.

Peers (--list prints them):

  simhash         PyPI simhash 2.1.2 Simhash(text): its default features,
                  lowercased [\\w] characters in 4-grams, MD5 per feature.
                  The algorithm our python-simhash profile reproduces.
  simhash-words   Simhash(words), words = re.findall(r"\\w+", text.lower()):
                  word features, the closest to our en profile (which also
                  drops stop words and hashes with XXH3 instead of MD5).
  gaoya           gaoya 0.2.2 SimHash, 64 bits, analyzer="word",
                  lowercase=True: doc2signature(text), the function that
                  SimHashStringIndex.insert_document calls before inserting
                  (lowercase, split on whitespace, SipHash per word); no
                  index insert is timed.
  jieba-simhash   Simhash(jieba.lcut(text)): jieba with its defaults (HMM
                  on), then simhash over the words.
  jieba           jieba.lcut(text) alone (HMM on, jieba's default).
  jieba-nohmm     jieba.lcut(text, HMM=False) alone; our zh profile uses
                  jieba-rs without HMM.
"""

import argparse
import json
import os
import re
import statistics
import sys
import time

WORD = re.compile(r"\w+")


def simhash_chars():
    from simhash import Simhash

    return lambda text: Simhash(text).value


def simhash_words():
    from simhash import Simhash

    findall = WORD.findall
    return lambda text: Simhash(findall(text.lower())).value


def gaoya_words():
    from gaoya.simhash import SimHashStringIndex

    index = SimHashStringIndex(hash_size=64, analyzer="word", lowercase=True)
    return index.index.doc2signature


def jieba_simhash():
    import jieba
    from simhash import Simhash

    jieba.initialize()
    lcut = jieba.lcut
    return lambda text: Simhash(lcut(text)).value


def jieba_alone():
    import jieba

    jieba.initialize()
    return jieba.lcut


def jieba_nohmm():
    import jieba

    jieba.initialize()
    lcut = jieba.lcut
    return lambda text: lcut(text, HMM=False)


# name -> (tool, profile, constructor of a text -> result function)
PEERS = {
    "simhash": ("simhash", "char4", simhash_chars),
    "simhash-words": ("simhash", "words", simhash_words),
    "gaoya": ("gaoya", "words", gaoya_words),
    "jieba-simhash": ("jieba+simhash", "words", jieba_simhash),
    "jieba": ("jieba", "segment", jieba_alone),
    "jieba-nohmm": ("jieba", "segment-nohmm", jieba_nohmm),
}


def read_texts(path):
    texts = []
    with open(path, encoding="utf-8") as f:
        for i, line in enumerate(f, 1):
            if not line.strip():
                continue
            text = json.loads(line).get("text")
            if not isinstance(text, str):
                sys.exit(f'{path}:{i}: no string field "text"')
            texts.append(text)
    if not texts:
        sys.exit(f"{path}: no texts")
    return texts


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--peer", choices=sorted(PEERS))
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--list", action="store_true", help="list the peers and exit")
    parser.add_argument("file", nargs="?")
    args = parser.parse_args()
    if args.list:
        print("\n".join(PEERS))
        return
    if args.peer is None or args.file is None:
        parser.error("--peer and FILE are required")
    if args.runs < 1:
        parser.error("--runs must be positive")

    tool, profile, make = PEERS[args.peer]
    texts = read_texts(args.file)
    size = sum(len(t.encode("utf-8")) for t in texts)
    fingerprint = make()

    def one_pass():
        for text in texts:
            fingerprint(text)

    one_pass()
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        one_pass()
        times.append(time.perf_counter() - start)
    median = statistics.median(times)
    print(
        json.dumps(
            {
                "tool": tool,
                "profile": profile,
                "threads": 1,
                "corpus": os.path.basename(args.file),
                "bytes": size,
                "docs": len(texts),
                "runs": args.runs,
                "median_s": median,
                "mb_per_s": size / 1e6 / median,
            }
        ),
        flush=True,
    )


if __name__ == "__main__":
    main()
