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

1. Corpus (deterministic: sorted paths; one JSONL file in the scratch dir,
   {"id": path, "text": ...}, the same text for neardup and for the truth):
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
2. Truth, in Python (standard library only), independent of neardup's code:
   words are the UAX #29 words of the NFKC, lowercased text holding a
   letter or a digit (the regex of bench/peers/eval_peers.py, the ruler of
   docs/QUALITY.md, completed: MidNum such as the fraction slash, marks and
   joiners inside words; see WORD), with the typographic apostrophe folded
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
import glob
import gzip
import json
import math
import os
import random
import re
import subprocess
import sys
import time
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

CORPORA = ("copyright", "man", "licenses")
WORD_SHINGLE, CHAR_SHINGLE = 3, 4
SHORT_WORDS = 50  # crates/dedup/src/short.rs

# ---------------------------------------------------------------- corpus


def corpus_paths(chosen):
    """(kind, path) of every file of the chosen corpora, sorted, each real file
    once (the first path in sorted order that leads to it)."""
    paths = []
    if "copyright" in chosen:
        paths += [("copyright", p) for p in sorted(glob.glob("/usr/share/doc/*/copyright"))]
    if "man" in chosen:
        found = []
        for top, dirs, files in os.walk("/usr/share/man"):
            dirs.sort()
            found += [os.path.join(top, f) for f in files]
        paths += [("man", p) for p in sorted(found)]
    if "licenses" in chosen:
        paths += [("licenses", p) for p in sorted(glob.glob("/usr/share/common-licenses/*"))]
    seen, out, skipped = set(), [], 0
    for kind, path in paths:
        real = os.path.realpath(path)
        if not os.path.isfile(real) or real in seen:
            skipped += 1
            continue
        seen.add(real)
        out.append((kind, path))
    return out, skipped


def packages():
    """Path -> the Debian package that installed it, from dpkg's file lists
    (empty where there is no dpkg)."""
    owner = {}
    for listing in sorted(glob.glob("/var/lib/dpkg/info/*.list")):
        package = os.path.basename(listing)[: -len(".list")].split(":")[0]
        with open(listing, encoding="utf-8", errors="replace") as f:
            for line in f:
                owner.setdefault(line.rstrip("\n"), package)
    return owner


def package_of(owner, path):
    return owner.get(path) or owner.get(os.path.realpath(path)) or "?"


GLYPHS = {
    "em": "\u2014", "en": "\u2013", "hy": "-", "mi": "-", "aq": "'", "dq": '"',
    "lq": "\u201c", "rq": "\u201d", "oq": "\u2018", "cq": "\u2019", "bu": "\u2022",
    "co": "\u00a9", "rg": "\u00ae", "tm": "\u2122", "de": "\u00b0", "ti": "~",
    "ha": "^", "rs": "\\", "ba": "|", "or": "|", "pl": "+", "eq": "=", "mu": "\u00d7",
    "Fo": "\u00ab", "Fc": "\u00bb", "fo": "\u2039", "fc": "\u203a", "at": "@",
    "sh": "#", "Do": "$", "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "<",
    "ra": ">", "sl": "/", "ul": "_", "ga": "`", "ss": "\u00df",
}
# Requests and macros whose arguments are no text (the others keep theirs).
NO_TEXT = set("""
de de1 ds ds1 as nr rr rm rn am ig if ie el ft fam ps vs in ti sp br ne na nh ad fi nf ll
so PD RS RE TS TE EX EE hy hw tr cs ss lf pl bp ta tm ec eo cc c2 ch wh it ev mk rt
di da pc lt fp fc mso do nop color defcolor cu ul UC DT ns rs hc hla hlm ne
Dd Os Bd Ed Bl El Pp Lp Bk Ek Sm
""".split())
# mdoc macros called on the line of another: their names are no text.
MDOC_CALLED = set("""
Ad An Ar Cd Cm Dv Er Ev Fa Fl Fn Ft Ic Li Nm Op Pa Va Xr Oo Oc Ns No Pq Po Pc Dq Do Dc
Sq So Sc Qq Qo Qc Bq Bo Bc Brq Bro Brc Aq Ao Ac Em Sy Ql Sx Tn Ux Bx Nx Fx Ox Bsx At St
Xo Xc Pf Ms Lk Mt Fo Fc Eo Ec It Ta
""".split())
ESCAPE = re.compile(
    r"""\\(?:
        f(?:\[[^\]]*\]|\(..|.)          # font
      | s(?:[+-]?\d+|\[[^\]]*\]|\(..)    # size
      | \*(?:\[[^\]]*\]|\(..|.)         # string
      | n(?:[+-]?)(?:\[[^\]]*\]|\(..|.) # register
      | [hvwlLoXDSxbNRAYkZz]'[^']*'       # quoted arguments
      | [hvwlLoXDSxbNRAYkZz]\[[^\]]*\]
      | \((..)                          # glyph \(xx
      | \[([^\]]*)\]                    # glyph \[name]
      | [-e ~0|^&%:)c!acdprtu{}'`.,/\\]  # one-character escapes
    )""", re.X)


