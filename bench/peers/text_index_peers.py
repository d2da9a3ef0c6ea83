"""Near-duplicate search over documents with gaoya's SimHashStringIndex.

    python text_index_peers.py CORPUS.jsonl [--k 3]

CORPUS is JSON lines {"id", "text"}. Builds gaoya 0.2.2's
`SimHashStringIndex(hash_size=64, num_blocks=6, hamming_distance=k,
analyzer="word", lowercase=True)` from every document (insert_document),
then queries every document (query, one at a time). Prints one JSON line:
documents, seconds to build, seconds to query, and the matches found (each
document finds at least itself).
"""

import argparse
import json
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("corpus")
    args = ap.parse_args()
    from gaoya.simhash import SimHashStringIndex

    docs = [json.loads(line) for line in open(args.corpus, encoding="utf-8")]
    texts = [d["text"] for d in docs]
    start = time.perf_counter()
    index = SimHashStringIndex(hash_size=64, num_blocks=6, hamming_distance=args.k,
                               analyzer="word", lowercase=True)
    for i, text in enumerate(texts):
        index.insert_document(i, text)
    build = time.perf_counter() - start
    start = time.perf_counter()
    matches = sum(len(index.query(text)) for text in texts)
    query = time.perf_counter() - start
    print(json.dumps({"tool": "gaoya SimHashStringIndex", "documents": len(texts),
                      "build_s": round(build, 3), "query_s": round(query, 3),
                      "matches": matches}))


if __name__ == "__main__":
    main()
