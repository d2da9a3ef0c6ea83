"""Writes N short documents with planted near-duplicates, as JSON lines.

    python3 bench/short_documents.py N PATH [--words 20-40] [--max-letters L]

Each document is 20 to 40 (--words) words drawn at random from the
vocabulary of the KJV (samples/bible/kjv.jsonl, public domain), words of at
most L letters if --max-letters is given. One document in ten is a planted
near-duplicate: an earlier document with one word replaced, whose id says
which ("dup-of-<id>/<n>"). Seeded: the same arguments, the same file. The
file is written under a temporary name and renamed when complete.
"""

import argparse
import json
import os
import random
import re


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("n", type=int)
    parser.add_argument("path")
    parser.add_argument("--words", default="20-40", help="LOW-HIGH words per document")
    parser.add_argument("--max-letters", type=int, default=None)
    args = parser.parse_args()
    low, high = (int(x) for x in args.words.split("-"))
    words = set()
    with open("samples/bible/kjv.jsonl") as f:
        for line in f:
            text = json.loads(line)["text"]
            words.update(w.lower() for w in re.findall(r"[A-Za-z]+", text))
    vocab = sorted(w for w in words if args.max_letters is None or len(w) <= args.max_letters)
    rng = random.Random(12)
    tmp = args.path + ".tmp"
    kept = []
    with open(tmp, "w") as out:
        for i in range(args.n):
            if kept and rng.random() < 0.1:
                j, text = kept[rng.randrange(len(kept))]
                w = text.split()
                w[rng.randrange(len(w))] = rng.choice(vocab)
                doc = {"id": f"dup-of-{j}/{i}", "text": " ".join(w)}
            else:
                text = " ".join(rng.choice(vocab) for _ in range(rng.randint(low, high)))
                doc = {"id": str(i), "text": text}
                if len(kept) < 100000:
                    kept.append((i, text))
                else:
                    kept[rng.randrange(len(kept))] = (i, text)
            out.write(json.dumps(doc) + "\n")
    os.replace(tmp, args.path)


if __name__ == "__main__":
    main()
