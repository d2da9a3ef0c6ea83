"""The Python package against its Python peers, in one process each round,
on the same texts: one JSON line per measurement on stdout.

    bench/python.sh                 # builds the wheel, installs it into bench/.venv, runs this
    bench/.venv/bin/python bench/python_api.py --part fingerprint|compat|dedup [--docs N]

Parts:

  fingerprint  Fingerprinter().fingerprint_batch over the English texts of
               data/corpora (BBC News and the Django docs, 10.6 MB),
               repeated to at least 100 MB: MB/s of UTF-8 text, all cores.
  compat       PyPI simhash 2.1.2 against `from neardup.compat import ...`,
               same answers checked: its README start to end (its three
               texts, get_features, the index), 2,000 times, with the
               README's get_features run each time (the user's code, the
               same for both: it bounds the ratio) and with what it gave
               looked up instead (the package's calls alone); Simhash(text)
               of each text of BBC News and the Django docs (2,525 texts,
               10.6 MB); Simhash(features) of the same texts' README
               get_features (made before the clock starts: the user's code);
               SimhashIndex(objs, k=3) of their fingerprints (made before) and
               get_near_dups of each.
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


README_DATA = {
    1: "How are you? I Am fine. blar blar blar blar blar Thanks.",
    2: "How are you i am fine. blar blar blar blar blar than",
    3: "This is simhash test.",
}


README_QUERY = "How are you i am fine. blar blar blar blar blar thank"


def readme_snippet(m, features=get_features):
    # PyPI simhash's README, start to end, as one round; `features` is its
    # get_features, or a lookup of what it gave (the user's code left out).
    values = ["%x" % m.Simhash("How are you? I am fine. Thanks.").value,
              m.Simhash("aa").distance(m.Simhash("bb"))]
    objs = [(str(k), m.Simhash(features(v))) for k, v in README_DATA.items()]
    index = m.SimhashIndex(objs, k=3)
    values.append(index.bucket_size())
    s1 = m.Simhash(features(README_QUERY))
    values.append(sorted(index.get_near_dups(s1)))
    index.add("4", s1)
    values.append(sorted(index.get_near_dups(s1)))
    return values


def index_queries(m, values):
    # The README's index over these texts' fingerprints, each looked up.
    objs = [(str(i), m.Simhash(v)) for i, v in enumerate(values)]
    index = m.SimhashIndex(objs, k=3)
    return [sorted(index.get_near_dups(s)) for _, s in objs]


def part_compat(rounds):
    import simhash

    from neardup import compat

    texts = english_texts()
    features = [get_features(t) for t in texts]
    values = [compat.Simhash(f).value for f in features]
    made = {t: get_features(t) for t in [*README_DATA.values(), README_QUERY]}
    cases = {
        "readme x2000": lambda m: [readme_snippet(m) for _ in range(2000)],
        "readme x2000, features made before": lambda m: [readme_snippet(m, made.__getitem__)
                                                        for _ in range(2000)],
        "Simhash(text)": lambda m: [m.Simhash(t).value for t in texts],
        "Simhash(features)": lambda m: [m.Simhash(f).value for f in features],
        "SimhashIndex": lambda m: index_queries(m, values),
    }
    for case, run in cases.items():
        results = {}
        for name, module in [("simhash", simhash), ("neardup.compat", compat)]:
            median, times, out = timed(lambda: run(module), rounds)
            results[name] = (median, out)
        same = results["simhash"][1] == results["neardup.compat"][1]
        emit(part="compat", case=case, texts=len(texts), simhash_s=results["simhash"][0],
             compat_s=results["neardup.compat"][0],
             speedup=results["simhash"][0] / results["neardup.compat"][0], same_answers=same)
        if not same:
            sys.exit(f"{case}: neardup.compat answered otherwise than PyPI simhash")


def part_dedup(rounds, n):
    import dedup_peers as peers
    from planted import documents

    import neardup

    ids, texts = map(list, zip(*documents(n, seed=3)))
    size = sum(len(t.encode("utf-8")) for t in texts)
    emit(part="dedup", documents=n, mb=size / 1e6)
    median, times, result = timed(lambda: neardup.dedup(texts), rounds)
    emit(part="dedup", tool="neardup.dedup", seconds=median, rounds=times, kept=int(result.kept.sum()))
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
