"""neardup.spark on a real Spark, local-cluster[2,1,1024]: two executors
of one core each, in their own JVMs and Python workers."""

import json
import os
import random
import sys

import pytest

pyspark = pytest.importorskip("pyspark")

import neardup  # noqa: E402
from conftest import conformance_corpus, write_jsonl  # noqa: E402
from planted import documents  # noqa: E402


_QUICK_JVM = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"


@pytest.fixture(scope="module")
def spark():
    from pyspark.sql import SparkSession

    os.environ["PYSPARK_PYTHON"] = sys.executable
    session = (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("neardup-tests")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.ui.enabled", "false")
        .config("spark.driver.memory", "1g")
        # Many short jobs on small data: the JVMs' quick compiler alone and
        # one GC thread, instead of tuning for hours-long jobs on many cores
        # (the test file ran in 86 s instead of 115).
        .config("spark.driver.extraJavaOptions", _QUICK_JVM)
        .config("spark.executor.extraJavaOptions", _QUICK_JVM)
        .getOrCreate()
    )
    yield session
    session.stop()


def frame(spark, ids, texts):
    rows = [(i, t, n) for n, (i, t) in enumerate(zip(ids, texts))]
    return spark.createDataFrame(rows, "id string, text string, pos long").repartition(4)


def test_fingerprint_column_is_the_librarys(spark, samples):
    from neardup import spark as nds

    ids, texts = samples
    got = {r.id: r.fingerprint for r in nds.fingerprint(frame(spark, ids, texts)).collect()}
    want = neardup.Fingerprinter().fingerprint_batch(texts).view("int64")
    assert [got[i] for i in ids] == want.tolist()


@pytest.fixture
def beyond_the_driver(monkeypatch):
    """The paths taken when the data does not fit where neardup.spark
    gathers it: the checks, exact copies and candidates by Spark's joins,
    fingerprints joined by grouping rows, texts joined by a sort-merge
    join, components by large-star/small-star rounds."""
    from neardup import _spark_steps as steps

    for limit in ("_DRIVER_ROWS", "_DRIVER_FINGERPRINTS", "_DRIVER_EDGES", "_BROADCAST_PAIRS"):
        monkeypatch.setattr(steps, limit, 0)


@pytest.fixture
def gathered_alone(monkeypatch):
    """Rows gathered on the driver, and every later step that can leave it
    past a limit left: short-rule keys grouped by a shuffle, texts joined
    by a sort-merge join, fates joined to the input by a shuffle."""
    from neardup import _spark_steps as steps

    for limit in ("_DRIVER_KEYS", "_DRIVER_TEXT_BYTES", "_BROADCAST_PAIRS", "_BROADCAST_FATES"):
        monkeypatch.setattr(steps, limit, 0)


@pytest.fixture
def too_many_pairs(monkeypatch):
    """Rows gathered on the driver, but more candidate pairs than it makes:
    the job goes on by Spark's joins."""
    from neardup import _spark_steps as steps

    monkeypatch.setattr(steps, "_DRIVER_PAIRS", 0)


@pytest.fixture
def too_many_pairs_by_shuffle(monkeypatch):
    """The same, with the short-rule keys grouped by a shuffle: its pairs
    are counted before they are collected."""
    from neardup import _spark_steps as steps

    for limit in ("_DRIVER_KEYS", "_DRIVER_PAIRS"):
        monkeypatch.setattr(steps, limit, 0)


@pytest.fixture
def texts_in_the_tasks(monkeypatch):
    """Rows gathered on the driver, the texts of candidate pairs judged in
    the executors (each pair's two texts brought together by a shuffle)
    rather than fetched to the driver."""
    from neardup import _spark_steps as steps

    monkeypatch.setattr(steps, "_DRIVER_TEXT_BYTES", 0)


