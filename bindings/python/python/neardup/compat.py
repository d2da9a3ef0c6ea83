"""A drop-in for PyPI ``simhash`` 2.x: change the import, keep the code.

``Simhash`` gives the same ``value`` bit for bit (its text fingerprint:
lowercased, ``[\\w\\u4e00-\\u9fcc]`` characters, 4-character windows, MD5;
its feature fingerprint: MD5 of each feature, weighted votes), and
``SimhashIndex`` the same answers, from neardup's engine:

>>> from neardup.compat import Simhash, SimhashIndex
>>> '%x' % Simhash('How are you? I am fine. Thanks.').value
'2f73898a203ee80b'
>>> Simhash('aa').distance(Simhash('bb'))
31
>>> index = SimhashIndex([('1', Simhash('How are you? I am fine. Thanks.'))], k=3)
>>> index.get_near_dups(Simhash('How are you? I am fine. Thanks!'))
['1']

A custom ``reg`` is honoured (the text is cut in Python); a custom
``hashfunc`` is honoured too, in Python, at Python's speed. What differs:
``f`` is at most 128 (MD5's bits; the package fails past it too), and
``SimhashIndex`` has no ``bucket`` dict (``bucket_size()`` is kept).
``Simhash`` is a class of the compiled module (construction costs a
fraction of a Python object's); it pickles, takes attributes and
subclasses like the package's.
"""

from __future__ import annotations

import hashlib
import logging
import numbers
import re
from itertools import groupby

from neardup import _neardup

__all__ = ["Simhash", "SimhashIndex"]

_DEFAULT_REG = r"[\w\u4e00-\u9fcc]+"
# One logger for all, as logging.getLogger("simhash") gives each time.
_LOG = logging.getLogger("simhash")


def _md5(data: bytes) -> bytes:
    """The package's default feature hash."""
    return hashlib.md5(data).digest()


Simhash = _neardup.Simhash
SimhashIndex = _neardup.SimhashIndex


def _slide(content, width=4):
    return [content[i : i + width] for i in range(max(len(content) - width + 1, 1))]


def _custom_value(value, f, reg, hashfunc):
    """``Simhash(value, f, reg, hashfunc).value`` for a custom ``reg`` (a
    text cut by it) or ``hashfunc`` (features hashed by it, in Python)."""
    if isinstance(value, str):
        windows = sorted(_slide("".join(re.findall(reg, value.lower()))))
        value = {w: sum(1 for _ in g) for w, g in groupby(windows)}
    if hashfunc is _md5:
        return _neardup.simhash_features(value, f)
    if isinstance(value, dict):
        value = value.items()
    mask = (1 << f) - 1
    f_bytes = f // 8
    sums = [0] * f
    total = 0
    weight = 1
    for feature in value:
        if not isinstance(feature, str):
            feature, weight = feature
        total += weight
        h = hashfunc(feature.encode("utf-8"))
        h = h & mask if isinstance(h, numbers.Integral) else int.from_bytes(h[-f_bytes:], "big")
        for j in range(f):
            if h >> j & 1:
                sums[j] += weight
    return sum(1 << j for j in range(f) if sums[j] > total / 2)
