"""The dedup job written with a Python peer, as one JSON line per run.

    bench/.venv/bin/python bench/peers/dedup_peers.py --peer simhash \\
        --kept kept.txt bench/results/dedup-bbc10-edited.jsonl

CORPUS is JSON lines {"id", "text"}. The job is the one `neardup dedup`
does with its defaults (--keep first --cluster greedy): documents in input
order; a document is dropped when the index already holds a kept document
near it, else it is kept and added to the index. The ids of the kept
documents go to --kept, one a line, in input order.

Peers (--list prints them):

  simhash     PyPI simhash 2.1.2 as its README shows: Simhash(text) per
              document (its default features: lowercased [\\w] characters
              in 4-grams, MD5 per feature), then SimhashIndex([], k=3)
              filled incrementally: get_near_dups(s) for each document,
              add(id, s) when nothing was found.
  datasketch  datasketch 2.0.0 MinHash LSH: features are the set of word
              3-shingles (words = re.findall(r"\\w+", text.lower()), joined
              by a space; a document of 3 words or fewer is one shingle),
              the Jaccard notion `neardup dedup --verify jaccard:T` checks;
              text-dedup's MinHash pipeline shingles words the same way
              (its default n is 5). MinHash(num_perm=128) with update_batch
              and the permutations made once (as text-dedup does), then
              MinHashLSH(threshold=0.8, num_perm=128): query, and insert
              when nothing was found.
  rensa       rensa 0.5.0 (Rust R-MinHash) the way the RMinHashLSH dedup
              recipe in its GitHub README does it: the same word 3-shingles
              (as bytes) fed to RMinHash(num_perm=128, seed=42).update, then
              RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16), the
              bands that recipe uses for threshold 0.8 and 128 permutations
              (16 bands of 8 rows find a pair at Jaccard 0.8 with
              probability 0.95; the 8 that RMinHashDeduplicator picks by
              default for 0.8 would find it with probability 0.2). For each
              document: query; drop it when a candidate's estimate
              m.jaccard(kept) >= 0.8 (the recipe confirms candidates with
              jaccard, and RMinHashDeduplicator checks them against its
              threshold), else insert it and keep it. Keys are input
              positions (RMinHashLSH keys are integers). RMinHash objects
              pickle (638 bytes at 128 permutations), so they are sketched
              on the pool like the others.

Fingerprints (Simhash values, MinHash signatures, RMinHash sketches) are
computed by a multiprocessing.Pool of --workers processes (default 2, the
machine's cores), imap in input order with chunks of 64 documents; the
index is filled in the main process after all fingerprints are in, because
each decision depends on the ones before. Reading and parsing the JSON lines
is timed too: the clock starts before the file is opened and stops after
the kept ids are written.

Prints {"tool", "documents", "bytes" (UTF-8 bytes of the texts), "kept",
"read_s", "fingerprint_s", "index_s", "total_s", "peak_rss_kb" (the main
process), "worker_peak_rss_kb" (the largest worker)}. The caller times the
whole process (interpreter start and imports included) from outside.
"""

import argparse
import json
import multiprocessing
import re
import resource
import sys
import time

WORD = re.compile(r"\w+")
NUM_PERM = 128
THRESHOLD = 0.8
K = 3
RENSA_BANDS = 16  # rensa's README: RMinHashLSH(threshold=0.8, num_perm=128, num_bands=16)

_permutations = None


def simhash_value(text):
    from simhash import Simhash

    return Simhash(text).value


def shingles(text):
    words = WORD.findall(text.lower())
    if len(words) <= 3:
        return {" ".join(words).encode("utf-8")} if words else set()
    return {" ".join(words[i:i + 3]).encode("utf-8") for i in range(len(words) - 2)}


def _init_minhash_worker():
    global _permutations
    from datasketch import MinHash

    _permutations = MinHash(num_perm=NUM_PERM).permutations


def minhash_signature(text):
    from datasketch import LeanMinHash, MinHash

    m = MinHash(num_perm=NUM_PERM, permutations=_permutations, scheme="affine32")
    m.update_batch(shingles(text))
    return LeanMinHash(m)


def rminhash_sketch(text):
    from rensa import RMinHash

    m = RMinHash(num_perm=NUM_PERM, seed=42)
    m.update(shingles(text))
    return m  # pickles (num_perm, seed and the digest) back to the main process


def dedup_simhash(ids, values):
    from simhash import Simhash, SimhashIndex

    index = SimhashIndex([], k=K)
    kept = []
    for doc_id, value in zip(ids, values):
        s = Simhash(value)
        if index.get_near_dups(s):
            continue
        index.add(doc_id, s)
        kept.append(doc_id)
    return kept


def dedup_datasketch(ids, signatures):
    from datasketch import MinHashLSH

    lsh = MinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM)
    kept = []
    for doc_id, m in zip(ids, signatures):
        if lsh.query(m):
            continue
        lsh.insert(doc_id, m)
        kept.append(doc_id)
    return kept


def dedup_rensa(ids, sketches):
    from rensa import RMinHashLSH

    lsh = RMinHashLSH(threshold=THRESHOLD, num_perm=NUM_PERM, num_bands=RENSA_BANDS)
    kept = []
    for key, (doc_id, m) in enumerate(zip(ids, sketches)):
        # Only kept documents are in the index, so a candidate is a kept one.
        if any(m.jaccard(sketches[c]) >= THRESHOLD for c in lsh.query(m)):
            continue
        lsh.insert(key, m)
        kept.append(doc_id)
    return kept


PEERS = {
    "simhash": ("PyPI simhash SimhashIndex", simhash_value, None, dedup_simhash),
    "datasketch": ("datasketch MinHashLSH", minhash_signature, _init_minhash_worker,
                   dedup_datasketch),
    "rensa": ("rensa RMinHashLSH", rminhash_sketch, None, dedup_rensa),
}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", choices=sorted(PEERS))
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--kept", help="write the kept ids here, one a line")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("corpus", nargs="?")
    args = ap.parse_args()
    if args.list:
        print("\n".join(sorted(PEERS)))
        return
    if not args.peer or not args.corpus:
        ap.error("--peer and CORPUS are required")
    name, fingerprint, initializer, dedup = PEERS[args.peer]
    # Import the peer before the clock starts and before the pool forks, so
    # the workers inherit it.
    if args.peer == "simhash":
        import simhash  # noqa: F401
    elif args.peer == "rensa":
        import rensa  # noqa: F401
    else:
        import datasketch  # noqa: F401

    start = time.perf_counter()
    ids, texts = [], []
    with open(args.corpus, encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            ids.append(d["id"])
            texts.append(d["text"])
    read = time.perf_counter()
    with multiprocessing.get_context("fork").Pool(args.workers, initializer) as pool:
        prints = list(pool.imap(fingerprint, texts, chunksize=64))
        pool.close()
        pool.join()
    fingerprinted = time.perf_counter()
    kept = dedup(ids, prints)
    if args.kept:
        with open(args.kept, "w", encoding="utf-8") as f:
            f.writelines(k + "\n" for k in kept)
    done = time.perf_counter()

    print(json.dumps({
        "tool": name,
        "workers": args.workers,
        "documents": len(texts),
        "bytes": sum(len(t.encode("utf-8")) for t in texts),
        "kept": len(kept),
        "read_s": round(read - start, 3),
        "fingerprint_s": round(fingerprinted - read, 3),
        "index_s": round(done - fingerprinted, 3),
        "total_s": round(done - start, 3),
        "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
        "worker_peak_rss_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
    }))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
