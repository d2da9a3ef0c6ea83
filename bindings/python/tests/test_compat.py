"""neardup.compat against the real PyPI simhash 2.x."""

import copy
import decimal
import hashlib
import io
import logging
import pickle
import random
import re
import sys
import types
import unittest
from pathlib import Path

import pytest

from neardup import compat

simhash = pytest.importorskip("simhash")


def get_features(s, width=3):
    # The feature function of the package's README.
    s = s.lower()
    s = re.sub(r"[^\w]+", "", s)
    return [s[i : i + width] for i in range(max(len(s) - width + 1, 1))]


def texts(samples, n=1200):
    _, all_texts = samples
    rng = random.Random(3)
    chosen = rng.sample(all_texts, min(n, len(all_texts)))
    # Short and odd texts too: empty, shorter than a window, symbols only.
    return chosen + ["", "a", "ab!", "!!!", "Ünïcödé ΟΔΟΣ straße", "中文的文本和English混合", "ǅ ǈ _x_"]


def test_text_values_are_bit_identical(samples):
    ts = texts(samples)
    assert len(ts) >= 1000
    for f in [64, 128, 32]:
        for t in ts if f == 64 else ts[:200]:
            assert compat.Simhash(t, f=f).value == simhash.Simhash(t, f=f).value, (f, t[:50])


def test_feature_values_are_bit_identical(samples):
    for t in texts(samples)[:1000]:
        features = get_features(t)
        assert compat.Simhash(features).value == simhash.Simhash(features).value
    weighted = [("a", 3), ("bb", 60), "c", ("z", 2), "e", ("d", 1.5)]
    assert compat.Simhash(weighted).value == simhash.Simhash(weighted).value
    as_dict = {"alpha": 2, "beta": 1, "gamma": 7}
    assert compat.Simhash(as_dict).value == simhash.Simhash(as_dict).value
    assert compat.Simhash([]).value == simhash.Simhash([]).value


def test_features_of_every_length_and_script():
    # Features of up to 16 bytes have their MD5s remembered, longer ones
    # not; a weight other than 1 is counted apart; strs are read in place.
    words = ["a", "", "\0", "a\0", "0123456789abcdef", "0123456789abcdefg", "é" * 8, "é" * 9,
             "中文的文本", "ΟΔΟΣ", "x" * 40, "\U0001f600!"]
    rng = random.Random(5)
    for _ in range(200):
        features = rng.choices(words, k=rng.randint(1, 30))
        assert compat.Simhash(features).value == simhash.Simhash(features).value, features
        pairs = [(w, rng.choice([1, 2, 7])) for w in features]
        assert compat.Simhash(pairs).value == simhash.Simhash(pairs).value, pairs
        for f in [8, 32, 128]:
            assert compat.Simhash(features, f=f).value == simhash.Simhash(features, f=f).value


def test_custom_reg_and_hashfunc():
    import hashlib

    def sha(x):
        return hashlib.sha1(x).digest()

    for t in ["How are you? I am fine. Thanks.", "a-b-c d_e", ""]:
        for kwargs in [{"reg": r"\w+"}, {"hashfunc": sha}, {"hashfunc": lambda x: int.from_bytes(sha(x)[:8], "big")}]:
            assert compat.Simhash(t, **kwargs).value == simhash.Simhash(t, **kwargs).value, kwargs


def test_distance_and_equality():
    a, b = compat.Simhash("aa"), compat.Simhash("bb")
    assert a.distance(b) == simhash.Simhash("aa").distance(simhash.Simhash("bb"))
    assert compat.Simhash(a) == a and compat.Simhash(a.value) == a
    with pytest.raises(ValueError):
        compat.Simhash("x", f=12)


