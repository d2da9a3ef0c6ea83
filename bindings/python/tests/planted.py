"""A generated corpus with planted near-duplicates, the same for a seed on
every machine: words drawn from the English samples, documents of 20 to
400 words (short ones among them), and a share of them edited copies of
an earlier document (a few words replaced, dropped or added) or exact
copies. Used by the Spark tests and bench/spark.sh.

    python planted.py N OUT.jsonl [SEED]
"""

import json
import random
import re
import sys
from pathlib import Path

SAMPLES = Path(__file__).resolve().parents[3] / "samples"


def vocabulary():
    words = set()
    for path in sorted((SAMPLES / "bible").glob("*.jsonl")):
        for line in path.open(encoding="utf-8"):
            words.update(re.findall(r"[a-z]+", json.loads(line)["text"].lower()))
    return sorted(words)


def documents(n, seed=1):
    """`(id, text)` of `n` documents."""
    rng = random.Random(seed)
    vocab = vocabulary()
    texts = []
    for i in range(n):
        roll = rng.random()
        if texts and roll < 0.05:
            text = texts[rng.randrange(len(texts))]
        elif texts and roll < 0.25:
            words = texts[rng.randrange(len(texts))].split()
            for _ in range(rng.randrange(1, max(2, len(words) // 25))):
                at = rng.randrange(len(words))
                kind = rng.randrange(3)
                if kind == 0:
                    words[at] = rng.choice(vocab)
                elif kind == 1 and len(words) > 5:
                    del words[at]
                else:
                    words.insert(at, rng.choice(vocab))
            text = " ".join(words)
        else:
            length = rng.choice([rng.randrange(20, 60), rng.randrange(60, 400)])
            text = " ".join(rng.choice(vocab) for _ in range(length))
        texts.append(text)
        yield f"doc{i}", text


if __name__ == "__main__":
    n, out = int(sys.argv[1]), Path(sys.argv[2])
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    with out.open("w", encoding="utf-8") as f:
        for i, t in documents(n, seed):
            f.write(json.dumps({"id": i, "text": t}) + "\n")
