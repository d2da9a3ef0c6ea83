"""The peers' answers on the quality benchmark of `neardup eval`.

    target/release/neardup eval --export /tmp/bench
    bench/.venv/bin/python bench/peers/eval_peers.py /tmp/bench
    target/release/neardup eval --predictions simhash=/tmp/bench/simhash.jsonl \\
        --predictions gaoya=/tmp/bench/gaoya.jsonl \\
        --predictions datasketch=/tmp/bench/datasketch.jsonl

DIR holds documents.jsonl ({"id", "language", "text"}) and pairs.jsonl
({"a", "b", ...}), as `neardup eval --export DIR` writes them. For each
peer this writes DIR/PEER.jsonl, one JSON line per pair, in order, which
`neardup eval --predictions PEER=FILE` scores with the same code as
neardup's own answers:

  simhash     PyPI simhash 2.1.2 with its defaults (Simhash(text): 4-grams
              of lowercased word characters, MD5): the pair's distance
              (scored over k).
  gaoya       gaoya 0.2.2 SimHash, 64 bits, words (SimHashStringIndex's
              doc2signature: lowercase, whitespace split): the distance.
  datasketch  datasketch 2.0.0 MinHashLSH(threshold=0.8, num_perm=128) of
              the word 3-shingles (re.findall(r"\\w+", text.lower())), all
              documents inserted: true when b is among the answers to a's
              query.

Chinese text has no spaces: gaoya and datasketch then see few "words"; that
is how they are used, and the tables say so.
"""

import json
import os
import re
import sys

WORD = re.compile(r"\w+")


def shingles(text):
    words = WORD.findall(text.lower())
    if len(words) <= 3:
        return {" ".join(words).encode("utf-8")} if words else set()
    return {" ".join(words[i:i + 3]).encode("utf-8") for i in range(len(words) - 2)}


def distances(signatures, pairs):
    return [bin(signatures[p["a"]] ^ signatures[p["b"]]).count("1") for p in pairs]


def simhash_peer(texts, pairs):
    from simhash import Simhash

    return distances([Simhash(t).value for t in texts], pairs)


def gaoya_peer(texts, pairs):
    from gaoya.simhash import SimHashStringIndex

    sign = SimHashStringIndex(hash_size=64, analyzer="word", lowercase=True).index.doc2signature
    return distances([sign(t) for t in texts], pairs)


def datasketch_peer(texts, pairs):
    from datasketch import MinHash, MinHashLSH

    lsh = MinHashLSH(threshold=0.8, num_perm=128)
    hashes = []
    for i, t in enumerate(texts):
        m = MinHash(num_perm=128)
        m.update_batch(shingles(t))
        hashes.append(m)
        lsh.insert(i, m)
    answers = {}
    out = []
    for p in pairs:
        a = p["a"]
        if a not in answers:
            answers[a] = set(lsh.query(hashes[a]))
        out.append(p["b"] in answers[a])
    return out


PEERS = {"simhash": simhash_peer, "gaoya": gaoya_peer, "datasketch": datasketch_peer}


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    chosen = sys.argv[2:] or list(PEERS)
    texts = [json.loads(l)["text"] for l in open(f"{folder}/documents.jsonl", encoding="utf-8")]
    pairs = [json.loads(l) for l in open(f"{folder}/pairs.jsonl", encoding="utf-8")]
    for name in chosen:
        answers = PEERS[name](texts, pairs)
        with open(f"{folder}/{name}.jsonl.tmp", "w") as f:
            for x in answers:
                f.write(json.dumps(x) + "\n")
        os.replace(f"{folder}/{name}.jsonl.tmp", f"{folder}/{name}.jsonl")
        print(f"{name}: {len(answers)} answers", file=sys.stderr)


if __name__ == "__main__":
    main()
