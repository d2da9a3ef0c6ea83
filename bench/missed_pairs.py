#!/usr/bin/env python3
"""What `neardup dedup` leaves both kept among the true near-duplicates of real text.

    bench/missed-pairs.sh [--threshold 0.8] [-k 8] [--corpus copyright,man,licenses]
    python3 bench/missed_pairs.py --neardup target/release/neardup [options]

A near-duplicate pair, as README defines it, is two documents whose word
3-shingles (character 4-grams for text mostly in Han, kana, Thai...) have an
exact Jaccard similarity of at least T. `neardup dedup` finds candidates by
SimHash within k bits (and short documents by their shingles) and verifies
them, so a pair of long documents at J >= T whose fingerprints are more than
k bits apart can be left both kept. This script measures how often that
happens on text nobody here wrote: what the machine has.

1. Corpus (bench/missed_pairs_corpus.py; deterministic: sorted paths; one
   JSONL file in the scratch dir, {"id": path, "text": ...}, the same text
   for neardup and for the truth):
   - copyright: /usr/share/doc/*/copyright
   - man: every man page under /usr/share/man (all languages), gunzipped,
     decoded as UTF-8 (invalid bytes replaced), troff markup stripped
     crudely (--troff strip, the default: comments, definitions and
     formatting requests dropped, macro names dropped and their arguments
     kept, escapes such as \\fB removed, \\- as -, \\(em and other named
     glyphs as their character or a space); --troff keep gives the source.
     Pages that are only a `.so` redirect have no text left and are skipped.
   - licenses: /usr/share/common-licenses/*
   Symlinks are skipped when their target is in the corpus under another
   path (the first path in sorted order is kept), so one file is one
   document. Texts with no word (no letter or digit) are skipped.
2. Truth (bench/missed_pairs_truth.py), in Python (standard library only),
   independent of neardup's code: words are the UAX #29 words of the NFKC,
   lowercased text holding a letter or a digit (the regex of
   bench/peers/eval_peers.py, the ruler of docs/QUALITY.md, completed:
   MidNum such as the fraction slash, marks and joiners inside words; see
   its WORD), with the typographic apostrophe folded
   onto ' and traditional Han characters onto simplified ones by the
   repository's OpenCC table, as crates/core normalize does; shingles are
   word 3-grams, or character 4-grams of the letters and digits when at
   least half of the letters and digits are Han, kana, Thai, Lao, Khmer or
   Myanmar; a text shorter than one shingle is one shingle. Every pair with
   J >= T is found exactly by an all-pairs prefix-filter join (shingles
   ordered rarest first, documents by size: two sets x, y with |y| <= |x|
   at J >= T share at least ceil(T|x|) shingles, so one of the first
   |x| - ceil(T|x|) + 1 of x and of the first |y| - ceil(T|y|) + 1 of y;
   those are indexed and probed, candidates are length-filtered and their
   Jaccard computed exactly as c / (|a| + |b| - c), the float test neardup
   makes). The ruler is checked twice: its Jaccard against `neardup compare
   --json` (verify.value, and the distance) on a seeded sample of pairs
   (the missed ones, true ones, candidates in [0.5, T) and random ones),
   and the distinct words of every document without Han or kana against
   the features of `neardup fingerprint --explain --profile en --features
   words --stop-words none`.
3. `neardup dedup CORPUS --out SCRATCH/out --force --quiet` (defaults, or -k
   and --threshold as given) and `neardup fingerprint CORPUS` (for the
   distance of every true pair). Reported: documents, true pairs, pairs
   left both kept (the misses) with J, distance and lengths, dropped
   documents whose duplicate_of is under T, the distribution of distance
   over true pairs and over the misses, of length over the documents of
   missed pairs, and true pairs and misses by the Debian package the files
   came from (dpkg's file lists; --exclude-package leaves one out). A
   compact table goes to stdout, everything to SCRATCH/missed_pairs.json
   (or --json). Same machine, same files, same numbers: every order is
   sorted or seeded (--seed).
"""

import argparse
import collections
import json
import os
import random
import subprocess
import sys
import time

from missed_pairs_corpus import CORPORA, corpus_paths, package_of, packages, read_text
from missed_pairs_truth import (
    NOT_WORD_FEATURES,
    Shingler,
    all_pairs,
    jaccard,
    length_in_words,
    units,
)

SHORT_WORDS = 50  # crates/dedup/src/short.rs


