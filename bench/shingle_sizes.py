#!/usr/bin/env python3
"""Why the truth's shingles are 3 words and 4 Chinese characters (docs/QUALITY.md).

    target/release/neardup eval --export /tmp/bench > /dev/null
    python3 bench/shingle_sizes.py /tmp/bench

For each language and shingle size, over up to 400 pairs of each kind of
the exported benchmark: the 99th percentile of the Jaccard similarity of
hard negatives (different documents of one topic), and the share of copies
with 3%, 8% and 12% of their units substituted that reach Jaccard 0.8.
Units are those of bench/peers/eval_peers.py (the truth's: UAX #29 words;
letters and digits of Chinese). Standard library only.
"""

import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "peers"))
from eval_peers import units  # noqa: E402

KINDS = ["hard negative", "substitute 0.03", "substitute 0.08", "substitute 0.12"]
SIZES = {"en": [1, 2, 3, 4, 5], "zh": [2, 3, 4, 5, 6]}
PER_KIND = 400


def shingle_set(words, n, separator):
    if len(words) <= n:
        return {separator.join(words)} if words else set()
    return {separator.join(words[i:i + n]) for i in range(len(words) - n + 1)}


def jaccard(a, b):
    union = len(a | b)
    return len(a & b) / union if union else 1.0


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    folder = sys.argv[1]
    with open(f"{folder}/documents.jsonl", encoding="utf-8") as f:
        docs = [json.loads(line) for line in f]
    chosen = {(lang, kind): [] for lang in SIZES for kind in KINDS}
    with open(f"{folder}/pairs.jsonl", encoding="utf-8") as f:
        for line in f:
            p = json.loads(line)
            key = (docs[p["a"]]["language"], p["origin"])
            if key in chosen and len(chosen[key]) < PER_KIND:
                chosen[key].append((p["a"], p["b"]))
    print("| shingle | hard negatives, 99th percentile | 3% substituted | 8% substituted | 12% substituted |")
    print("|---|--:|--:|--:|--:|")
    for lang, sizes in SIZES.items():
        separator = "" if lang == "zh" else " "
        unit = "characters" if lang == "zh" else "words"
        for n in sizes:
            cells = []
            for kind in KINDS:
                values = []
                for a, b in chosen[(lang, kind)]:
                    sa = shingle_set(units(docs[a]["text"], lang), n, separator)
                    sb = shingle_set(units(docs[b]["text"], lang), n, separator)
                    values.append(jaccard(sa, sb))
                if not values:
                    cells.append("–")
                elif kind == "hard negative":
                    cells.append(f"{sorted(values)[int(0.99 * (len(values) - 1))]:.3f}")
                else:
                    cells.append(f"{sum(v >= 0.8 for v in values) / len(values):.3f}")
            print(f"| {lang}, {n} {unit} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
