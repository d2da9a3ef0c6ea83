"""All pairs within k bits among fingerprints, by the Python peers.

    python pairs_peers.py --peer simhash-pybind|simhash-index FILE [--k 3]
    python pairs_peers.py --peer simhash-index-queries FILE [--k 3]

FILE holds 64-bit fingerprints as little-endian u64s (written by
`cargo run --release -p neardup-index --example pairs -- --dump FILE`).
Prints one JSON line: the tool, the number of fingerprints, the pairs found
and the seconds the search took (loading the file is not timed).

- simhash-pybind (seomoz's C++ simhash, module `simhash`; its own venv):
  `find_all(hashes, blocks, k)` with k + 1 blocks. It takes a set, so
  identical fingerprints are one and their pairs are not reported.
- simhash-index (PyPI simhash 2.1.2): `SimhashIndex(objs, k=k)` built from
  all fingerprints, then `get_near_dups` for each, as its README shows;
  each pair is found from both ends and counted once.
- simhash-index-queries: the same index, timed apart: the build, then
  queries per second over the first 20,000 fingerprints, each with one bit
  flipped (so each finds at least its original).
"""

import argparse
import json
import struct
import time


def load(path):
    data = open(path, "rb").read()
    return list(struct.unpack(f"<{len(data) // 8}Q", data))


def simhash_pybind(fps, k):
    import simhash

    start = time.perf_counter()
    pairs = simhash.find_all(fps, k + 1, k)
    return len(pairs), time.perf_counter() - start


def simhash_index(fps, k):
    from simhash import Simhash, SimhashIndex

    start = time.perf_counter()
    objs = [(str(i), Simhash(v)) for i, v in enumerate(fps)]
    index = SimhashIndex(objs, k=k)
    pairs = set()
    for i, v in enumerate(fps):
        for j in index.get_near_dups(Simhash(v)):
            j = int(j)
            if j != i:
                pairs.add((min(i, j), max(i, j)))
    return len(pairs), time.perf_counter() - start


def simhash_index_queries(fps, k):
    from simhash import Simhash, SimhashIndex

    start = time.perf_counter()
    index = SimhashIndex([(str(i), Simhash(v)) for i, v in enumerate(fps)], k=k)
    build = time.perf_counter() - start
    queries = [Simhash(v ^ 1) for v in fps[:20000]]
    start = time.perf_counter()
    found = sum(1 for q in queries if index.get_near_dups(q))
    seconds = time.perf_counter() - start
    return {"build_s": round(build, 3), "queries": len(queries), "found": found,
            "single_qps": round(len(queries) / seconds)}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--peer", required=True,
                    choices=["simhash-pybind", "simhash-index", "simhash-index-queries"])
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("file")
    args = ap.parse_args()
    fps = load(args.file)
    if args.peer == "simhash-index-queries":
        row = {"tool": "simhash-index", "n": len(fps), "k": args.k}
        print(json.dumps({**row, **simhash_index_queries(fps, args.k)}))
        return
    run = simhash_pybind if args.peer == "simhash-pybind" else simhash_index
    pairs, seconds = run(fps, args.k)
    print(json.dumps({"tool": args.peer, "n": len(fps), "k": args.k,
                      "pairs": pairs, "median_s": round(seconds, 3)}))


if __name__ == "__main__":
    main()