def run(cmd, **kw):
    return subprocess.run(cmd, check=True, **kw)


def popcount(x):
    return bin(x).count("1")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--neardup", default=os.environ.get("NEARDUP", "target/release/neardup"))
    parser.add_argument("--threshold", type=float, default=0.8)
    parser.add_argument("-k", type=int, default=None, help="passed to dedup (its default: 8)")
    parser.add_argument("--short-words", default=None,
                        help="passed to dedup and compare (its default: 50; all: every text short)")
    parser.add_argument("--corpus", default=",".join(CORPORA),
                        help="comma-separated: copyright, man, licenses (default all)")
    parser.add_argument("--troff", choices=["strip", "keep"], default="strip",
                        help="man pages: troff markup stripped crudely (default) or kept")
    parser.add_argument("--exclude-package", action="append", default=[], metavar="NAME",
                        help="leave out the files of this Debian package (repeatable)")
    parser.add_argument("--scratch", default=None, help="work dir (default: a new temp dir, kept)")
    parser.add_argument("--json", default=None, help="result file (default SCRATCH/missed_pairs.json)")
    parser.add_argument("--ruler", type=int, default=1000,
                        help="pairs checked with neardup compare (default 1000)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    chosen = [c.strip() for c in args.corpus.split(",") if c.strip()]
    for c in chosen:
        if c not in CORPORA:
            parser.error(f"unknown corpus {c!r}: choose among {', '.join(CORPORA)}")
    neardup = os.path.abspath(args.neardup)
    if not os.access(neardup, os.X_OK):
        sys.exit(f"no neardup binary at {neardup} (set NEARDUP or --neardup)")
    if args.scratch:
        scratch = os.path.abspath(args.scratch)
        os.makedirs(scratch, exist_ok=True)
    else:
        import tempfile
        scratch = tempfile.mkdtemp(prefix="missed-pairs-")
    t = args.threshold
    clock = {}
    started = time.monotonic()

    def lap(name, since):
        clock[name] = round(time.monotonic() - since, 1)
        print(f"  {name}: {clock[name]} s", file=sys.stderr)
        return time.monotonic()

    # 1. The corpus, and each document's shingles.
    now = time.monotonic()
    paths, symlinked = corpus_paths(chosen)
    owner = packages()
    corpus = os.path.join(scratch, "corpus.jsonl")
    shingler = Shingler()
    ids, kinds, texts_at, words, ws_words, sids, cut_chars = [], [], [], [], [], [], []
    package, word_set = [], []
    skipped = collections.Counter()
    with open(corpus + ".tmp", "w", encoding="utf-8") as out:
        for kind, path in paths:
            if args.exclude_package and package_of(owner, path) in args.exclude_package:
                skipped["excluded package"] += 1
                continue
            text = read_text(kind, path, args.troff)
            if not text.strip():
                skipped["empty"] += 1
                continue
            us, chars = units(text)
            if not us:
                skipped["no word"] += 1
                continue
            texts_at.append(out.tell())
            out.write(json.dumps({"id": path, "text": text}, ensure_ascii=False) + "\n")
            ids.append(path)
            kinds.append(kind)
            package.append(package_of(owner, path))
            # For the second ruler: the distinct words (not comparable where
            # the fingerprint's features are not words: Han, kana...).
            word_set.append(None if chars or NOT_WORD_FEATURES.search(text) else hash(frozenset(us)))
            words.append(len(us))
            ws_words.append(length_in_words(text))
            cut_chars.append(chars)
            sids.append(shingler.shingles(us, chars))
    os.replace(corpus + ".tmp", corpus)
    n = len(ids)
    print(f"{n} documents ({', '.join(f'{k} {v}' for k, v in sorted(collections.Counter(kinds).items()))}),"
          f" {os.path.getsize(corpus) / 1e6:.1f} MB, {sum(words)} words; skipped: "
          f"{symlinked} links to files already in, {dict(skipped)}", file=sys.stderr)
    now = lap("corpus and shingles", now)

    # 2. The truth: rank shingles rarest first, join.
    df = shingler.df
    rank = [0] * len(df)
    for r, s in enumerate(sorted(range(len(df)), key=lambda s: (df[s], s))):
        rank[s] = r
    shingler = None
    sets = [sorted(rank[s] for s in ss) for ss in sids]
    sids = None
    pairs, verified, near = all_pairs(sets, t)
    print(f"{len(pairs)} pairs at J >= {t} ({verified} candidates verified)", file=sys.stderr)
    now = lap("truth (all-pairs join)", now)

    # 3. neardup dedup, and every fingerprint.
    out_dir = os.path.join(scratch, "out")
    dedup_cmd = [neardup, "dedup", corpus, "--out", out_dir, "--force", "--quiet"]
    if args.k is not None:
        dedup_cmd += ["-k", str(args.k)]
    if args.short_words is not None:
        dedup_cmd += ["--short-words", args.short_words]
    if t != 0.8:
        dedup_cmd += ["--threshold", repr(t)]
    run(dedup_cmd)
    now = lap("neardup dedup", now)
    with open(os.path.join(out_dir, "summary.json")) as f:
        summary = json.load(f)
    number = {p: i for i, p in enumerate(ids)}
    kept = set()
    with open(os.path.join(out_dir, "unique.jsonl"), encoding="utf-8") as f:
        for line in f:
            kept.add(number[json.loads(line)["id"]])
    dropped = {}
    with open(os.path.join(out_dir, "duplicates.jsonl"), encoding="utf-8") as f:
        for line in f:
            d = json.loads(line)
            dropped[number[d["id"]]] = (number[d["duplicate_of"]], d.get("distance"))
    assert len(kept) + len(dropped) == n, (len(kept), len(dropped), n)

    fp_cmd = [neardup, "fingerprint", corpus, "--quiet"]
    fingerprints = []
    proc = subprocess.Popen(fp_cmd, stdout=subprocess.PIPE, text=True)
    for line in proc.stdout:
        fingerprints.append(int(json.loads(line)["fingerprint"], 16))
    if proc.wait() != 0:
        sys.exit(f"{' '.join(fp_cmd)} failed")
    assert len(fingerprints) == n
    # The second ruler, on every document: our distinct words against the
    # features of `neardup fingerprint --explain` with the en profile, no
    # stop words and word features (the same UAX #29 words of the
    # normalised text; Han and kana are cut otherwise there, so documents
    # with any are left out of this check).
    words_cmd = [neardup, "fingerprint", corpus, "--quiet", "--profile", "en",
                 "--stop-words", "none", "--features", "words", "--explain", "1000000000"]
    proc = subprocess.Popen(words_cmd, stdout=subprocess.PIPE, text=True)
    words_checked, words_differ = 0, []
    for i, line in enumerate(proc.stdout):
        if word_set[i] is None:
            continue
        words_checked += 1
        theirs = frozenset(f[0] for f in json.loads(line)["features"])
        if hash(theirs) != word_set[i]:
            words_differ.append(ids[i])
    if proc.wait() != 0:
        sys.exit(f"{' '.join(words_cmd)} failed")
    now = lap("neardup fingerprint (and its words)", now)

    def distance(a, b):
        return popcount(fingerprints[a] ^ fingerprints[b])

    k = args.k if args.k is not None else summary.get("settings", {}).get("k", 8)
    wrong_drops = []
    for d, (of, dist) in sorted(dropped.items()):
        c = len(set(sets[d]).intersection(sets[of]))
        j = jaccard(c, len(sets[d]), len(sets[of]))
        if j < t:
            wrong_drops.append({"id": ids[d], "duplicate_of": ids[of], "jaccard": j,
                                "distance": dist})
    missed = []
    bands = collections.Counter()
    for (a, b), j in sorted(pairs.items()):
        dist = distance(a, b)
        bands["0-8" if dist <= 8 else "9-12" if dist <= 12 else ">12"] += 1
        if a in kept and b in kept:
            missed.append({
                "a": ids[a], "b": ids[b], "jaccard": j, "distance": dist,
                "packages": [package[a], package[b]],
                "words": [words[a], words[b]],
                "length_in_words": [ws_words[a], ws_words[b]],
                "shingles": [len(sets[a]), len(sets[b])],
                "short_rule": (ws_words[a] < SHORT_WORDS and ws_words[b] < 2 * SHORT_WORDS)
                or (ws_words[b] < SHORT_WORDS and ws_words[a] < 2 * SHORT_WORDS),
            })
    missed.sort(key=lambda m: (-m["jaccard"], m["a"], m["b"]))
    missed_within_k = sum(1 for m in missed if m["distance"] <= k)
    missed_distances = collections.Counter(m["distance"] for m in missed)

    def family(a, b):
        pa, pb = package[a], package[b]
        return pa if pa == pb else "(pairs across two packages)"

    by_package = collections.defaultdict(lambda: {"documents": 0, "true_pairs": 0, "missed": 0})
    for i in range(n):
        by_package[package[i]]["documents"] += 1
    for a, b in pairs:
        by_package[family(a, b)]["true_pairs"] += 1
    for m in missed:
        by_package[family(number[m["a"]], number[m["b"]])]["missed"] += 1
    by_package = dict(sorted(by_package.items(),
                             key=lambda kv: (-kv[1]["missed"], -kv[1]["true_pairs"], kv[0])))
    by_distance = collections.Counter(distance(a, b) for a, b in pairs)

    # 4. The ruler: our Jaccard against neardup compare's, on a seeded sample.
    rng = random.Random(args.seed)
    true_list, under_list = sorted(pairs), list(near)
    rng.shuffle(true_list)
    rng.shuffle(under_list)
    sample = [(number[m["a"]], number[m["b"]]) for m in missed][: args.ruler // 4]
    sample += true_list[: args.ruler // 2 - len(sample)]
    sample += under_list[: args.ruler // 4]
    while len(sample) < args.ruler and n > 1:
        sample.append(tuple(sorted(rng.sample(range(n), 2))))
    sample = list(dict.fromkeys(sample))[: args.ruler]
    agree, disagreements, side_agree, dist_agree = 0, [], 0, 0
    with open(corpus, encoding="utf-8") as f:
        def text_of(i):
            f.seek(texts_at[i])
            return json.loads(f.readline())["text"]

        pa, pb = os.path.join(scratch, "a.txt"), os.path.join(scratch, "b.txt")
        compare_cmd = [neardup, "compare", "--json", pa, pb]
        if args.k is not None:
            compare_cmd += ["-k", str(args.k)]
        if args.short_words is not None:
            compare_cmd += ["--short-words", args.short_words]
        if t != 0.8:
            compare_cmd += ["--threshold", repr(t)]
        for a, b in sample:
            for p, i in ((pa, a), (pb, b)):
                with open(p, "w", encoding="utf-8") as g:
                    g.write(text_of(i))
            # Exit status 1 says "not near-duplicates" (at k): an answer.
            done = subprocess.run(compare_cmd, capture_output=True, text=True)
            if done.returncode not in (0, 1):
                sys.exit(f"{' '.join(compare_cmd)} failed: {done.stderr}")
            got = json.loads(done.stdout)
            c = len(set(sets[a]).intersection(sets[b]))
            ours = jaccard(c, len(sets[a]), len(sets[b]))
            theirs = got["verify"]["value"]
            agree += ours == theirs
            side_agree += (ours >= t) == (theirs >= t)
            dist_agree += got["distance"] == distance(a, b)
            if ours != theirs:
                disagreements.append({"a": ids[a], "b": ids[b], "ours": ours, "neardup": theirs})
        for p in (pa, pb):
            os.remove(p)
    now = lap("ruler (neardup compare)", now)
    clock["total"] = round(time.monotonic() - started, 1)

    def share(xs, lo, hi):
        return sum(1 for x in xs if lo <= x <= hi)

    missed_docs = sorted({number[m["a"]] for m in missed} | {number[m["b"]] for m in missed})
    lengths = [words[i] for i in missed_docs]
    length_bands = {f"{lo}-{hi}" if hi < 10**9 else f">={lo}": share(lengths, lo, hi)
                    for lo, hi in ((0, 49), (50, 99), (100, 499), (500, 1999), (2000, 10**9))}
    result = {
        "command": " ".join(sys.argv),
        "neardup": neardup,
        "dedup_command": " ".join(dedup_cmd),
        "threshold": t,
        "k": k,
        "corpus": chosen,
        "troff": args.troff,
        "excluded_packages": args.exclude_package,
        "corpus_file": corpus,
        "documents": n,
        "documents_by_corpus": dict(sorted(collections.Counter(kinds).items())),
        "documents_cut_in_characters": sum(cut_chars),
        "words": sum(words),
        "skipped": {"links to files already in": symlinked, **skipped},
        "kept": len(kept),
        "dropped": len(dropped),
        "neardup_summary": summary,
        "true_pairs": len(pairs),
        "candidates_verified_by_the_join": verified,
        "candidates_at_0.5_to_threshold": len(near),
        "true_pair_distance_bands": {b: bands[b] for b in ("0-8", "9-12", ">12")},
        "true_pair_distances": {str(d): c for d, c in sorted(by_distance.items())},
        "missed_pairs": len(missed),
        "missed_within_k": missed_within_k,
        "missed_distances": {str(d): c for d, c in sorted(missed_distances.items())},
        "by_package": by_package,
        "missed": missed,
        "missed_documents": len(missed_docs),
        "missed_document_words": length_bands,
        "dropped_under_threshold": len(wrong_drops),
        "dropped_under_threshold_list": wrong_drops,
        "ruler": {"pairs": len(sample), "equal": agree, "same_side_of_threshold": side_agree,
                  "same_distance": dist_agree, "disagreements": disagreements[:50]},
        "word_ruler": {"command": " ".join(words_cmd), "documents": words_checked,
                       "equal": words_checked - len(words_differ),
                       "left_out_han_kana_or_characters": n - words_checked,
                       "differ": words_differ[:50]},
        "seconds": clock,
    }
    path = args.json or os.path.join(scratch, "missed_pairs.json")
    with open(path + ".tmp", "w", encoding="utf-8") as f:
        json.dump(result, f, indent=1, ensure_ascii=False)
        f.write("\n")
    os.replace(path + ".tmp", path)

    # The table.
    print(f"| corpus | {', '.join(chosen)} (troff {args.troff}) |")
    print("|---|--:|")
    print(f"| documents | {n:,} ({', '.join(f'{k} {v:,}' for k, v in result['documents_by_corpus'].items())}) |")
    print(f"| kept / dropped by dedup (k = {k}, T = {t}) | {len(kept):,} / {len(dropped):,} |")
    print(f"| true pairs (J >= {t}) | {len(pairs):,} |")
    print(f"| ... at 0-8 / 9-12 / >12 bits | {bands['0-8']:,} / {bands['9-12']:,} / {bands['>12']:,} |")
    print(f"| true pairs left both kept (misses) | {len(missed):,} "
          f"({missed_within_k} within {k} bits) |")
    print(f"| ... at 9-12 / >12 bits | {sum(c for d, c in missed_distances.items() if 9 <= d <= 12):,} / "
          f"{sum(c for d, c in missed_distances.items() if d > 12):,} |")
    rest = {"documents": 0, "true_pairs": 0, "missed": 0}
    across = by_package.get("(pairs across two packages)", dict.fromkeys(rest, 0))
    named = False
    for name, row in by_package.items():
        if row["missed"] and name != "(pairs across two packages)":
            named = True
            print(f"| ... within {name} ({row['documents']:,} documents): true pairs / misses | "
                  f"{row['true_pairs']:,} / {row['missed']:,} |")
        elif name != "(pairs across two packages)":
            for key in rest:
                rest[key] += row[key]
    print(f"| ... within {'any other' if named else 'any'} one package ({rest['documents']:,} documents): "
          f"true pairs / misses | {rest['true_pairs']:,} / {rest['missed']:,} |")
    print(f"| ... across two packages: true pairs / misses | "
          f"{across['true_pairs']:,} / {across['missed']:,} |")
    print(f"| dropped with duplicate_of under {t} | {len(wrong_drops):,} |")
    print(f"| words of the {len(missed_docs)} docs in missed pairs | "
          + ", ".join(f"{b}: {c}" for b, c in length_bands.items()) + " |")
    print(f"| ruler: J equal to neardup compare | {agree} of {len(sample)} "
          f"({side_agree} on the same side of {t}; distance equal in {dist_agree}) |")
    print(f"| ruler: distinct words equal to neardup's, every document without Han or kana | "
          f"{words_checked - len(words_differ):,} of {words_checked:,} |")
    print(f"| seconds | {clock['total']} |")
    if missed:
        print()
        print("| J | bits | words | a | b |")
        print("|--:|--:|--:|---|---|")
        for m in missed[:40]:
            print(f"| {m['jaccard']:.3f} | {m['distance']} | {m['words'][0]}, {m['words'][1]} "
                  f"| {m['a']} | {m['b']} |")
        if len(missed) > 40:
            print(f"\n({len(missed) - 40} more in {path})")
    print(f"\nresult: {path}", file=sys.stderr)


if __name__ == "__main__":
    main()