@pytest.mark.parametrize("where", ["driver", "beyond"])
def test_pairs_are_exact(spark, request, where):
    from neardup import spark as nds

    if where == "beyond":
        request.getfixturevalue("beyond_the_driver")

    rng = random.Random(11)
    base = [rng.getrandbits(64) for _ in range(300)]
    fps = base + [b ^ (1 << rng.randrange(64)) ^ (1 << rng.randrange(64)) for b in base] + base[:20]
    for k in [3, 8]:
        signed = [f - (1 << 64) if f >> 63 else f for f in fps]
        df = spark.createDataFrame([(i, f) for i, f in enumerate(signed)], "id long, fingerprint long")
        got = sorted(tuple(r) for r in nds.near_duplicate_pairs(df, k).collect())
        want = sorted(
            (i, j, bin(a ^ b).count("1"))
            for i, a in enumerate(fps)
            for j, b in enumerate(fps)
            if i < j and bin(a ^ b).count("1") <= k
        )
        assert got == want and len(want) > 300


def test_gathered_candidates_are_every_pair_within_k_once():
    # The driver's join of units by fingerprint (_spark_gathered), against
    # brute force: units of one fingerprint among themselves too.
    import numpy as np

    from neardup import _spark_gathered as gathered

    rng = np.random.default_rng(5)
    base = rng.integers(-(2**63), 2**63 - 1, 300, dtype=np.int64)
    flips = (np.int64(1) << rng.integers(0, 63, 300)).astype(np.int64)
    fps = np.concatenate([base, base ^ flips, base[:40], base[:5]])
    units = rng.permutation(len(fps)).astype(np.int64) * 7 + 3
    for k in [0, 3, 8]:
        x, y = gathered.fingerprint_candidates(units, fps, k)
        got = sorted(zip(np.minimum(x, y).tolist(), np.maximum(x, y).tolist()))
        bits = [int(f) & (2**64 - 1) for f in fps]
        want = sorted(
            (min(units[i], units[j]), max(units[i], units[j]))
            for i in range(len(fps))
            for j in range(i + 1, len(fps))
            if bin(bits[i] ^ bits[j]).count("1") <= k
        )
        assert got == want and len(want) > 45
        # Past the limit, no pairs: counted before they are made.
        from neardup import _neardup

        assert _neardup.unit_pairs_by_fingerprint(units, fps, k, len(want) - 1) is None
        assert _neardup.unit_pairs_by_fingerprint(units, fps, k, len(want)) is not None


def test_gathered_units_and_short_pairs_are_brute_force():
    # The driver's other sorts (spark_gathered.rs) against plain Python.
    import numpy as np

    from neardup import _neardup

    rng = np.random.default_rng(9)
    n = 400
    rank = rng.permutation(n).astype(np.int64) * 5 - 700
    fp = rng.integers(0, 6, n).astype(np.int64)
    text = rng.integers(0, 3, n).astype(np.int64)
    first = {}
    for r, f, t in zip(rank.tolist(), fp.tolist(), text.tolist()):
        first[(f, t)] = min(first.get((f, t), r), r)
    want = [first[(f, t)] for f, t in zip(fp.tolist(), text.tolist())]
    assert _neardup.exact_units(rank, fp, text).tolist() == want

    keys = rng.integers(0, 40, n).astype(np.int64)
    units = rng.integers(0, 120, n).astype(np.int64)
    short = rng.random(n) < 0.3
    x, y = _neardup.short_unit_pairs(keys, units, short, 10**9)
    want_pairs = sorted(
        {
            (min(units[i], units[j]), max(units[i], units[j]))
            for i in range(n)
            for j in range(i + 1, n)
            if keys[i] == keys[j] and (short[i] or short[j]) and units[i] != units[j]
        }
    )
    assert list(zip(x.tolist(), y.tolist())) == want_pairs and len(want_pairs) > 100
    # The limit counts a pair once for each key it shares: at least as many.
    assert _neardup.short_unit_pairs(keys, units, short, len(want_pairs) - 1) is None

    u, v = _neardup.distinct_unit_pairs(np.array([3, 1, 3, 7, 1], np.int64), np.array([1, 3, 1, 2, 3], np.int64))
    assert list(zip(u.tolist(), v.tolist())) == [(1, 3), (2, 7)]


