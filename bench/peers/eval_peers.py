"""The peers' answers on the quality benchmark of `neardup eval`.

    target/release/neardup eval --export /tmp/bench
    bench/.venv/bin/python bench/peers/eval_peers.py /tmp/bench [PEER...]
    target/release/neardup eval --k-max 12 \\
        --predictions simhash-words=/tmp/bench/simhash-words.jsonl \\
        --predictions datasketch=/tmp/bench/datasketch.jsonl \\
        --predictions rensa=/tmp/bench/rensa.jsonl
    bench/.venv/bin/python bench/peers/eval_peers.py --dedup /tmp/bench [PEER...]

DIR holds documents.jsonl ({"id", "language", "text"}, ids 0, 1, ... in
order) and pairs.jsonl ({"a", "b", ...}), as `neardup eval --export DIR`
writes them. The benchmark's truth: two documents are near-duplicates when
the exact Jaccard similarity of their shingles is >= 0.8. `shingles` below
makes them the way the truth does, from the units of the NFKC-normalised,
lowercased text: "en" units are the words of UAX #29 that hold a letter or
a digit (WORD: each Han or hiragana character alone, other runs of \\w
joined across . : ' ‘ ’ · between letters and . , ; ' ‘ ’ between digits,
so "don't", "u.s" and "146,000" are one word each), shingled in 3s joined
by a space; "zh" units are the letters and digits (str.isalnum()),
punctuation and whitespace dropped, shingled in 4s joined by nothing. A
text of fewer units than that is one shingle, all its units; a text
without units has none. These give the truth's Jaccard on every English
pair of the benchmark; the truth also writes traditional Chinese
characters as simplified ones, the peers do not. The MinHash peers get
these shingles as UTF-8 bytes, so they answer the question the truth asks.

Peers, and what DIR/PEER.jsonl holds, one JSON line per pair, in order,
which `neardup eval --predictions PEER=FILE` scores with the same code as
neardup's own answers:

  simhash        PyPI simhash 2.1.2 with its defaults (Simhash(text): 4-grams
                 of the lowercased word characters, MD5): the pair's Hamming
                 distance (an int, scored over k).
  simhash-words  PyPI simhash 2.1.2 fed the truth's units, Simhash(units):
                 words for "en", letters and digits for "zh", each
                 occurrence a feature of weight 1: the distance.
  gaoya          gaoya 0.2.2 SimHash, 64 bits, words (SimHashStringIndex's
                 doc2signature: lowercase, whitespace split): the distance.
  datasketch     datasketch 2.0.0 MinHash(num_perm=128) of the shingles
                 (affine32, the permutations made once, as text-dedup does)
                 into MinHashLSH(threshold=0.8, num_perm=128), which picks 9
                 bands of 13 rows (a pair at Jaccard 0.8 is a candidate with
                 probability 0.40, at 0.9 with 0.93), all documents inserted:
                 true when b is among the answers to a's query and the
                 estimate MinHash.jaccard(a, b) >= 0.8 (the way datasketch
                 and text-dedup users confirm candidates).
  rensa          rensa 0.5.0 RMinHash(num_perm=128, seed=42) of the shingles
                 into RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)
                 (16 bands of 8 rows: probability 0.95 at Jaccard 0.8; as
                 bench/peers/dedup_peers.py and rensa's README recipe use
                 it; keys are the ids), all documents inserted: true when b
                 is among a's candidates and the estimate jaccard >= 0.8.

--dedup runs each peer's dedup over all documents in id order, keep first,
greedy: query the index with the document; it duplicates the lowest id
among the candidates that pass the peer's own check, else it is kept and
inserted (only kept documents are in the index). DIR/PEER.dedup.jsonl
holds one JSON line per document, in order: null when kept, else the id of
the kept document it duplicates. Peers:

  simhash-k3        Simhash(text) as above in SimhashIndex(k=3), its
                    README's default: every get_near_dups answer passes.
  simhash-words-k8  Simhash(units) as above in SimhashIndex(k=8).
  datasketch        the MinHash and MinHashLSH above; a candidate passes when
                    the estimated Jaccard is >= 0.8.
  rensa             the RMinHash and RMinHashLSH above; the same check.

Fingerprints are computed by a multiprocessing.Pool of 2 processes (the
machine's cores); the indexes are filled and queried in the main process.
Each peer's wall time goes to stderr.
"""

import functools
import json
import logging
import multiprocessing
import os
import re
import sys
import time
import unicodedata

# The words of UAX #29 (the truth's unicode_words()) on NFKC text: each Han
# or hiragana character alone; other runs of \w joined across . : ' ‘ ’ ·
# between letters and across . , ; ' ‘ ’ between digits.
IDEOGRAPHIC = "\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
_W, _L = rf"[^\W{IDEOGRAPHIC}]", rf"[^\W\d_{IDEOGRAPHIC}]"
WORD = re.compile(
    rf"[{IDEOGRAPHIC}]|{_W}+(?:(?:(?<={_L})[.:'‘’·](?={_L})|(?<=\d)[.,;'‘’](?=\d)){_W}+)*")
NUM_PERM = 128
THRESHOLD = 0.8
RENSA_BANDS = 16  # rensa's README: RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)
WORKERS = 2

# SimhashIndex warns on every bucket over 200 entries, which k=8 makes common.
logging.getLogger("simhash").setLevel(logging.ERROR)


