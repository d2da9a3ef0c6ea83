#!/usr/bin/env python3
"""Write golden fingerprints from PyPI simhash 2.1.2 for neardup's compat mode.

Run with the benchmark venv (bench/peers/setup.sh):

    bench/.venv/bin/python scripts/gen_python_simhash_golden.py [--out-dir DIR]

Writes, by default into crates/core/tests/data/:

  python_simhash_golden.jsonl
      {"kind": ..., "text": ..., "fingerprint": "<16 hex digits>"}
      fingerprint = simhash.Simhash(text).value
  python_simhash_features_golden.jsonl
      {"features": [[feature, weight], ...], "fingerprint": "<16 hex digits>"}
      fingerprint = simhash.Simhash([(feature, weight), ...]).value

All texts are generated here from a fixed seed (word lists and phrases written
for this script, random code points, and pieces of the licence texts in
/usr/share/common-licenses), so the output is reproducible and committable.

What simhash 2.1.2 does with a text, which the Rust side must match:
  1. str.lower() on the whole text (full mapping: "İ" -> "i" + U+0307,
     final sigma by context);
  2. keep only re's \\w characters, which in CPython 3.11 (Unicode 14.0) are
     exactly general categories L* and N* plus "_" -- so combining marks (Mn,
     Mc), ZWJ and connector punctuation other than "_" are dropped;
  3. character (code point) 4-grams, or the whole string if it has fewer
     than 4 code points (even the empty string), counted;
  4. for each distinct gram: md5(utf-8), last 8 bytes as a big-endian u64;
     a bit is set where the weighted count of grams having it exceeds half
     the total weight.
Every line written is also checked against spec_fingerprint(), a plain
reimplementation of those steps, so a mismatch in the description is caught
here rather than in Rust.
"""

import argparse
import collections
import hashlib
import json
import os
import random
import sys
import unicodedata

import simhash

SEED = 20250601
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT = os.path.join(REPO, "crates", "core", "tests", "data")
LICENSE_DIR = "/usr/share/common-licenses"

# ---------------------------------------------------------------------------
# Word lists and phrases (written for this script)

ENGLISH = """
the a an of to and in is it that for on with as was at by be this from or
are have not but had they you which one all were she he we there been can
their has more when will would who what said each about if up out many then
them these so some her him into time two way could people my than first water
been call who oil now find long down day did get come made may part over new
sound take only little work know place year live me back give most very after
thing our just name good sentence man think say great where help through much
before line right too mean old any same tell boy follow came want show also
around form three small set put end does another well large must big even
such because turn here why ask went men read need land different home us move
try kind hand picture again change off play spell air away animal house point
page letter mother answer found study still learn should world high every near
add food between own below country plant last school father keep tree never
start city earth eye light thought head under story saw left few while along
might close something seem next hard open example begin life always those both
paper together got group often run important until children side feet car
mile night walk white sea began grow took river four carry state once book
hear stop without second later miss idea enough eat face watch far really
almost let above girl sometimes mountain cut young talk soon list song being
leave family duplicate document index shard fingerprint hamming distance
""".split()

# Common Han characters, roughly by frequency.
HAN = (
    "的一是不了人我在有他这为之大来以个中上们到说国和地也子时道出而要于就下得可你年生"
    "自会那后能对着事其里所去行过家十用发天如然作方成者多日都三小军二无同么经法当起与"
    "好看学进种将还分此心前面又定见只主没公从知动开手全文本理明实长问高意新力已工已使"
    "点西北东南水电气车马山川花草木火土金石风雨雪云月星春夏秋冬早晚今昨明后快慢书字"
    "语言话读写听走跑吃喝睡梦爱想思念情感喜怒哀乐父母兄弟姐妹朋友老师同学城市乡村路"
)

CHINESE_PHRASES = [
    "你好世界", "今天天气很好", "我们一起去公园散步", "这本书非常有意思",
    "人民日报", "近似重复检测", "中华人民共和国", "北京大学", "上海浦东新区",
    "春眠不觉晓", "处处闻啼鸟", "学而时习之", "不亦说乎", "数据结构与算法",
    "机器学习", "自然语言处理", "指纹", "汉明距离", "新闻报道", "经济增长",
    "记者从有关部门获悉", "会议在北京举行", "欢迎光临", "谢谢你的帮助",
]

JAPANESE = [
    "こんにちは", "ありがとうございます", "カタカナ", "ひらがな", "日本語の文章",
    "東京都", "すし", "ラーメン", "コンピューター", "ｶﾀｶﾅ", "ｶﾞｷﾞｸﾞ", "々",
    "か\u3099", "は\u309a", "がぎぐげご", "ぱぴぷぺぽ", "ヴァイオリン", "ー",
    "私は学生です。", "今日は良い天気ですね！",
]

