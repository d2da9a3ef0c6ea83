"""The Python package against its Python peers, in one process each round,
on the same texts: one JSON line per measurement on stdout.

    bench/python.sh                 # builds the wheel, installs it into bench/.venv, runs this
    bench/.venv/bin/python bench/python_api.py --part fingerprint|compat|dedup [--docs N]

Parts:

  fingerprint  Fingerprinter().fingerprint_batch over the English texts of
               data/corpora (BBC News and the Django docs, 10.6 MB),
               repeated to at least 100 MB: MB/s of UTF-8 text, all cores.
  compat       PyPI simhash 2.1.2's README usage, with its own import and
               with `from neardup.compat import ...`: Simhash(text) of each
               text, then the README's index: objs = [(id, Simhash(
               get_features(text)))], SimhashIndex(objs, k=3), and
               get_near_dups of each text's features. Same texts (BBC and
               the Django docs, 4,525 texts), same answers checked.
  dedup        N generated texts with planted near-duplicates
               (bindings/python/tests/planted.py, default 1,000,000) in a
               list in memory: neardup.dedup(texts) (its defaults: k = 8,
               Jaccard >= 0.8 verified exactly, greedy, both cores) against
               the dedup loops of bench/peers/dedup_peers.py for rensa
               (RMinHash, RMinHashLSH with 16 bands, candidates confirmed at
               estimated Jaccard >= 0.8) and datasketch (MinHash,
               MinHashLSH at 0.8), their sketches made on a Pool(2) as there.
               Reports each one's seconds and kept count.

Times are medians of --rounds rounds (default 3; dedup default 1), taken
with time.perf_counter around the call, imports and reading done before.
"""

import argparse
import json
import multiprocessing
import re
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "bench" / "peers"))
sys.path.insert(0, str(ROOT / "bindings" / "python" / "tests"))


def english_texts():
    texts = []
    for name in ["bbc.jsonl", "tech_docs.jsonl"]:
        path = ROOT / "data" / "corpora" / name
        if not path.exists():
            sys.exit(f"{path}: missing; run scripts/fetch-corpora.sh")
        texts += [json.loads(line)["text"] for line in path.open(encoding="utf-8")]
    return texts


def timed(fn, rounds):
    times, out = [], None
    for _ in range(rounds):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times, out


def emit(**row):
    print(json.dumps(row), flush=True)


def part_fingerprint(rounds):
    import neardup

    base = english_texts()
    texts = list(base)
    while sum(map(len, texts)) < 100e6:
        texts += base
    size = sum(len(t.encode("utf-8")) for t in texts)
    fp = neardup.Fingerprinter()
    median, times, _ = timed(lambda: fp.fingerprint_batch(texts), rounds)
    emit(part="fingerprint", texts=len(texts), mb=size / 1e6, seconds=median, rounds=times,
         mb_per_s=size / 1e6 / median)


def get_features(s, width=3):
    # The feature function of PyPI simhash's README.
    s = s.lower()
    s = re.sub(r"[^\w]+", "", s)
    return [s[i:i + width] for i in range(max(len(s) - width + 1, 1))]


def readme_usage(module, texts):
    Simhash, SimhashIndex = module.Simhash, module.SimhashIndex
    values = [Simhash(t).value for t in texts]
    objs = [(str(i), Simhash(get_features(t))) for i, t in enumerate(texts)]
    index = SimhashIndex(objs, k=3)
    near = [sorted(index.get_near_dups(s)) for _, s in objs]
    return values, near, index.bucket_size()


def part_compat(rounds):
    import simhash

    from neardup import compat

    texts = english_texts()
    results = {}
    for name, module in [("simhash", simhash), ("neardup.compat", compat)]:
        median, times, out = timed(lambda: readme_usage(module, texts), rounds)
        results[name] = (median, out)
        emit(part="compat", tool=name, texts=len(texts), seconds=median, rounds=times)
    same = results["simhash"][1] == results["neardup.compat"][1]
    emit(part="compat", speedup=results["simhash"][0] / results["neardup.compat"][0], same_answers=same)
    if not same:
        sys.exit("neardup.compat answered otherwise than PyPI simhash")


def part_dedup(rounds, n):
    import dedup_peers as peers
    from planted import documents

    import neardup

    ids, texts = map(list, zip(*documents(n, seed=3)))
    size = sum(len(t.encode("utf-8")) for t in texts)
    emit(part="dedup", documents=n, mb=size / 1e6)
    median, times, result = timed(lambda: neardup.dedup(texts), rounds)
    emit(part="dedup", tool="neardup.dedup", seconds=median, rounds=times, kept=int(result.keep.sum()))
    for peer in ["rensa", "datasketch"]:
        _, sketch, initializer, loop = peers.PEERS[peer]

        def run():
            with multiprocessing.get_context("fork").Pool(2, initializer) as pool:
                prints = list(pool.imap(sketch, texts, chunksize=64))
            return loop(ids, prints)

        median, times, kept = timed(run, rounds)
        emit(part="dedup", tool=peer, seconds=median, rounds=times, kept=len(kept))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--part", choices=["fingerprint", "compat", "dedup"], required=True)
    ap.add_argument("--rounds", type=int)
    ap.add_argument("--docs", type=int, default=1_000_000)
    args = ap.parse_args()
    if args.part == "fingerprint":
        part_fingerprint(args.rounds or 5)
    elif args.part == "compat":
        part_compat(args.rounds or 3)
    else:
        part_dedup(args.rounds or 1, args.docs)


if __name__ == "__main__":
    main()
