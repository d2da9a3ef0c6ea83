"""Inserts a cluster of templated pages into `neardup serve --store-text`.

Every page is one template of 600 words with 6 words changed, so each new
page is a near-duplicate of every page before it: page i has i candidates,
each judged on the texts. Prints the inserts, the duplicates the answers
reported, and the time. bench/serve-cluster.sh runs it.

    python3 bench/serve_cluster.py http://127.0.0.1:18092 800
"""

import json
import random
import sys
import time
import urllib.request


def pages(n):
    rng = random.Random(7)
    words = [f"w{i}" for i in range(3000)]
    template = [rng.choice(words) for _ in range(600)]
    for _ in range(n):
        page = list(template)
        for _ in range(6):
            page[rng.randrange(len(page))] = rng.choice(words)
        yield " ".join(page)


def main():
    url, n = sys.argv[1], int(sys.argv[2])
    texts = list(pages(n))
    started = time.perf_counter()
    duplicates = 0
    for i, text in enumerate(texts):
        body = json.dumps({"id": f"p{i}", "text": text, "mode": "insert"}).encode()
        request = urllib.request.Request(
            url + "/v1/documents", body, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(request) as answer:
            duplicates += len(json.load(answer)["duplicates"])
    seconds = time.perf_counter() - started
    print(json.dumps({"what": "templated cluster", "inserts": n,
                      "duplicates_reported": duplicates, "seconds": round(seconds, 3)}))


if __name__ == "__main__":
    main()