def test_sketch_rows_reads_each_text_once_for_all_it_gives():
    # The first pass's one call per batch: the library's fingerprints, the
    # short kinds by word count (short under 50 words, near-short under
    # 100), and the short-rule keys of the near-short texts only, which a
    # near-duplicate short pair shares.
    import numpy as np

    from neardup import _neardup

    words = "the river rose in the night and the town woke to water on every street".split()
    texts = [" ".join(words[i % len(words)] for i in range(n)) for n in (3, 30, 49, 50, 70, 99, 100, 400)]
    texts.append(texts[1] + " again")
    fp = _neardup.Fingerprinter()
    bits, kinds, offsets, keys = _neardup.sketch_rows(fp, texts, "jaccard:0.8")
    assert (bits == fp.fingerprint_batch(texts).view(np.int64)).all()
    assert kinds.tolist() == [2, 2, 2, 1, 1, 1, 0, 0, 2]
    counts = np.diff(offsets)
    assert len(offsets) == len(texts) + 1 and offsets[0] == 0 and offsets[-1] == len(keys)
    assert ((counts > 0) == (kinds > 0)).all()
    own = [set(keys[offsets[i] : offsets[i + 1]].tolist()) for i in range(len(texts))]
    assert own[1] & own[8]
    off_bits, off_kinds, off_offsets, off_keys = _neardup.sketch_rows(fp, texts)
    assert (off_bits == bits).all() and not off_kinds.any() and not off_offsets.any() and not len(off_keys)


def test_judge_pairs_gives_the_librarys_verdict_on_pairs_named_by_index(samples):
    # The verification's one call: texts named by index (each in several
    # pairs, read in place from chunked Arrow), the verdict neardup.dedup
    # gives the two texts alone; a pair naming no text is an error.
    import numpy as np
    import pyarrow as pa

    from neardup import NeardupError, _neardup

    _, base = samples
    base = base[:40]
    texts = base + [" ".join(t.split()[1:]) for t in base]
    fp = neardup.Fingerprinter().fingerprint_batch(texts).view(np.int64)
    a = np.repeat(np.arange(39), 3)
    b = a + np.tile([40, 1, 41], 39)
    column = pa.chunked_array([texts[:25], texts[25:]])
    options = dict(verify="jaccard:0.8", k=8, short_rule=True, profile="auto")
    near = _neardup.judge_pairs(column, fp, a, b, **options)
    want = [len(neardup.dedup([texts[i], texts[j]]).kept_indices) == 1 for i, j in zip(a, b)]
    assert near.tolist() == want and 20 < sum(want) < len(want)
    with pytest.raises(NeardupError, match="outside 0..80"):
        _neardup.judge_pairs(column, fp, np.array([0]), np.array([80]), **options)


@pytest.mark.parametrize("where", ["driver", "beyond"])
def test_components_are_union_find(spark, request, where):
    from neardup.spark import _labels

    if where == "beyond":
        request.getfixturevalue("beyond_the_driver")

    rng = random.Random(2)
    edges = [(rng.randrange(400), rng.randrange(400)) for _ in range(300)] + [(i, i + 1) for i in range(500, 560)]
    parent = {}

    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            x = parent[x]
        return x

    for u, v in edges:
        a, b = find(u), find(v)
        parent[max(a, b)] = min(a, b)
    want = {x: find(x) for u, v in edges for x in (u, v) if u != v}
    import numpy as np

    u, v = (np.array(side, np.int64) for side in zip(*edges))
    for given in (spark.createDataFrame(edges, "u long, v long"), (u, v)):
        got = {r.node: r.label for r in _labels(given, 64, spark).collect()}
        assert got == want


def cli_kept(cli, tmp_path, ids, texts, *flags):
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, ids, texts)
    cli("dedup", path, "--out", tmp_path / "out", "--quiet", "--cluster", "components", *flags)
    dropped = {json.loads(line)["id"] for line in (tmp_path / "out" / "duplicates.jsonl").open()}
    return {i for i in ids if i not in dropped}, dropped