def test_index_answers_as_the_package(samples):
    ts = texts(samples, 400)
    rng = random.Random(5)
    for k in [2, 3, 6]:
        objs_pkg = [(str(i), simhash.Simhash(get_features(t))) for i, t in enumerate(ts)]
        objs_our = [(str(i), compat.Simhash(get_features(t))) for i, t in enumerate(ts)]
        pkg = simhash.SimhashIndex(objs_pkg, k=k)
        our = compat.SimhashIndex(objs_our, k=k)
        assert our.bucket_size() == pkg.bucket_size()
        for t in rng.sample(ts, 100):
            # A near copy: a few characters changed.
            chars = list(t)
            for _ in range(3):
                if chars:
                    chars[rng.randrange(len(chars))] = "x"
            q = "".join(chars)
            got = our.get_near_dups(compat.Simhash(get_features(q)))
            want = pkg.get_near_dups(simhash.Simhash(get_features(q)))
            assert sorted(got) == sorted(want)
        victim = objs_our[0]
        our.delete(*victim)
        pkg.delete(*objs_pkg[0])
        q = victim[1]
        assert sorted(our.get_near_dups(q)) == sorted(pkg.get_near_dups(objs_pkg[0][1]))
        assert our.bucket_size() == pkg.bucket_size()
        assert list(our.get_keys(q)) == list(pkg.get_keys(objs_pkg[0][1]))


def test_simhash_objects_behave_as_the_package_s():
    import pickle

    s = compat.Simhash("How are you? I am fine. Thanks.")
    assert (s.f, s.f_bytes) == (64, 8)
    copy = pickle.loads(pickle.dumps(s))
    assert copy == s and copy.value == s.value and copy.f == s.f
    s.note = "kept"  # attributes, as on a plain Python object
    assert s.note == "kept"
    with pytest.raises(TypeError):
        hash(s)  # == is defined, so, as the package's, it is unhashable

    class Mine(compat.Simhash):
        pass

    assert Mine("abc").value == simhash.Simhash("abc").value
    assert compat.Simhash(s).value == s.value
    with pytest.raises(Exception, match="Bad parameter with type <class 'float'>"):
        compat.Simhash(1.5)
    with pytest.raises(ValueError, match="multiple of 8"):
        compat.Simhash("a", f=12)
    index = compat.SimhashIndex([("1", s)], k=3)
    with pytest.raises(AssertionError):
        index.add("2", compat.Simhash("a", f=128))


# PyPI simhash 2.1.2's own tests: tests/test_simhash.py of its repository
# (MIT), which its sdist does not carry, kept unmodified beside its licence
# in tests/peers/simhash-2.1.2 (its README says where it comes from).
UPSTREAM_TESTS = Path(__file__).parent / "peers" / "simhash-2.1.2" / "test_simhash.py.upstream"
UPSTREAM_SHA256 = "fdf75050a7b0e96713e83a314aa04c9eb8735b13d38466e76e824f5844740dca"
UPSTREAM_CASES = 10


def upstream_tests_source():
    """The module's text, checked to be simhash 2.1.2's."""
    data = UPSTREAM_TESTS.read_bytes()
    assert hashlib.sha256(data).hexdigest() == UPSTREAM_SHA256, "not simhash 2.1.2's tests/test_simhash.py"
    return data.decode("utf-8")


def test_the_package_s_own_tests_pass():
    source = upstream_tests_source()
    # Its test_sparse_features makes TF-IDF weights with scikit-learn
    # (pinned in requirements-test.txt: a failed import fails the test).
    assert source.count("from simhash import ") == 1
    source = source.replace("from simhash import ", "from neardup.compat import ")
    module = types.ModuleType("simhash_upstream_tests")
    exec(compile(source, "test_simhash.py (simhash 2.1.2, from neardup.compat)", "exec"), module.__dict__)
    assert module.Simhash is compat.Simhash and module.SimhashIndex is compat.SimhashIndex
    suite = unittest.defaultTestLoader.loadTestsFromModule(module)
    out = io.StringIO()
    result = unittest.TextTestRunner(stream=out, verbosity=2).run(suite)
    assert result.testsRun == UPSTREAM_CASES, out.getvalue()
    assert result.wasSuccessful(), out.getvalue()
    assert not result.skipped, out.getvalue()