def _escape(m):
    text = m.group(0)
    name = m.group(1) or m.group(2)
    if name is not None:
        return GLYPHS.get(name, " ")
    c = text[1]
    if c == "-":
        return "-"
    if c == "e":
        return "\\"
    if c in " ~0":
        return " "
    if c == "'":
        return "\u00b4"
    if c == "`":
        return "`"
    if c in ".\\":
        return c
    return ""


def strip_troff(source):
    """Crude troff to text: what a reader of the page mostly sees, in order."""
    out, skip_until = [], None
    for line in source.splitlines():
        if skip_until is not None:
            if line.strip().startswith(skip_until):
                skip_until = None
            continue
        line = line.split('\\"', 1)[0]  # comment
        if line[:1] in (".", "'"):
            parts = line[1:].strip().split(None, 1)
            if not parts:
                continue
            name = parts[0]
            if name in ("de", "de1", "am", "ig"):
                skip_until = ".."
                continue
            if name in NO_TEXT:
                continue
            line = parts[1] if len(parts) > 1 else ""
            line = line.replace('"', " ")
            if name in MDOC_CALLED or name in ("Nd", "Sh", "Ss", "Dt"):
                line = " ".join(w for w in line.split() if w not in MDOC_CALLED)
        line = ESCAPE.sub(_escape, line)
        if line.strip():
            out.append(line)
    return "\n".join(out) + "\n" if out else ""


def read_text(kind, path, troff):
    with open(path, "rb") as f:
        data = f.read()
    if path.endswith(".gz"):
        data = gzip.decompress(data)
    text = data.decode("utf-8", errors="replace")
    if kind == "man" and troff == "strip":
        text = strip_troff(text)
    return text


# ----------------------------------------------------------------- words


def _class(chars):
    """A regex character class body for a set of code points, as ranges."""
    points, out, i = sorted(chars), [], 0
    while i < len(points):
        j = i
        while j + 1 < len(points) and points[j + 1] == points[j] + 1:
            j += 1
        out.append(re.escape(chr(points[i])) + ("-" + re.escape(chr(points[j])) if j > i else ""))
        i = j + 1
    return "".join(out)


# The words of UAX #29 on normalised text (what unicode_words() yields),
# holding a letter or a digit: bench/peers/eval_peers.py's regex (the ruler
# of docs/QUALITY.md) completed. Han, hiragana and the scripts written
# without spaces (Thai, Lao, Myanmar, Khmer: Word_Break Other) are one
# character each; other runs of letters, digits and _ are joined, across
# MidLetter and MidNumLet (: · . ' ...) between letters and MidNum and
# MidNumLet (, ; . ⁄ ...) between digits (WB6-7, WB11-12, as they stand
# after NFKC); marks, format characters and joiners (Extend, Format, ZWJ)
# stay in the word they follow (WB4), so a Malayalam or Devanagari word is
# one word, not cut at its vowel signs. Not followed: Katakana against
# letters (WB13), Hebrew quotes (WB7a-c), regional indicators, emoji, and
# an Alphabetic mark standing after a space or a tab (as in the charset
# tables of iso-8859-6(7) and iso-8859-7(7)), which UAX #29 makes a word.
ALONE = ("\u3040-\u309f\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003ffff"
         "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff")
IGNORED = _class(c for c in range(0x80, 0x110000)
                 if unicodedata.category(chr(c)) in ("Mn", "Me", "Mc", "Cf") and c != 0x200B)
MID_LETTER = ":\u00b7\u055f\u05f4\u2027" + ".'\u2018"
MID_NUM = ",;\u0589\u060c\u060d\u066c\u07f8\u2044" + ".'\u2018"
_L, _I = f"[^\\W\\d_{ALONE}]", f"[{IGNORED}]"
WORD = re.compile(
    f"[{ALONE}]{_I}*"
    f"|(?>(?:{_L}+{_I}*(?:[{re.escape(MID_LETTER)}]{_I}*(?={_L}))?"
    f"|\\d+{_I}*(?:[{re.escape(MID_NUM)}]{_I}*(?=\\d))?"
    f"|_+{_I}*)+)")
