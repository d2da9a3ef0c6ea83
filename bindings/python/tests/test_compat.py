"""neardup.compat against the real PyPI simhash 2.x."""

import random
import re

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
    # (The package fails on a plain str after a float weight: not tried.)
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