def both(make):
    """What ``make(Simhash)`` gives for the package and for compat: the
    value, or the exception's type."""
    out = []
    for cls in (simhash.Simhash, compat.Simhash):
        try:
            out.append(make(cls))
        except Exception as e:  # noqa: BLE001 - the type is what is compared
            out.append(type(e))
    return out


def test_class_constants_are_the_package_s_and_are_read_where_it_reads_them():
    assert (compat.Simhash.batch_size, compat.Simhash.large_weight_cutoff) == (
        simhash.Simhash.batch_size, simhash.Simhash.large_weight_cutoff)
    assert compat.Simhash("a").batch_size == 200
    # Below the cutoff a negative int weight adds nothing; above it, itself.
    features = [("a", -3), ("bb", 2), "c", ("dd", -1), ("e", 5)]
    for cutoff in [50, -2, -10]:
        for cls in (simhash.Simhash, compat.Simhash):
            cls.large_weight_cutoff = cutoff
        try:
            ours, theirs = both(lambda S: S(features).value)
            assert ours == theirs, cutoff
        finally:
            for cls in (simhash.Simhash, compat.Simhash):
                cls.large_weight_cutoff = 50

    class Mine(compat.Simhash):
        large_weight_cutoff = -10

    class Theirs(simhash.Simhash):
        large_weight_cutoff = -10

    assert Mine(features).value == Theirs(features).value != compat.Simhash(features).value


def test_negative_and_float_weights_are_summed_as_the_package_sums_them():
    # Negative ints below the cutoff add nothing; floats add in the
    # package's order (batches of 200 summed apart), so even ties and the
    # last bits of sums agree.
    rng = random.Random(7)
    words = ["a", "bb", "ccc", "e" * 20, "中文", "ΟΔΟΣ", "0123456789abcdefg"]
    for n in range(300):
        pairs = [(rng.choice(words) + str(rng.randint(0, 50)), rng.randint(-60, 60))
                 for _ in range(rng.randint(1, 40))]
        if n % 3 == 0:
            pairs.insert(rng.randrange(len(pairs) + 1), "plain")
        assert compat.Simhash(pairs).value == simhash.Simhash(pairs).value, pairs
        # Weights of 0 or more are read in one pass; as a tuple or a dict too.
        pairs = [(p[0], abs(p[1])) if isinstance(p, tuple) else p for p in pairs]
        for given in [pairs, tuple(pairs), dict(p for p in pairs if isinstance(p, tuple))]:
            assert compat.Simhash(given).value == simhash.Simhash(given).value, given
    for n in range(100):
        weights = [rng.random, lambda: rng.randint(1, 70), lambda: -rng.random(), lambda: rng.randint(-5, 5),
                   lambda: round(rng.random(), 1), lambda: 0.1]
        pairs = [(rng.choice(words) + str(rng.randint(0, 300)), rng.choice(weights)())
                 for _ in range(rng.randint(1, 700))]
        for f in [64, 32]:
            assert compat.Simhash(pairs, f=f).value == simhash.Simhash(pairs, f=f).value, (f, pairs)
        as_dict = dict(pairs)
        assert compat.Simhash(as_dict).value == simhash.Simhash(as_dict).value
    # Weights the package does not call ints (numpy's, Decimal) nor floats.
    import numpy as np

    for odd in [[("a", np.int64(3)), ("b", np.float64(2.5)), ("c", np.int64(-2)), "e"],
                [("a", decimal.Decimal(3)), ("b", decimal.Decimal("-1.5")), ("c", 2)],
                [("a", np.int64(3)), ("b", np.float64(2.5)), ("d", decimal.Decimal(4))]]:
        theirs, ours = both(lambda S: S(odd).value)
        assert ours == theirs, odd
    # TF-IDF weights given as a one-shot iterator, as the package's README does.
    words_ = ["how", "are", "you", "fine", "thanks", "blar"]
    weights_ = [0.31, 0.2, 0.2, 0.46, 0.12, 0.77]
    assert compat.Simhash(zip(words_, weights_)).value == simhash.Simhash(zip(words_, weights_)).value


