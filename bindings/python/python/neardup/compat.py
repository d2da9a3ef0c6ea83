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
"""

from __future__ import annotations

import hashlib
import logging
import numbers
import re
from collections.abc import Iterable
from itertools import groupby

from neardup import _neardup

__all__ = ["Simhash", "SimhashIndex"]

_DEFAULT_REG = r"[\w\u4e00-\u9fcc]+"
# One logger for all, as logging.getLogger("simhash") gives each time.
_LOG = logging.getLogger("simhash")


def _md5(data: bytes) -> bytes:
    """The package's default feature hash."""
    return hashlib.md5(data).digest()


class Simhash:
    """A SimHash fingerprint of a text, of features, or given as an int.

    ``value`` is a str (fingerprinted by its 4-character windows), an
    iterable of features (strs, ``(str, weight)`` pairs, or a dict of them),
    another ``Simhash``, or an int (the fingerprint itself).
    """

    def __init__(self, value, f=64, reg=_DEFAULT_REG, hashfunc=_md5, log=None):
        if f % 8:
            raise ValueError("f must be a multiple of 8")
        self.f = f
        self.f_bytes = f // 8
        self.reg = reg
        self.value = None
        self.hashfunc = hashfunc
        self.log = _LOG if log is None else log
        if type(value) is int:
            # The package's last case, taken first when it is a plain int
            # (neither a str nor iterable): its abstract-class checks cost
            # more than the rest of the call.
            self.value = value
        elif isinstance(value, str):
            if (reg is _DEFAULT_REG or reg == _DEFAULT_REG) and hashfunc is _md5:
                self.value = _neardup.simhash_text(value, f)
            else:
                self.build_by_text(value)
        elif isinstance(value, Simhash):
            self.value = value.value
        elif isinstance(value, (list, tuple, dict)) and hashfunc is _md5:
            self.value = _neardup.simhash_features(value, f)
        elif isinstance(value, Iterable):
            self.build_by_features(value)
        elif isinstance(value, numbers.Integral):
            self.value = value
        else:
            raise Exception("Bad parameter with type {}".format(type(value)))

    def __eq__(self, other):
        return self.value == other.value

    __hash__ = None

    def _slide(self, content, width=4):
        return [content[i : i + width] for i in range(max(len(content) - width + 1, 1))]

    def _tokenize(self, content):
        content = "".join(re.findall(self.reg, content.lower()))
        return self._slide(content)

    def build_by_text(self, content):
        """Fingerprints ``content`` by its 4-character windows."""
        if (self.reg is _DEFAULT_REG or self.reg == _DEFAULT_REG) and self.hashfunc is _md5:
            self.value = _neardup.simhash_text(content, self.f)
            return
        windows = sorted(self._tokenize(content))
        self.build_by_features({w: sum(1 for _ in g) for w, g in groupby(windows)})

    def build_by_features(self, features):
        """Fingerprints weighted features: strs (weight 1), ``(str,
        weight)`` pairs, or a dict of str to weight."""
        if self.hashfunc is _md5:
            self.value = _neardup.simhash_features(features, self.f)
            return
        self.value = self._vote(features)

    def _vote(self, features):
        # A custom hash function: the same vote, in Python.
        if isinstance(features, dict):
            features = features.items()
        mask = (1 << self.f) - 1
        sums = [0] * self.f
        total = 0
        weight = 1
        for feature in features:
            if not isinstance(feature, str):
                feature, weight = feature
            total += weight
            h = self.hashfunc(feature.encode("utf-8"))
            h = h & mask if isinstance(h, numbers.Integral) else int.from_bytes(h[-self.f_bytes :], "big")
            for j in range(self.f):
                if h >> j & 1:
                    sums[j] += weight
        return sum(1 << j for j in range(self.f) if sums[j] > total / 2)

    def distance(self, another):
        """The number of bits in which the two fingerprints differ."""
        assert self.f == another.f
        return _neardup.distance(self.value & ((1 << self.f) - 1), another.value & ((1 << self.f) - 1))


class SimhashIndex:
    """Fingerprints with ids; ``get_near_dups`` gives the ids of every one
    within ``k`` bits (exactly, as the package's buckets do)."""

    def __init__(self, objs, f=64, k=2, log=None):
        self.k = k
        self.f = f
        self.log = _LOG if log is None else log
        self._index = _neardup.CompatIndex(f, k)
        self.log.info("Initializing %s data.", len(objs))
        for obj_id, simhash in objs:
            self.add(obj_id, simhash)

    def get_near_dups(self, simhash):
        """The ids (str) of the fingerprints within k bits of ``simhash``."""
        assert simhash.f == self.f
        return self._index.get_near_dups(simhash.value)

    def add(self, obj_id, simhash):
        """Adds ``simhash`` under ``obj_id`` (kept as ``str(obj_id)``)."""
        assert simhash.f == self.f
        self._index.add(str(obj_id), simhash.value)

    def delete(self, obj_id, simhash):
        """Removes the entry of ``obj_id`` with this ``simhash``, if any."""
        assert simhash.f == self.f
        self._index.delete(str(obj_id), simhash.value)

    @property
    def offsets(self):
        """Where each of the k + 1 bucket slices of a fingerprint starts."""
        return [self.f // (self.k + 1) * i for i in range(self.k + 1)]

    def get_keys(self, simhash):
        """The bucket keys of ``simhash``, as the package names them."""
        offsets = self.offsets
        for i, offset in enumerate(offsets):
            end = self.f if i == len(offsets) - 1 else offsets[i + 1]
            yield "%x:%x" % (simhash.value >> offset & ((1 << (end - offset)) - 1), i)

    def bucket_size(self):
        """The number of buckets made so far (queries make them too, as in
        the package)."""
        return self._index.bucket_size()
