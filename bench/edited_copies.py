#!/usr/bin/env python3
"""Copies of real corpora, lightly edited: inputs for the dedup benchmarks.

    python3 bench/edited_copies.py --copies 10 OUT.jsonl IN.jsonl...

Copy 0 is every input as it is. In copies 1 to N-1, each document is either
an exact copy (with probability --exact, default 0) or edited: in every block
of 100 words (100 characters for text without spaces, such as Chinese) one
position is drawn, and a coin says whether that word is deleted or replaced
by another word of the same document. Everything is seeded by copy and id,
so the file is the same on every machine. Ids are "COPY/ID". The output is
written to OUT.tmp and renamed when complete.
"""

import argparse
import json
import os
import random


def edited(text, rng):
    spaced = text.count(" ") * 20 >= len(text)
    units = text.split(" ") if spaced else list(text)
    edits = [start + rng.randrange(min(100, len(units) - start))
             for start in range(0, len(units), 100)]
    for pos in reversed(edits):
        if rng.random() < 0.5 or len(units) < 2:
            del units[pos]
        else:
            units[pos] = rng.choice(units)
    return (" " if spaced else "").join(units)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--copies", type=int, required=True)
    parser.add_argument("--exact", type=float, default=0.0,
                        help="share of the later copies left unedited")
    parser.add_argument("out")
    parser.add_argument("inputs", nargs="+")
    args = parser.parse_args()
    docs = []
    for path in args.inputs:
        with open(path, encoding="utf-8") as f:
            docs.extend(json.loads(line) for line in f if line.strip())
    with open(args.out + ".tmp", "w", encoding="utf-8") as out:
        for copy in range(args.copies):
            for d in docs:
                text = d["text"]
                if copy > 0:
                    rng = random.Random(f"{copy}/{d['id']}")
                    if args.exact == 0 or rng.random() >= args.exact:
                        text = edited(text, rng)
                out.write(json.dumps({"id": f"{copy}/{d['id']}", "text": text},
                                     ensure_ascii=False) + "\n")
    os.replace(args.out + ".tmp", args.out)


if __name__ == "__main__":
    main()