def test_lone_surrogates_as_the_package():
    # In a text, reg drops them (and lower() sees them end a word, for the
    # final sigma); in a feature, encoding fails.
    for text in ["ab\ud800cd", "AΣ\udfffB και ΣΑΣ\ud800", "\ud800", "中\udc00文的文本", "x" * 10 + "\ud83d"]:
        for f in [64, 128, 32]:
            assert compat.Simhash(text, f=f).value == simhash.Simhash(text, f=f).value, (text, f)
    assert compat.Simhash("AΣ\ud800B").value != compat.Simhash("AΣB").value
    for features in [["ok", "a\ud800"], [("a\udc00", 2)], [("a\udc00", 2.5)], {"\ud800": 1}]:
        assert both(lambda S: S(features).value) == [UnicodeEncodeError] * 2
    # A custom reg that keeps them: the windows fail to encode, as there.
    assert both(lambda S: S("ab\ud800cd", reg=r".").value) == [UnicodeEncodeError] * 2


def test_exception_types_are_the_package_s():
    import numpy as np

    calls = [
        lambda S: S([("a",)]),
        lambda S: S([("a", 1, 2)]),
        lambda S: S([1]),
        lambda S: S([(1, 2)]),
        lambda S: S([("a", "x")]),
        lambda S: S([("a", None)]),
        lambda S: S([b"ab"]),
        lambda S: S([b"a"]),
        lambda S: S(b"abc"),
        lambda S: S({1: 2}),
        lambda S: S([("a", 1.5), "b"]),
        lambda S: S([("a", 2), ("b",)]),
        lambda S: S([("a", 1.5), ("b", 2), "c"]),
        lambda S: S(None),
        lambda S: S(1.5),
        lambda S: S(),
        lambda S: S("a", f=12),
        lambda S: S("a", hashfunc=lambda x: 1 / 0),
        lambda S: S(["a"], hashfunc=lambda x: "not bytes"),
        lambda S: S("a").build_by_text(5),
        lambda S: S("a").build_by_text(b"abc"),
        lambda S: S("a").build_by_features(5),
        lambda S: S("a").build_by_features([("a",)]),
        lambda S: S("a").distance(S("a", f=32)),
        lambda S: S("a").distance(5),
        lambda S: S("a") == 5,
        lambda S: hash(S("a")),
        lambda S: S(np.int64(7)).distance(S(7)),
    ]
    for n, call in enumerate(calls):
        theirs, ours = both(lambda S: call(S) and None)
        assert ours == theirs, (n, ours, theirs)

    def index_calls(S, I):
        yield lambda: I(iter([]))
        yield lambda: I([("1", S("a"), "x")])
        yield lambda: I([("1", S("a", f=128))])
        yield lambda: I([("1", S("a"))]).add("2", S("b", f=32))
        yield lambda: I([("1", S("a"))]).delete("2", 5)
        yield lambda: I([("1", S("a"))]).get_near_dups(S("b", f=128))
        yield lambda: next(I([], k=3).get_keys(5))

    pairs = zip(index_calls(simhash.Simhash, simhash.SimhashIndex), index_calls(compat.Simhash, compat.SimhashIndex))
    for n, (theirs, ours) in enumerate(pairs):
        got = []
        for call in (theirs, ours):
            try:
                call()
                got.append(None)
            except Exception as e:  # noqa: BLE001
                got.append(type(e))
        assert got[0] == got[1], (n, got)


class Mine(compat.Simhash):
    """A subclass with an __init__ of its own (picklable: module level)."""

    def __init__(self, text, source):
        super().__init__(text, f=32)
        self.source = source