HAS_ALNUM = re.compile(r"[^\W_]")
# Text the fingerprint's features cut otherwise than into these words (Han,
# kana: bigrams), left out of the second ruler.
NOT_WORD_FEATURES = re.compile(f"[{ALONE}\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")


UNSPACED = re.compile(
    "[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
    "\U00020000-\U000323af\uff66-\uff9f\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]")


def simplified_table():
    """OpenCC's traditional-to-simplified characters (crates/core/data), as
    crates/core normalize reads them: the first form, followed to its end."""
    path = os.path.join(ROOT, "crates", "core", "data", "opencc", "TSCharacters.txt")
    pairs = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or "\t" not in line:
                continue
            frm, to = line.rstrip("\n").split("\t", 1)
            to = to.split(" ")[0]
            if len(frm) == 1 and to:
                pairs[frm] = to[0]
    table = {}
    for f, t in pairs.items():
        seen = {f}
        while t in pairs and t not in seen:
            seen.add(t)
            t = pairs[t]
        if t != f:
            table[ord(f)] = t
    return table


SIMPLIFIED = simplified_table()


def normalize(text):
    if text.isascii():
        return text.lower()
    text = unicodedata.normalize("NFKC", text).lower().replace("\u2019", "'")
    return text.translate(SIMPLIFIED)


def is_char_cut(text):
    """crates/dedup/src/shingles.rs Shingling::of: characters when at least
    half of the letters and digits are of an unspaced script."""
    if text.isascii():
        return False
    letters = sum(1 for c in text if c.isalnum())
    unspaced = sum(1 for c in UNSPACED.findall(text) if c.isalnum())
    return letters > 0 and 2 * unspaced >= letters


def units(text):
    """(words or characters, whether cut in characters)."""
    if is_char_cut(text):
        return [c for c in normalize(text) if c.isalnum()], True
    return [w for w in WORD.findall(normalize(text))
            if (w.strip("_") if w.isascii() else HAS_ALNUM.search(w))], False


def length_in_words(text):
    """crates/dedup/src/short.rs length_in_words (the short rule's length)."""
    spaces = sum(1 for c in text if c.isspace())
    if spaces * 20 >= len(text):
        return len(text.split())
    return (len(text) - spaces) // 2


# ------------------------------------------------------------- the truth


class Shingler:
    """Shingles as small ints: each unit and each distinct shingle (a tuple of
    unit numbers, tagged for character shingles) numbered in order of first
    appearance, so the numbers are the same for one corpus on every run."""

    def __init__(self):
        self.unit_ids = {}
        self.shingle_ids = {}
        self.df = []

    def shingles(self, us, chars):
        ids = self.unit_ids
        u = [ids.setdefault(x, len(ids)) for x in us]
        n = CHAR_SHINGLE if chars else WORD_SHINGLE
        if chars:
            u = [-1 - x for x in u]  # character shingles apart from word ones
        if len(u) <= n:
            windows = {tuple(u)} if u else set()
        else:
            windows = set(zip(*(u[i:len(u) - n + 1 + i] for i in range(n))))
        sids, df = self.shingle_ids, self.df
        out = []
        for w in windows:
            sid = sids.get(w)
            if sid is None:
                sid = sids[w] = len(df)
                df.append(0)
            df[sid] += 1
            out.append(sid)
        return out


def jaccard(common, a, b):
    union = a + b - common
    return common / union if union else 1.0


def all_pairs(sets, threshold, under=0.5):
    """Every pair (i, j), i < j, of the sorted-rank shingle lists with Jaccard
    >= threshold, with its Jaccard; the candidates verified; and the
    candidates with Jaccard in [under, threshold)."""
    order = sorted(range(len(sets)), key=lambda i: (len(sets[i]), i))
    index = collections.defaultdict(list)  # rank -> [doc], docs by size
    pairs, verified, near = {}, 0, []
    loose = threshold - 1e-9
    for x in order:
        xs = sets[x]
        n = len(xs)
        if n == 0:
            continue
        need = max(1, math.ceil(loose * n))
        prefix = n - need + 1
        low = loose * n
        candidates = set()
        for r in xs[:prefix]:
            for y in index.get(r, ()):
                if len(sets[y]) >= low:
                    candidates.add(y)
            index[r].append(x)
        if not candidates:
            continue
        xset = set(xs)
        for y in candidates:
            verified += 1
            c = len(xset.intersection(sets[y]))
            j = jaccard(c, n, len(sets[y]))
            if j >= threshold:
                pairs[(min(x, y), max(x, y))] = j
            elif j >= under:
                near.append((min(x, y), max(x, y)))
    return pairs, verified, sorted(near)


# ---------------------------------------------------------------- neardup


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