KOREAN = [
    "안녕하세요", "대한민국", "감사합니다", "서울특별시", "한국어 문장입니다.",
    "\u1100\u1161\u11a8", "ㄱㄴㄷㄹ", "ㅏㅑㅓㅕ", "컴퓨터", "사랑해요",
]

THAI = ["สวัสดี", "ภาษาไทย", "ขอบคุณครับ", "ประเทศไทย", "กรุงเทพมหานคร", "๑๒๓"]

ARABIC = [
    "مرحبا", "اللغة العربية", "شكرا جزيلا", "كِتَابٌ", "١٢٣٤٥", "۱۲۳", "عـــربي",
    "\u200fمرحبا\u200f", "السلام عليكم",
]

INDIC = ["नमस्ते", "हिन्दी", "भारत", "தமிழ்", "বাংলা", "ગુજરાતી", "١٢", "०१२३"]

GREEK = [
    "ΟΔΥΣΣΕΥΣ", "ΣΟΦΟΣ", "Σ", "ΑΣ", "ΑΣ Α", "ΑΣ.Α", "ΑΣ'Α", "ΑΣ_Α", "ΑΣ1",
    "σοφός", "Ελληνικά", "ΚΑΛΗΜΕΡΑ ΚΟΣΜΕ", "Αθήνα", "ΆΈΉΊΌΎΏ", "ΐΰ", "ϐϑϕϖ",
]

CYRILLIC = [
    "Привет мир", "ЗДРАВСТВУЙТЕ", "Ёлка", "ёжик", "Україна", "Їжак", "Ґанок",
    "Србија", "Љубав", "Њујорк", "Џеп", "Беларусь", "Ўзбек",
]

LATIN = [
    "café", "naïve", "résumé", "Straße", "STRASSE", "ẞ", "İstanbul", "ISTANBUL",
    "ıi", "İi", "Ça va", "Łódź", "ÅNGSTRÖM", "Ærøskøbing", "Œuvre", "ǅemal",
    "ǄEMAL", "ǆ", "ﬁnance", "ﬀ", "Kelvin", "\u212a", "\u2126", "Ĳssel",
    "Ñandú", "garçon", "São Paulo", "Dvořák", "Smørrebrød", "Þór", "ðæ",
    "ŉ", "ǰ", "ẖ", "ª", "º", "ʰ", "Ⅻ", "ⅻ",
]

EMOJI = [
    "😀", "👍", "👍🏽", "❤️", "👨\u200d👩\u200d👧\u200d👦", "🏳️\u200d🌈", "🇯🇵", "🇺🇸🇬🇧",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f", "1️⃣", "#️⃣",
    "🧑\u200d💻", "👩🏾\u200d🚀", "🐱", "🚀✨", "☕", "©", "™",
]

COMBINING = [
    "e\u0301", "cafe\u0301", "n\u0303", "a\u0308", "o\u0302\u0323", "z\u0335",
    "Z\u0351\u036b\u0343\u036a\u0302\u036b\u033d\u034f\u0334\u0319\u0324\u031e",
    "\u0301", "\u0301\u0301\u0301\u0301", "i\u0307", "I\u0307", "\u20dd", "x\u20e3",
]

FULLWIDTH = [
    "ＡＢＣ", "ａｂｃ", "Ｈｅｌｌｏ　Ｗｏｒｌｄ", "１２３４５", "＿＿", "ＡＢＣ＿ＤＥＦ",
    "！＃＄％", "ｱｲｳｴｵ", "ＮＥＡＲＤＵＰ", "ｗｗｗ．ｅｘａｍｐｌｅ．ｃｏｍ",
]

CJK_PUNCT = "。、「」『』【】《》〈〉・～！？（）：；…—〃〔〕［］｛｝〖〗〘〙〝〞"

# Characters where CPython's \w and other regex engines' \w disagree:
# No numbers, Nl numbers, Lm/Lo odds, connector punctuation other than "_",
# joiners, format characters and spacing marks.
WORD_EDGE = [
    "²", "³", "½", "¾", "①", "⑳", "Ⅻ", "ⅻ", "〇", "‿", "⁀", "＿", "﹏", "\u200d",
    "\u200c", "\u00ad", "\u200b", "\ufeff", "\u2060", "ःा", "ि", "\u0e31", "ـ",
    "𝐀𝐁𝐂", "𝟘𝟙𝟚", "ℌℑ", "ℕℤℚ", "\U00010400", "\U00010428", "𐐀𐐁", "Ꭰ", "ꭰ",
    "Ა", "ა", "\U0001e900", "\U0001e922",
]

