import json

import numpy as np
import pytest

import neardup
from conftest import write_jsonl


def test_one_and_batch_agree(samples):
    _, texts = samples
    fp = neardup.Fingerprinter()
    batch = fp.fingerprint_batch(texts[:300])
    assert batch.dtype == np.uint64 and batch.shape == (300,)
    assert [int(x) for x in batch] == [fp.fingerprint(t) for t in texts[:300]]


def test_128_bits_are_high_and_low_words(samples):
    _, texts = samples
    fp = neardup.Fingerprinter(width=128)
    batch = fp.fingerprint_batch(texts[:50])
    assert batch.shape == (50, 2)
    assert [int(h) << 64 | int(l) for h, l in batch] == [fp.fingerprint(t) for t in texts[:50]]
    assert any(int(h) != 0 for h, _ in batch)


def test_equal_to_the_cli(tmp_path, cli, samples):
    ids, texts = samples
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, ids, texts)
    for profile in ["auto", "en", "zh", "python-simhash"]:
        lines = cli("fingerprint", "--profile", profile, path).splitlines()
        want = [int(json.loads(line)["fingerprint"], 16) for line in lines]
        got = neardup.Fingerprinter(profile).fingerprint_batch(texts)
        assert len(want) == len(texts)
        assert [int(x) for x in got] == want, profile


def test_columns_of_every_library(samples):
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    _, texts = samples
    texts = texts[:200]
    fp = neardup.Fingerprinter()
    want = fp.fingerprint_batch(texts)
    columns = [
        pa.array(texts),
        pa.array(texts, pa.large_string()),
        pa.array(texts, pa.string_view()),
        pa.chunked_array([texts[:70], texts[70:]]),
        pd.Series(texts),
        pd.Series(texts, dtype="string[pyarrow]"),
        tuple(texts),
        (t for t in texts),
        np.array(texts, dtype=object),
    ]
    for column in columns:
        assert (fp.fingerprint_batch(neardup.as_texts(column)) == want).all(), type(column)


def test_distance():
    assert neardup.distance(0b1011, 0b0001) == 2
    assert neardup.distance(1 << 127, 0) == 1


def test_bad_input_is_a_python_exception():
    with pytest.raises(neardup.SettingsError, match="unknown profile \"nope\"; choose one of"):
        neardup.Fingerprinter("nope")
    with pytest.raises(neardup.SettingsError, match="32"):
        neardup.Fingerprinter(width=32)
    fp = neardup.Fingerprinter()
    with pytest.raises(neardup.InputError, match=r"texts\[1\]: a int, not a str"):
        fp.fingerprint_batch(["a", 3])
    with pytest.raises(neardup.InputError, match="one str"):
        fp.fingerprint_batch("a text")
    with pytest.raises(neardup.NeardupError, match=r"texts\[1\]: .*surrogates not allowed"):
        neardup.dedup(["a", "b\ud800"])
    pa = pytest.importorskip("pyarrow")
    with pytest.raises(neardup.NeardupError, match=r"texts\[1\]: null"):
        fp.fingerprint_batch(pa.array(["a", None]))
    with pytest.raises(neardup.InputError, match="Int64; give strings"):
        fp.fingerprint_batch(pa.array([1, 2]))
    # NeardupError is a ValueError: code that catches those catches it.
    assert issubclass(neardup.NeardupError, ValueError)