def units(text, language):
    text = unicodedata.normalize("NFKC", text).lower()
    if language == "en":
        return [w for w in WORD.findall(text) if w.strip("_")]  # a letter or a digit
    return [c for c in text if c.isalnum()]


def shingles(text, language):
    u = units(text, language)
    n, sep = (3, " ") if language == "en" else (4, "")
    if len(u) < n:
        return {sep.join(u)} if u else set()
    return {sep.join(u[i:i + n]) for i in range(len(u) - n + 1)}


def simhash_text(text, language):
    from simhash import Simhash

    return Simhash(text).value


def simhash_units(text, language):
    from simhash import Simhash

    return Simhash(units(text, language)).value


@functools.cache
def gaoya_signer():
    from gaoya.simhash import SimHashStringIndex

    return SimHashStringIndex(hash_size=64, analyzer="word", lowercase=True).index.doc2signature


def gaoya_words(text, language):
    return gaoya_signer()(text)


@functools.cache
def datasketch_permutations():
    from datasketch import MinHash

    return MinHash(num_perm=NUM_PERM).permutations


def datasketch_minhash(text, language):
    from datasketch import LeanMinHash, MinHash

    m = MinHash(num_perm=NUM_PERM, permutations=datasketch_permutations(), scheme="affine32")
    m.update_batch([s.encode("utf-8") for s in shingles(text, language)])
    return LeanMinHash(m)


def rensa_minhash(text, language):
    from rensa import RMinHash

    m = RMinHash(num_perm=NUM_PERM, seed=42)
    m.update([s.encode("utf-8") for s in shingles(text, language)])
    return m


def datasketch_lsh():
    from datasketch import MinHashLSH

    return MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)


def rensa_lsh():
    from rensa import RMinHashLSH

    return RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=RENSA_BANDS)


def distances(values, pairs):
    return [bin(values[p["a"]] ^ values[p["b"]]).count("1") for p in pairs]


def lsh_verdicts(make_lsh, sketches, pairs):
    lsh = make_lsh()
    for i, m in enumerate(sketches):
        lsh.insert(i, m)
    candidates = {}
    out = []
    for p in pairs:
        a, b = p["a"], p["b"]
        if a not in candidates:
            candidates[a] = set(lsh.query(sketches[a]))
        out.append(b in candidates[a] and sketches[a].jaccard(sketches[b]) >= THRESHOLD)
    return out


def lsh_dedup(make_lsh, sketches):
    lsh = make_lsh()
    out = []
    for i, m in enumerate(sketches):
        near = [c for c in lsh.query(m) if m.jaccard(sketches[c]) >= THRESHOLD]
        out.append(min(near) if near else None)
        if not near:
            lsh.insert(i, m)
    return out


def simhash_dedup(k, values):
    from simhash import Simhash, SimhashIndex

    index = SimhashIndex([], k=k)
    out = []
    for i, value in enumerate(values):
        s = Simhash(value)
        near = index.get_near_dups(s)
        out.append(min(map(int, near)) if near else None)
        if not near:
            index.add(str(i), s)
    return out


# name: (fingerprint of (text, language), answers from (fingerprints, pairs))
PEERS = {
    "simhash": (simhash_text, distances),
    "simhash-words": (simhash_units, distances),
    "gaoya": (gaoya_words, distances),
    "datasketch": (datasketch_minhash, functools.partial(lsh_verdicts, datasketch_lsh)),
    "rensa": (rensa_minhash, functools.partial(lsh_verdicts, rensa_lsh)),
}

# name: (fingerprint of (text, language), verdicts from fingerprints)
DEDUPS = {
    "simhash-k3": (simhash_text, functools.partial(simhash_dedup, 3)),
    "simhash-words-k8": (simhash_units, functools.partial(simhash_dedup, 8)),
    "datasketch": (datasketch_minhash, functools.partial(lsh_dedup, datasketch_lsh)),
    "rensa": (rensa_minhash, functools.partial(lsh_dedup, rensa_lsh)),
}


def write_lines(path, values):
    with open(path + ".tmp", "w") as f:
        f.writelines(json.dumps(x) + "\n" for x in values)
    os.replace(path + ".tmp", path)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def main():
    args = sys.argv[1:]
    dedup = args[:1] == ["--dedup"]
    if dedup:
        args = args[1:]
    if not args:
        sys.exit(__doc__)
    folder, chosen = args[0], args[1:]
    peers = DEDUPS if dedup else PEERS
    unknown = set(chosen) - set(peers)
    if unknown:
        sys.exit(f"unknown peers: {', '.join(sorted(unknown))}; choose from {', '.join(peers)}")
    docs = [(d["text"], d["language"]) for d in read_jsonl(f"{folder}/documents.jsonl")]
    pairs = [] if dedup else read_jsonl(f"{folder}/pairs.jsonl")
    with multiprocessing.get_context("fork").Pool(WORKERS) as pool:
        for name in chosen or peers:
            start = time.perf_counter()
            fingerprint, answer = peers[name]
            prints = pool.starmap(fingerprint, docs, chunksize=64)
            answers = answer(prints) if dedup else answer(prints, pairs)
            write_lines(f"{folder}/{name}{'.dedup' if dedup else ''}.jsonl", answers)
            print(f"{name}: {len(answers)} lines, {time.perf_counter() - start:.1f} s",
                  file=sys.stderr)


if __name__ == "__main__":
    main()
