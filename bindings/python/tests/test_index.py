import json
import random

import numpy as np
import pytest

import neardup


def test_add_query_remove():
    index = neardup.Index(k=3)
    index.add(["a", "b", "c"], [0b1011, 0xFFFF_0000, 0b1111])
    assert index.query([0b0011, 1 << 63]) == [[("a", 1), ("c", 2)], []]
    assert len(index) == 3 and "b" in index and index.get("b") == 0xFFFF_0000
    index.remove(["a"])
    assert index.query([0b0011]) == [[("c", 2)]]
    with pytest.raises(KeyError):
        index.remove(["c", "zzz"])
    assert "c" in index, "nothing removed when one id is missing"
    with pytest.raises(neardup.NeardupError, match="is in the index already"):
        index.add(["c"], [1])
    with pytest.raises(neardup.NeardupError, match="2 ids for 1 fingerprints"):
        index.add(["x", "y"], [1])
    with pytest.raises(neardup.NeardupError, match="wider than 64 bits"):
        index.add(["x"], [1 << 64])


def test_exact_against_brute_force():
    rng = random.Random(7)
    for width, k in [(64, 3), (64, 8), (128, 6)]:
        base = [rng.getrandbits(width) for _ in range(40)]

        def flip(b):
            # A neighbour at a distance up to k + 2.
            for bit in rng.sample(range(width), rng.randrange(k + 3)):
                b ^= 1 << bit
            return b

        fps = base + [flip(b) for b in base * 10]
        ids = [str(i) for i in range(len(fps))]
        index = neardup.Index(k=k, width=width)
        index.add(ids, fps)
        queries = fps[:60] + [rng.getrandbits(width) for _ in range(20)]
        got = index.query(queries)
        for q, found in zip(queries, got):
            want = sorted((bin(q ^ f).count("1"), i) for i, f in zip(ids, fps) if bin(q ^ f).count("1") <= k)
            assert sorted((d, i) for i, d in found) == want


def test_numpy_fingerprints_round_trip(samples):
    _, texts = samples
    for width in [64, 128]:
        fps = neardup.Fingerprinter(width=width).fingerprint_batch(texts[:100])
        index = neardup.Index(k=4, width=width)
        index.add([str(i) for i in range(100)], fps)
        assert [hits[0] for hits in index.query(fps)][:5] == [(str(i), 0) for i in range(5)]
    signed = np.array([-1, 5], dtype=np.int64)
    index = neardup.Index()
    index.add(["all ones", "five"], signed)
    assert index.get("all ones") == 2**64 - 1


def test_save_and_open_share_the_cli_format(tmp_path, cli):
    index = neardup.Index(k=3)
    index.add(["a", "b"], [0b1011, 0xFFFF_0000])
    index.save(tmp_path / "idx")
    # The CLI reads what Python wrote ...
    queries = tmp_path / "q.jsonl"
    queries.write_text('{"id": "q", "fingerprint": "0000000000000003"}\n')
    out = cli("index", "query", "--index", tmp_path / "idx", queries)
    assert '"a"' in out and '"b"' not in out
    # ... and Python what the CLI wrote.
    cli("index", "add", "--index", tmp_path / "idx", queries)
    opened = neardup.Index.open(tmp_path / "idx")
    assert len(opened) == 3 and opened.k == 3 and opened.query([3])[0] == [("q", 0), ("a", 1)]
    with pytest.raises(neardup.NeardupError, match="already holds an index"):
        index.save(tmp_path / "idx")
    with pytest.raises(neardup.NeardupError):
        neardup.Index.open(tmp_path / "missing")


def test_save_records_the_fingerprinter_the_cli_checks(tmp_path, cli):
    fingerprinter = neardup.Fingerprinter("en")
    index = neardup.Index(k=3)
    index.add(["a"], [fingerprinter.fingerprint("the river rose in the night and the town woke")])
    with pytest.raises(neardup.SettingsError, match="128-bit"):
        index.save(tmp_path / "wide", fingerprinter=neardup.Fingerprinter(width=128))
    index.save(tmp_path / "idx", fingerprinter=fingerprinter)
    stats = json.loads(cli("index", "stats", "--index", tmp_path / "idx"))
    assert stats["fingerprint_settings"]["profile"] == "en"
    texts = tmp_path / "t.jsonl"
    texts.write_text('{"id": "q", "text": "the river rose in the night and the town woke"}\n')
    idx = tmp_path / "idx"
    out = cli("index", "query", "--index", idx, "--documents", "--profile", "en", texts)
    assert '"a"' in out
    # The settings travel with the index when it is saved again, and
    # another fingerprinter's are refused.
    with pytest.raises(neardup.SettingsError, match="profile en there, auto here"):
        neardup.Index.open(idx).save(tmp_path / "other", fingerprinter=neardup.Fingerprinter())
    neardup.Index.open(tmp_path / "idx").save(tmp_path / "again")
    again = json.loads(cli("index", "stats", "--index", tmp_path / "again"))
    assert again["fingerprint_settings"] == stats["fingerprint_settings"]