WHITESPACE = [" ", "\t", "\n", "\r", "\r\n", "\x0b", "\x0c", "\u00a0", "\u1680",
              "\u2000", "\u2003", "\u2009", "\u200a", "\u2028", "\u2029", "\u202f",
              "\u205f", "\u3000", "\x85", "\x1c", "\x1f"]

ASCII_PUNCT = "!\"#$%&'()*+,-./:;<=>?@[\\]^`{|}~"
OTHER_PUNCT = "¡¿«»‹›“”‘’„‚–—…•·§¶†‡′″‰※¦¨¯´¸"

# ---------------------------------------------------------------------------
# Reference implementation of the spec, used only to check simhash's output.


def spec_weighted(features):
    """Fingerprint of (feature, weight) pairs, as described in the docstring."""
    sums = [0] * 64
    total = 0
    for feature, weight in features:
        h = int.from_bytes(hashlib.md5(feature.encode("utf-8")).digest()[-8:], "big")
        total += weight
        for bit in range(64):
            if h >> bit & 1:
                sums[bit] += weight
    return sum(1 << bit for bit in range(64) if 2 * sums[bit] > total)


def spec_fingerprint(text):
    kept = "".join(
        c for c in text.lower() if c == "_" or unicodedata.category(c)[0] in "LN"
    )
    grams = [kept[i:i + 4] for i in range(max(len(kept) - 3, 1))]
    return spec_weighted(collections.Counter(grams).items())


# ---------------------------------------------------------------------------
# Text generators


