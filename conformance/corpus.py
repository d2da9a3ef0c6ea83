#!/usr/bin/env python3
"""Writes samples/conformance/corpus.jsonl: the one corpus that every door of
neardup (batch dedup, dedup day by day with --against, compare, the service,
Python, Spark) must judge alike (crates/cli/tests/conformance.rs and the
Python package's tests run it).

Real text from samples/ (public domain: verses of two Bible translations,
Chinese classics; licence and Debian copyright files, whose own terms allow
copying them) and edited copies of it, as crawls and corpora have them:
one-word edits, cut prefixes and suffixes, case, whitespace and punctuation
variants, added headers and timestamps, Chinese passages with spaces after
their full stops. Short lines and long files, English and Chinese.

Deterministic: the same file at every run.

    python3 conformance/corpus.py            # rewrites the corpus
    python3 conformance/corpus.py --check    # fails if it differs
"""

import argparse
import json
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = Path(__file__).resolve().parent / "corpus.jsonl"


def jsonl(path):
    with open(ROOT / "samples" / path, encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f if line.strip()]


def passages(rng):
    """Runs of one to six verses (a few words to a few hundred), Chinese
    passages, and whole licence and copyright files."""
    out = []
    for chapter in jsonl("bible/kjv.jsonl")[:40] + jsonl("bible/web.jsonl")[:12]:
        verses = chapter.split("\n")
        i = 0
        while i < len(verses):
            take = rng.randint(1, 6)
            out.append(" ".join(verses[i : i + take]))
            i += take
    for book in jsonl("zh/lunyu.jsonl")[:10]:
        out.extend(p for p in book.split("\n") if p.strip())
    files = sorted((ROOT / "samples" / "licenses").glob("*.txt"))
    files += sorted((ROOT / "samples" / "debian-copyright").glob("*.txt"))[:60]
    out.extend(f.read_text(encoding="utf-8") for f in files)
    return out


def is_chinese(text):
    han = sum(1 for c in text if "\u4e00" <= c <= "\u9fff")
    return han * 2 > len(text.strip())


def edited(text, rng):
    """An edited copy of `text`."""
    words = text.split()
    if is_chinese(text):
        choice = rng.randrange(6)
        if choice == 0:
            return text.replace("。", "。 ")
        if choice == 1:
            chars = list(text)
            at = rng.randrange(len(chars))
            chars[at] = "的"
            return "".join(chars)
        if choice == 2:
            return text[len(text) // 10 :]
        if choice == 3:
            return "转载：" + text
        if choice == 4:
            return text.replace("，", "")
        return text + " 2024年"
    choice = rng.randrange(9)
    if choice == 0:
        return "  \n".join(words)
    if choice == 1:
        at = rng.randrange(len(words))
        return " ".join(words[:at] + ["indeed"] + words[at + 1 :])
    if choice == 2:
        return text.upper()
    if choice == 3:
        return "Reprinted from the archive.\n" + text
    if choice == 4:
        return " ".join(words[len(words) // 10 :])
    if choice == 5:
        return text.replace(",", "").replace(";", "")
    if choice == 6:
        return text + "\nRetrieved 2024-03-0%d" % rng.randint(1, 9)
    if choice == 7:
        at = rng.randrange(len(words))
        return " ".join(words[:at] + words[at + 1 :])
    return text


def corpus():
    rng = random.Random(20261126)
    texts = []
    for passage in passages(rng):
        texts.append(passage)
        for _ in range(rng.choice([0, 0, 1, 1, 2, 3])):
            texts.append(edited(passage, rng))
    # Copies after their originals, not always next to them.
    for i in range(len(texts) - 1, 0, -1):
        if rng.randrange(4) == 0:
            j = i - rng.randrange(min(i, 30) + 1)
            texts[i], texts[j] = texts[j], texts[i]
    return [{"id": "c%04d" % i, "text": t} for i, t in enumerate(texts) if t.strip()]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="fail if the file differs")
    args = parser.parse_args()
    lines = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus())
    if args.check:
        if OUT.read_text(encoding="utf-8") != lines:
            sys.exit(f"{OUT} differs from what {__file__} writes: run it again")
        return
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(lines, encoding="utf-8")
    print(f"{OUT}: {lines.count(chr(10))} documents")


if __name__ == "__main__":
    main()
