"""The ruler of bench/missed_pairs.py, independent of neardup's code: the
words of a text (UAX #29 on NFKC, lowercased text, traditional Han folded
onto simplified), its word 3-shingles or character 4-grams, and every pair
of documents at Jaccard >= T by an exact all-pairs prefix-filter join.
Standard library only."""

import collections
import math
import os
import re
import unicodedata

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WORD_SHINGLE, CHAR_SHINGLE = 3, 4


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


# The truth.


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