class Gen:
    """Collects (kind, text) cases; the first occurrence of a text wins."""

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.cases = {}

    def add(self, kind, text):
        self.cases.setdefault(text, kind)

    # Helpers -------------------------------------------------------------

    def pick(self, seq, lo, hi, sep=""):
        return sep.join(self.rng.choice(seq) for _ in range(self.rng.randint(lo, hi)))

    def english_sentence(self, lo=3, hi=18):
        words = [self.rng.choice(ENGLISH) for _ in range(self.rng.randint(lo, hi))]
        words[0] = words[0].capitalize()
        for i in range(1, len(words) - 1):
            if self.rng.random() < 0.1:
                words[i] += self.rng.choice([",", ";", " -", ":"])
        return " ".join(words) + self.rng.choice([".", ".", ".", "!", "?", "...", ""])

    def han(self, lo, hi):
        return self.pick(HAN, lo, hi)

    def chinese_sentence(self):
        parts = [self.rng.choice(CHINESE_PHRASES) if self.rng.random() < 0.4
                 else self.han(2, 8) for _ in range(self.rng.randint(1, 5))]
        return self.rng.choice(["，", "、", ""]).join(parts) + self.rng.choice("。！？…")

    def random_char(self):
        """A random assigned, non-private, non-surrogate code point."""
        while True:
            if self.rng.random() < 0.7:
                cp = self.rng.randint(0x20, 0xFFFF)
            else:
                cp = self.rng.randint(0x10000, 0x3FFFF)
            if unicodedata.category(chr(cp)) not in ("Cn", "Co", "Cs"):
                return chr(cp)

    # Categories ----------------------------------------------------------

    def basics(self):
        self.add("empty", "")
        for w in WHITESPACE:
            self.add("whitespace", w)
        for _ in range(30):
            self.add("whitespace", self.pick(WHITESPACE, 2, 12))
        for p in ASCII_PUNCT + OTHER_PUNCT:
            self.add("punctuation", p)
        for _ in range(40):
            self.add("punctuation", self.pick(ASCII_PUNCT + OTHER_PUNCT + CJK_PUNCT + " ", 2, 30))
        for c in "\x00\x01\x07\x7f\x80\x9f":
            self.add("control", c)
            self.add("control", "ab" + c + "cd")

    def short(self):
        pool = ("abcxyzABCXYZ0123456789_éßİΣσςжЖ中国人日本語ひらカナ한국ไทยعربي😀"
                + "\u0301\u200d＿ＡＢ!?. \t\n")
        for c in pool:
            self.add("short", c)
        for _ in range(220):
            self.add("short", self.pick(pool, 2, 3))
        # Around the 4-gram boundary: 3, 4 and 5 kept characters, padded with
        # characters that the \w filter removes.
        for _ in range(60):
            core = self.pick("abcdefgh中文字符éΣ_1", 3, 5)
            noise = self.pick(" .,-\u0301😀", 0, 3)
            cut = self.rng.randint(0, len(core))
            self.add("boundary", core[:cut] + noise + core[cut:])

    def scripts(self):
        for _ in range(170):
            self.add("english", self.english_sentence())
        for _ in range(70):
            s = self.english_sentence()
            mode = self.rng.randrange(4)
            if mode == 0:
                s = s.upper()
            elif mode == 1:
                s = s.lower()
            elif mode == 2:
                s = s.swapcase()
            else:
                s = "".join(c.upper() if self.rng.random() < 0.5 else c for c in s)
            self.add("case_mix", s)
        for _ in range(60):
            parts = [self.rng.choice(ENGLISH) for _ in range(self.rng.randint(1, 4))]
            numbers = [str(self.rng.randint(0, 10 ** self.rng.randint(1, 12))) for _ in range(3)]
            forms = [
                "_".join(parts), "__" + "_".join(parts) + "__", "_".join(parts + numbers[:1]),
                " ".join(numbers), ".".join(numbers), "-".join(numbers),
                f"{parts[0]}{numbers[0]}_{numbers[1]}", "_" * self.rng.randint(1, 9),
                f"{numbers[0]},{numbers[1][:3]}.{numbers[2][:2]}",
            ]
            self.add("digits_underscore", self.rng.choice(forms))

        for kind, items in [("latin_accented", LATIN), ("greek", GREEK),
                            ("cyrillic", CYRILLIC), ("japanese", JAPANESE),
                            ("korean", KOREAN), ("thai", THAI), ("arabic", ARABIC),
                            ("indic", INDIC), ("emoji", EMOJI), ("combining", COMBINING),
                            ("fullwidth", FULLWIDTH), ("word_edge", WORD_EDGE)]:
            for item in items:
                self.add(kind, item)
                self.add(kind, item.upper())
                self.add(kind, item.lower())
            for _ in range(max(15, len(items))):
                self.add(kind, self.pick(items, 2, 6, sep=self.rng.choice(["", " ", ", "])))
        # Final sigma depends on the neighbours of the sigma in the *whole*
        # lowercased text, before the \w filter removes anything.
        for _ in range(25):
            word = self.pick("ΑΒΓΔΕΖΗΘΙΚΛΜΝΞΟΠΡΤΥΦΧΨΩ", 1, 5)
            after = self.rng.choice(["", " ", ".", "'", "-", "_", "1", "\u0301", "Α", "a", "😀"])
            self.add("final_sigma", word + "Σ" + after + self.pick("ΑΒΓ ", 0, 4))
        for c in CJK_PUNCT:
            self.add("cjk_punct", c)
        for _ in range(30):
            self.add("cjk_punct", "".join(self.rng.choice(CJK_PUNCT) + self.rng.choice(CHINESE_PHRASES)
                                          for _ in range(self.rng.randint(1, 4))))
        for phrase in CHINESE_PHRASES:
            self.add("chinese", phrase)
        for _ in range(150):
            self.add("chinese", self.rng.choice([self.chinese_sentence, lambda: self.han(1, 40)])())
        # Han outside U+4E00..U+9FCC: extension A and B, compatibility ideographs.
        for text in ["㐀㐁㐂", "䶵", "鿐鿑", "𠀀𠀁𠀂𠀃", "𪚥", "豈更車", "中𠀀国", "一丁丂七丄"]:
            self.add("chinese", text)

    def layout(self):
        for _ in range(40):
            pieces = [self.english_sentence(1, 6) if self.rng.random() < 0.6 else self.chinese_sentence()
                      for _ in range(self.rng.randint(2, 6))]
            seps = ["\t", "\n", "\r\n", "\n\n", "\t\t", " \n ", "\u3000"]
            self.add("tabs_newlines", "".join(p + self.rng.choice(seps) for p in pieces))
        for _ in range(70):
            sources = [lambda: self.english_sentence(1, 5), self.chinese_sentence,
                       *(lambda items=items: self.rng.choice(items)
                         for items in (JAPANESE, KOREAN, GREEK, CYRILLIC, LATIN, ARABIC,
                                       EMOJI, COMBINING, FULLWIDTH, THAI, WORD_EDGE))]
            parts = [self.rng.choice(sources)() for _ in range(self.rng.randint(2, 7))]
            self.add("mixed_script", self.rng.choice(["", " ", "_", "-"]).join(parts))
        for _ in range(100):
            self.add("random_unicode", "".join(self.random_char()
                                               for _ in range(self.rng.randint(1, 24))))

    def long(self):
        for _ in range(6):
            self.add("long", " ".join(self.english_sentence() for _ in range(self.rng.randint(30, 80))))
        for _ in range(6):
            self.add("long", "".join(self.chinese_sentence() for _ in range(self.rng.randint(80, 250))))
        for _ in range(4):
            self.add("long", "\n".join(
                self.english_sentence() if self.rng.random() < 0.5 else self.chinese_sentence()
                for _ in range(self.rng.randint(50, 120))))
        # Heavily repeated grams: counts above simhash's large_weight_cutoff (50).
        for unit in ["a", "ab", "abc", "abcd", "abcde", "哈", "Σ ", "ab😀"]:
            for n in (13, 60, 257, 1500):
                self.add("repetitive", unit * n)

    def licenses(self):
        paths = sorted({os.path.realpath(os.path.join(LICENSE_DIR, name))
                        for name in os.listdir(LICENSE_DIR)})
        texts = []
        for path in paths:
            with open(path, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
        if not texts:
            sys.exit(f"no licence texts in {LICENSE_DIR}")
        for _ in range(260):
            text = self.rng.choice(texts)
            size = self.rng.choice([8, 40, 200, 1000, 4000])
            size = self.rng.randint(1, size)
            start = self.rng.randrange(max(1, len(text) - size))
            self.add("license", text[start:start + size])


def weighted_feature_sets(rng):
    """~100 lists of (feature, weight) with weights 1..=40."""
    vocabulary = ENGLISH + CHINESE_PHRASES + list(HAN[:60]) + ["", "_", "é", "Σ", "😀"]
    sets = [[("a", 1)], [("", 1)], [("", 40)], [("hello", 40)], [("a", 1), ("b", 1)],
            [("a", 3), ("b", 3), ("c", 3)], [("中文", 7), ("中文", 7)]]
    while len(sets) < 100:
        features = [(rng.choice(vocabulary), rng.randint(1, 40))
                    for _ in range(rng.randint(1, 60))]
        if rng.random() < 0.2:  # repeated features (simhash adds them up)
            features += rng.sample(features, k=min(len(features), 3))
        sets.append(features)
    return sets


# ---------------------------------------------------------------------------
# Output


def json_line(obj):
    line = json.dumps(obj, ensure_ascii=False)
    # Escape the characters that some line readers treat as line breaks.
    for c in ("\x85", "\u2028", "\u2029"):
        line = line.replace(c, "\\u%04x" % ord(c))
    return line + "\n"


def check_assigned(text):
    for c in text:
        if unicodedata.category(c) in ("Cn", "Cs", "Co"):
            sys.exit(f"unassigned/surrogate/private code point U+{ord(c):04X} in {text!r}")


def main():
    parser = argparse.ArgumentParser(description="Write simhash 2.1.2 golden files.")
    parser.add_argument("--out-dir", default=DEFAULT_OUT)
    args = parser.parse_args()

    gen = Gen(SEED)
    gen.basics()
    gen.short()
    gen.scripts()
    gen.layout()
    gen.long()
    gen.licenses()

    os.makedirs(args.out_dir, exist_ok=True)
    text_path = os.path.join(args.out_dir, "python_simhash_golden.jsonl")
    kinds = collections.Counter()
    with open(text_path, "w", encoding="utf-8", newline="\n") as out:
        for text, kind in gen.cases.items():
            check_assigned(text)
            value = simhash.Simhash(text).value
            if value != spec_fingerprint(text):
                sys.exit(f"spec mismatch for {kind} {text!r}")
            out.write(json_line({"kind": kind, "text": text, "fingerprint": f"{value:016x}"}))
            kinds[kind] += 1

    feature_path = os.path.join(args.out_dir, "python_simhash_features_golden.jsonl")
    with open(feature_path, "w", encoding="utf-8", newline="\n") as out:
        sets = weighted_feature_sets(random.Random(SEED + 1))
        for features in sets:
            value = simhash.Simhash(features).value
            if value != spec_weighted(features):
                sys.exit(f"spec mismatch for features {features!r}")
            out.write(json_line({"features": [list(f) for f in features],
                                 "fingerprint": f"{value:016x}"}))

    print(f"{text_path}: {sum(kinds.values())} texts "
          f"(Python {sys.version.split()[0]}, Unicode {unicodedata.unidata_version})")
    print("  " + ", ".join(f"{k} {n}" for k, n in sorted(kinds.items())))
    print(f"{feature_path}: {len(sets)} feature sets")


if __name__ == "__main__":
    main()
