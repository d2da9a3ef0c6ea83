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

Its quirks are kept: a negative int weight of at most
``Simhash.large_weight_cutoff`` adds nothing (but counts in the total),
float weights are summed in the package's order (batches of
``Simhash.batch_size``), a lone surrogate in a text is dropped, and its
exception types are raised where it raises. A custom ``reg`` is honoured
(the text is cut in Python); a custom ``hashfunc`` is honoured too, in
Python, at Python's speed, as are features the Rust code does not read
(``_features_value``). What differs: ``f`` is at most 128 (MD5's bits),
and ``SimhashIndex`` has no ``bucket`` dict (``bucket_size()`` is kept).
``Simhash`` and ``SimhashIndex`` are classes of the compiled module
(construction costs a fraction of a Python object's) whose ``__init__``
builds them; they pickle with every attribute, take attributes and
subclass like the package's.
"""

from __future__ import annotations

import hashlib
import logging
import re
from itertools import groupby
from typing import Any, List, Optional

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


def _slide(content: Any, width: int = 4) -> List[Any]:
    """The package's ``Simhash._slide``: ``width``-character windows."""
    return [content[i : i + width] for i in range(max(len(content) - width + 1, 1))]


def _tokenize(content: Any, reg: Any) -> List[Any]:
    """The package's ``Simhash._tokenize``: lowercased, ``reg``'s matches
    joined, 4-character windows."""
    content = content.lower()
    content = "".join(re.findall(reg, content))
    return _slide(content)


def _text_value(content: Any, f: int, owner: Any) -> int:
    """``owner.build_by_text(content)``'s value for a custom ``reg`` or
    ``hashfunc`` (or a ``content`` that is not a str, which fails as in
    the package): each window weighted by its count."""
    windows = sorted(_tokenize(content, owner.reg))
    return _custom_value({w: sum(1 for _ in g) for w, g in groupby(windows)}, f, owner)


def _custom_value(features: Any, f: int, owner: Any) -> int:
    """``owner.build_by_features(features)``'s value: with the default
    ``hashfunc`` in Rust, with another in Python."""
    if owner.hashfunc is _md5:
        value: int = _neardup.simhash_features(features, f, owner)
        return value
    return _features_value(
        features,
        f,
        owner.hashfunc,
        owner.hashfunc_returns_int,
        owner.large_weight_cutoff,
        owner.batch_size,
    )


def _features_value(
    features: Any, f: int, hashfunc: Any, returns_int: bool, cutoff: Any, batch_size: int
) -> int:
    """The package's ``build_by_features`` in plain Python, its numpy sums
    done in the same order: its values, and its errors, for any features.

    A str, or a pair whose weight is an int of at most ``cutoff``, repeats
    its digest ``weight`` times into a batch (none for a weight below 1),
    summed as integers every ``batch_size`` features; another pair adds
    ``bits * weight`` at once. Bits are listed from the highest, as
    numpy's ``unpackbits`` gives them.
    """
    f_bytes = f // 8
    truncate_mask = 2**f - 1
    sums: Optional[List[Any]] = None
    batch: List[bytes] = []
    count: Any = 0
    w: Any = 1
    if isinstance(features, dict):
        features = features.items()
    for feature in features:
        skip_batch = False
        if not isinstance(feature, str):
            feature, w = feature
            skip_batch = w > cutoff or not isinstance(w, int)
        count += w
        if returns_int:
            h = (hashfunc(feature.encode("utf-8")) & truncate_mask).to_bytes(f_bytes, "big")
        else:
            h = hashfunc(feature.encode("utf-8"))[-f_bytes:]
        if skip_batch:
            sums = _add(sums, [bit * w for bit in _bits(h)])
        else:
            batch.append(h * w)
            if len(batch) >= batch_size:
                sums = _add(sums, _batch_sums(batch, f))
                batch = []
    if batch:
        sums = _add(sums, _batch_sums(batch, f))
    if sums is None:
        return 0
    half = count / 2
    return sum(1 << (f - 1 - j) for j, s in enumerate(sums) if s > half)


def _bits(digest: bytes) -> List[int]:
    return [byte >> (7 - i) & 1 for byte in digest for i in range(8)]


def _batch_sums(batch: List[bytes], f: int) -> List[int]:
    """The sums of each bit over the batch's digests, ``f`` bits a row."""
    bits = _bits(b"".join(batch))
    if f <= 0 or len(bits) % f:
        raise ValueError(f"cannot reshape array of size {len(bits)} into shape ({f})")
    return [sum(bits[j::f]) for j in range(f)]


def _add(sums: Optional[List[Any]], more: List[Any]) -> List[Any]:
    if sums is None:
        return more
    if len(sums) != len(more):
        raise ValueError(f"operands could not be broadcast together with shapes ({len(sums)},) ({len(more)},)")
    return [a + b for a, b in zip(sums, more)]