@pytest.mark.parametrize("keep", ["first", "longest", "shortest"])
def test_dedup_keeps_what_the_cli_keeps_on_the_samples(spark, cli, tmp_path, samples, keep):
    from neardup import spark as nds

    ids, texts = samples
    want, dropped = cli_kept(cli, tmp_path, ids, texts, "--keep", keep)
    kept = nds.dedup(frame(spark, ids, texts), order_col="pos", keep=keep)
    assert kept.columns == ["id", "text", "pos"]
    assert {r.id for r in kept.select("id").collect()} == want and len(dropped) > 50


def test_dedup_keeps_what_the_cli_keeps_on_100k_planted(spark, cli, tmp_path):
    from neardup import spark as nds

    ids, texts = zip(*documents(100_000, seed=7))
    want, dropped = cli_kept(cli, tmp_path, ids, texts)
    df = frame(spark, ids, texts)
    fated = nds.fates(df, order_col="pos")
    got = {r.id for r in fated.where("keep").select("id").collect()}
    assert got == want and len(dropped) > 15_000
    # Each dropped row names a kept row of its group.
    kept_of = {r.id: r.duplicate_of for r in fated.where("not keep").collect()}
    assert set(kept_of) == dropped and set(kept_of.values()) <= want


def test_dedup_keeps_what_the_cli_keeps_on_the_conformance_corpus(spark, cli, tmp_path):
    # One verdict everywhere: the corpus the CLI's doors are checked on
    # (crates/cli/tests/conformance.rs), components against components.
    from neardup import spark as nds

    ids, texts = conformance_corpus()
    want, dropped = cli_kept(cli, tmp_path, ids, texts)
    kept = nds.dedup(frame(spark, ids, texts), order_col="pos")
    assert {r.id for r in kept.select("id").collect()} == want and len(dropped) > 300


@pytest.mark.parametrize(
    "where", ["beyond_the_driver", "gathered_alone", "texts_in_the_tasks", "too_many_pairs", "too_many_pairs_by_shuffle"]
)
def test_dedup_past_each_limit_keeps_what_the_cli_keeps(spark, cli, tmp_path, request, where):
    # The same job with no step gathered on the driver or in every task;
    # with only the rows gathered; with the texts judged in the executors;
    # with more candidate pairs than the driver makes (the short-rule keys
    # grouped there, or by a shuffle).
    from neardup import spark as nds

    request.getfixturevalue(where)
    ids, texts = conformance_corpus()
    want, dropped = cli_kept(cli, tmp_path, ids, texts)
    kept = nds.dedup(frame(spark, ids, texts), order_col="pos")
    assert {r.id for r in kept.select("id").collect()} == want and len(dropped) > 300


@pytest.mark.parametrize("where", ["driver", "beyond"])
def test_fates_in_read_order_name_kept_rows_by_integer_ids(spark, cli, tmp_path, request, where):
    # No order_col: keep order is the order Spark reads the rows in, so the
    # kept rows may differ from the CLI's, but not their number (one a
    # component), and each dropped row names a kept one by its integer id.
    from neardup import spark as nds

    if where == "beyond":
        request.getfixturevalue("beyond_the_driver")
    ids, texts = conformance_corpus()
    want, _ = cli_kept(cli, tmp_path, ids, texts)
    df = spark.createDataFrame(list(enumerate(texts)), "id int, text string").repartition(4)
    fated = {r.id: (r.keep, r.duplicate_of) for r in nds.fates(df).collect()}
    kept = {i for i, (keep, _) in fated.items() if keep}
    assert len(fated) == len(texts) and len(kept) == len(want)
    assert all(of in kept for keep, of in fated.values() if not keep)
    assert all(of is None for keep, of in fated.values() if keep)


def test_an_empty_frame_has_no_fates(spark):
    from neardup import spark as nds

    empty = spark.createDataFrame([], "id string, text string")
    assert nds.fates(empty).collect() == [] and nds.dedup(empty).columns == ["id", "text"]


