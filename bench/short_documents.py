"""Writes N short documents with planted near-duplicates, as JSON lines.

    python3 bench/short_documents.py N PATH [--words 20-40] [--max-letters L]
                                     [--zipf V] [--edit word|end] [--jobs J]

Each document is 20 to 40 (--words) words drawn at random from the
vocabulary of the KJV (samples/bible/kjv.jsonl, public domain), words of at
most L letters if --max-letters is given, all equally likely. A few
thousand words equally likely is the worst case for the short-document
rule's prefix filter: every document's rarest words are common ones. Text
has a long tail of rare words instead; with --zipf V, words are drawn from
V of them by Zipf's law (the r-th most frequent with weight 1/r): the
KJV's words first, then made-up words of 4 to 7 letters (names, tags and
misspellings play that part in real short texts). One document in ten is
a planted near-duplicate: an earlier document with one word replaced,
whose id says which ("dup-of-<id>/<n>"): any word (--edit word, the
default), or the last (--edit end). Replacing a word in the middle of a
20-word text changes 3 of its 18 word 3-shingles (Jaccard 0.71), so at the
default --threshold 0.8 such a copy is no near-duplicate; replacing the
last changes one (Jaccard 0.89), and it is.

Seeded: the same arguments, the same file. With --jobs J, J processes each
write a slice of the documents (seeded by its number; planted documents
copy earlier ones of their own slice) and the slices are joined. The file
is written under a temporary name and renamed when complete.
"""

import argparse
import json
import os
import random
import re
import string
from multiprocessing import Pool


def vocabulary(max_letters, zipf):
    """The words, most frequent first, and their cumulative weights (None:
    all equally likely)."""
    words = set()
    with open("samples/bible/kjv.jsonl") as f:
        for line in f:
            text = json.loads(line)["text"]
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    vocab = sorted(w for w in words if max_letters is None or len(w) <= max_letters)
    if not zipf:
        return vocab, None
    made = random.Random(13)
    made.shuffle(vocab)
    seen = set(vocab)
    while len(vocab) < zipf:
        word = "".join(made.choices(string.ascii_lowercase, k=made.randint(4, 7)))
        if word not in seen:
            seen.add(word)
            vocab.append(word)
    vocab = vocab[:zipf]
    cumulative, total = [], 0.0
    for r in range(len(vocab)):
        total += 1.0 / (r + 1)
        cumulative.append(total)
    return vocab, cumulative


def write_slice(job):
    path, first, count, seed, low, high, max_letters, zipf, at_end = job
    vocab, cumulative = vocabulary(max_letters, zipf)
    rng = random.Random(seed)
    if cumulative is None:
        def draw(k):
            return [rng.choice(vocab) for _ in range(k)]
    else:
        def draw(k):
            return rng.choices(vocab, cum_weights=cumulative, k=k)
    kept = []
    with open(path, "w") as out:
        for i in range(first, first + count):
            if kept and rng.random() < 0.1:
                j, text = kept[rng.randrange(len(kept))]
                w = text.split()
                w[len(w) - 1 if at_end else rng.randrange(len(w))] = draw(1)[0]
                doc = {"id": f"dup-of-{j}/{i}", "text": " ".join(w)}
            else:
                text = " ".join(draw(rng.randint(low, high)))
                doc = {"id": str(i), "text": text}
                if len(kept) < 100000:
                    kept.append((i, text))
                else:
                    kept[rng.randrange(len(kept))] = (i, text)
            out.write(json.dumps(doc) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("path")
    parser.add_argument("--words", default="20-40", help="LOW-HIGH words per document")
    parser.add_argument("--max-letters", type=int, default=None)
    parser.add_argument("--zipf", type=int, default=None, help="V words by Zipf's law")
    parser.add_argument("--edit", choices=["word", "end"], default="word",
                        help="which word of a planted copy is replaced")
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args()
    low, high = (int(x) for x in args.words.split("-"))
    tmp = args.path + ".tmp"
    if args.jobs == 1:
        write_slice((tmp, 0, args.n, 12, low, high, args.max_letters, args.zipf,
                     args.edit == "end"))
    else:
        size = -(-args.n // args.jobs)
        jobs = [
            (f"{tmp}.{j}", j * size, min(size, args.n - j * size), 12 + j, low, high,
             args.max_letters, args.zipf, args.edit == "end")
            for j in range(args.jobs)
        ]
        with Pool(args.jobs) as pool:
            pool.map(write_slice, jobs)
        with open(tmp, "wb") as out:
            for job in jobs:
                with open(job[0], "rb") as part:
                    while chunk := part.read(1 << 24):
                        out.write(chunk)
                os.remove(job[0])
    os.replace(tmp, args.path)


if __name__ == "__main__":
    main()
