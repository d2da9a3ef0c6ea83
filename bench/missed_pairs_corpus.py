"""The corpus of bench/missed_pairs.py: what the machine has (Debian
copyright files, man pages, common licences), each real file once, the
Debian package that installed it, and man pages' troff markup stripped
crudely. Standard library only."""

import glob
import gzip
import os
import re

CORPORA = ("copyright", "man", "licenses")


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