# Bad input and bad settings fail on the driver, before any task runs,
# as neardup.InputError and SettingsError (NeardupError before the
# package has them: getattr keeps these tests right before and after).
InputError = getattr(neardup, "InputError", neardup.NeardupError)
SettingsError = getattr(neardup, "SettingsError", neardup.NeardupError)


class Jobs:
    """The Spark jobs started inside a ``with`` block: its ``count``."""

    def __init__(self, spark):
        self.sc = spark.sparkContext

    def __enter__(self):
        self.group = f"neardup-checks-{random.getrandbits(32)}"
        self.sc.setJobGroup(self.group, "driver-side checks")
        return self

    def __exit__(self, *exc):
        self.count = len(self.sc.statusTracker().getJobIdsForGroup(self.group))
        self.sc.setLocalProperty("spark.jobGroup.id", None)
        return False


def refused(spark, error, match, call, *args, **kwargs):
    """``call`` raises ``error`` matching ``match`` without a Spark job."""
    with Jobs(spark) as jobs, pytest.raises(error, match=match):
        call(*args, **kwargs)
    assert jobs.count == 0, f"{call.__name__}{kwargs} ran {jobs.count} jobs before refusing"


def test_bad_settings_fail_before_any_job(spark):
    from neardup import spark as nds

    df = spark.createDataFrame([("a", "x", 1)], "id string, text string, pos long")
    fps = spark.createDataFrame([("a", 1)], "id string, fingerprint long")
    for kwargs, match in [
        # The library's own checks, as neardup.dedup makes them.
        ({"profile": "klingon"}, "klingon"),
        ({"k": 64}, "64"),
        ({"k": -1}, "k: -1; give a whole number of bits"),
        ({"k": "8"}, "k: '8'"),
        ({"short_rule": "yes"}, "short_rule"),
        ({"threshold": 0}, r"threshold: 0; .*above 0"),
        ({"verify": "jaccard:0"}, "verify"),
        ({"keep": "max"}, "keep"),
        # And the Spark functions' own.
        ({"on_null": "skip"}, "on_null: 'skip'; give raise, keep or drop"),
        ({"max_rounds": 0}, "max_rounds"),
    ]:
        refused(spark, SettingsError, match, nds.dedup, df, **kwargs)
    refused(spark, SettingsError, "klingon", nds.fingerprint, df, profile="klingon")
    refused(spark, SettingsError, "on_null", nds.fingerprint, df, on_null="skip")
    refused(spark, SettingsError, "'text' is a column already", nds.fingerprint, df, out_col="text")
    refused(spark, SettingsError, "'keep' is a column already", nds.fates, df.withColumn("keep", df.pos))
    refused(spark, SettingsError, "64", nds.near_duplicate_pairs, fps, 64)
    refused(spark, SettingsError, "k: -1; give a whole number of bits", nds.near_duplicate_pairs, fps, -1)


def test_column_types_fail_before_any_job(spark):
    from neardup import spark as nds

    df = spark.createDataFrame([(1.5, 7, "a", "1")], "id double, text int, name string, pos string")
    has = "id, text, name, pos"
    refused(spark, InputError, f"no column 'body'; the DataFrame has {has}", nds.dedup, df, text_col="body")
    refused(spark, InputError, r"text column 'text' is int; give a string column", nds.dedup, df)
    refused(spark, InputError, r"text column 'text' is int", nds.fingerprint, df)
    refused(spark, InputError, r"id column 'id' is double; give a string or integer", nds.dedup, df, text_col="name")
    ok = {"id_col": "name", "text_col": "name"}  # a string id and text; pos is the wrong column
    refused(spark, InputError, r"order column 'pos' is string; give an integer", nds.dedup, df, **ok, order_col="pos")
    wrong = "fingerprint column 'pos' is string; give a long"
    refused(spark, InputError, wrong, nds.near_duplicate_pairs, df, id_col="name", fp_col="pos")


