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


def test_pairs_are_exact(spark):
    from neardup import spark as nds

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


def test_components_are_union_find(spark):
    from neardup.spark import _components

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
    got = {r.node: r.label for r in _components(spark.createDataFrame(edges, "u long, v long"), 64).collect()}
    assert got == want


def cli_kept(cli, tmp_path, ids, texts, *flags):
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, ids, texts)
    cli("dedup", path, "--out", tmp_path / "out", "--quiet", "--cluster", "components", *flags)
    dropped = {json.loads(line)["id"] for line in (tmp_path / "out" / "duplicates.jsonl").open()}
    return {i for i in ids if i not in dropped}, dropped


@pytest.mark.parametrize("keep", ["first", "longest"])
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


def test_bad_settings(spark):
    from neardup import spark as nds

    df = spark.createDataFrame([("a", "x")], "id string, text string")
    with pytest.raises(ValueError, match="no column 'body'"):
        nds.dedup(df, text_col="body")
    with pytest.raises(ValueError, match="keep"):
        nds.dedup(df, keep="max")
    with pytest.raises(ValueError, match="threshold"):
        nds.dedup(df, threshold=0)
    with pytest.raises(ValueError, match="'text' is a column already"):
        nds.fingerprint(df, out_col="text")
    twice = spark.createDataFrame([("a", "x", 1), ("b", "y", 1)], "id string, text string, pos long")
    with pytest.raises(ValueError, match="order_col 'pos': the value 1 is in 2 rows"):
        nds.dedup(twice, order_col="pos")