def test_pickles_and_copies_keep_every_attribute():
    s = compat.Simhash("How are you? I am fine. Thanks.", f=128)
    s.note = "kept"
    for copied in [pickle.loads(pickle.dumps(s, protocol)) for protocol in range(pickle.HIGHEST_PROTOCOL + 1)] + [
            copy.copy(s), copy.deepcopy(s)]:
        assert type(copied) is compat.Simhash
        assert (copied.value, copied.f, copied.f_bytes, copied.reg, copied.note) == (
            s.value, 128, 16, s.reg, "kept")
        assert copied.hashfunc is compat._md5 and copied.log is logging.getLogger("simhash")
        assert copied.distance(s) == 0
    # The package's object pickles its __dict__: the same attributes.
    theirs = simhash.Simhash("How are you? I am fine. Thanks.", f=128)
    assert set(s.__getstate__()) == set(vars(theirs)) | {"note"}

    m = pickle.loads(pickle.dumps(Mine("some text", "web")))
    assert (type(m), m.source, m.value) == (Mine, "web", simhash.Simhash("some text", f=32).value)


def test_index_pickles_with_its_entries_buckets_and_attributes():
    rng = random.Random(9)
    objs = [(str(i), compat.Simhash(rng.getrandbits(64))) for i in range(300)]
    index = compat.SimhashIndex(objs, k=3)
    index.delete("5", objs[5][1])
    index.get_near_dups(compat.Simhash(12345))
    index.owner = "me"
    copies = [pickle.loads(pickle.dumps(index)), copy.deepcopy(index)]
    buckets = index.bucket_size()
    near = [compat.Simhash(s.value ^ 0b101) for _, s in objs[:50]]
    want = [index.get_near_dups(q) for q in near]
    for copied in copies:
        assert (copied.f, copied.k, copied.owner, copied.bucket_size()) == (64, 3, "me", buckets)
        assert copied.log is logging.getLogger("simhash")
        assert [copied.get_near_dups(q) for q in near] == want
        copied.add("5", objs[5][1])
        assert "5" in copied.get_near_dups(objs[5][1]) and "5" not in index.get_near_dups(objs[5][1])


def test_index_with_any_k_and_its_keys_as_the_package():
    rng = random.Random(11)
    values = [rng.getrandbits(32) for _ in range(200)]
    for k in [-1, 0, 5, 31, 32, 40, 70]:
        ours = compat.SimhashIndex([(str(i), compat.Simhash(v, f=32)) for i, v in enumerate(values)], f=32, k=k)
        theirs = simhash.SimhashIndex([(str(i), simhash.Simhash(v, f=32)) for i, v in enumerate(values)], f=32, k=k)
        assert ours.offsets == theirs.offsets
        for v in values[:20]:
            q = v ^ (1 << rng.randrange(32))
            assert sorted(ours.get_near_dups(compat.Simhash(q, f=32))) == sorted(
                theirs.get_near_dups(simhash.Simhash(q, f=32))), k
            assert list(ours.get_keys(compat.Simhash(q, f=32))) == list(theirs.get_keys(simhash.Simhash(q, f=32)))
        assert ours.bucket_size() == theirs.bucket_size(), k
    # get_keys reads only the value, with the index's f (and is lazy there).
    assert list(compat.SimhashIndex([], k=3).get_keys(compat.Simhash(-5, f=128))) == list(
        simhash.SimhashIndex([], k=3).get_keys(simhash.Simhash(-5, f=128)))


def test_index_logs_and_calls_a_subclass_s_add_as_the_package(caplog):
    class Counting(compat.SimhashIndex):
        def __init__(self, objs, **kw):
            self.added = []
            super().__init__(objs, **kw)

        def add(self, obj_id, simhash):
            self.added.append(obj_id)
            super().add(obj_id, simhash)

    with caplog.at_level(logging.INFO, logger="simhash"):
        index = Counting([("a", compat.Simhash("x")), ["b", compat.Simhash("y")]], k=3)
    assert index.added == ["a", "b"] and index.get_near_dups(compat.Simhash("x")) == ["a"]
    assert [r.getMessage() for r in caplog.records] == ["Initializing 2 data.", "1/2", "2/2"]