@pytest.mark.parametrize("where", ["driver", "beyond"])
def test_null_texts_as_on_null_says(spark, request, where):
    from neardup import spark as nds

    if where == "beyond":
        request.getfixturevalue("beyond_the_driver")
    river = "the river rose in the night and the town woke to water in every street"
    rows = [("a", river, 0), ("b", None, 1), ("c", river + "!", 2), ("d", None, 3), ("e", "bread and salt", 4)]
    df = spark.createDataFrame(rows, "id string, text string, pos long")
    # raise (the default): a job finds a null text, the driver names its row.
    with pytest.raises(InputError, match=r"text column 'text' is null in the row id='[bd]'.*on_null='keep'"):
        nds.dedup(df, order_col="pos")
    with pytest.raises(InputError, match=r"text column 'text' is null in the row id='[bd]', pos=[13]"):
        nds.fingerprint(df)
    # keep: null texts are kept and never duplicates; the others as ever.
    fated = {r.id: (r.keep, r.duplicate_of) for r in nds.fates(df, order_col="pos", on_null="keep").collect()}
    assert fated == {"a": (True, None), "b": (True, None), "c": (False, "a"), "d": (True, None), "e": (True, None)}
    prints = {r.id: r.fingerprint for r in nds.fingerprint(df, on_null="keep").collect()}
    bits = neardup.Fingerprinter().fingerprint(river)
    assert prints["b"] is None and prints["d"] is None
    assert prints["a"] == (bits - (1 << 64) if bits >> 63 else bits)
    # drop: their rows leave the output. (dedup and fates run the same
    # filter first; a second whole run of theirs would double this test.)
    assert sorted(r.id for r in nds.fingerprint(df, on_null="drop").collect()) == ["a", "c", "e"]


def test_ids_of_one_hash_are_told_apart_by_their_values(spark, monkeypatch):
    from pyspark.sql import functions as F

    from neardup import _spark_checks

    # The ids are counted by their 64-bit hashes first; two ids of one hash
    # send the check to count the values themselves, which names no id.
    monkeypatch.setattr(_spark_checks.F, "xxhash64", lambda column: F.lit(7).cast("long"))
    distinct = spark.createDataFrame([("a", 1), ("b", 2)], "id string, pos long")
    _spark_checks._check_unique(distinct, ("id", "id"), ("pos", "order"))
    twice = spark.createDataFrame([("a", 1), ("a", 2)], "id string, pos long")
    with pytest.raises(InputError, match="id column 'id': the id 'a' is in 2 rows"):
        _spark_checks._check_unique(twice, ("id", "id"), ("pos", "order"))


@pytest.mark.parametrize("where", ["driver", "beyond"])
def test_ids_must_be_unique_and_present(spark, request, where):
    from neardup import spark as nds

    if where == "beyond":
        request.getfixturevalue("beyond_the_driver")
    twice = spark.createDataFrame([("a", "x", 1), ("a", "y", 2), ("b", "z", 3)], "id string, text string, pos long")
    with pytest.raises(InputError, match="id column 'id': the id 'a' is in 2 rows; give each row its own id"):
        nds.dedup(twice)
    nameless = spark.createDataFrame([(None, "x", 1), ("b", "y", 2)], "id string, text string, pos long")
    with pytest.raises(InputError, match="id column 'id' is null in 1 row; give every row its id"):
        nds.dedup(nameless)
    # near_duplicate_pairs would merge the two rows of id 7 into one side.
    fps = spark.createDataFrame([(7, 1), (7, 1), (8, 3)], "id long, fingerprint long")
    with pytest.raises(InputError, match="the id 7 is in 2 rows"):
        nds.near_duplicate_pairs(fps, 3)
    same = spark.createDataFrame([("a", "x", 1), ("b", "y", 1)], "id string, text string, pos long")
    with pytest.raises(InputError, match="order column 'pos': the order 1 is in 2 rows"):
        nds.dedup(same, order_col="pos")
    unordered = spark.createDataFrame([("a", "x", None), ("b", "y", 1)], "id string, text string, pos long")
    with pytest.raises(InputError, match="order column 'pos' is null in 1 row"):
        nds.dedup(unordered, order_col="pos")
