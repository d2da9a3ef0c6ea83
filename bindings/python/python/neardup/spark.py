"""neardup on Spark DataFrames, for corpora beyond one machine.

The same job as ``neardup dedup`` and :func:`neardup.dedup`, with Spark
moving the rows and neardup's Rust engine doing the work of each Arrow
batch (``mapInArrow``: Python is called once per batch, never per row):

- :func:`fingerprint`: a column of 64-bit fingerprints (Spark longs holding
  the bits);
- :func:`near_duplicate_pairs`: every pair of rows whose fingerprints are
  within ``k`` bits, exactly: the distinct fingerprints joined by the
  CLI's in-memory join on the driver while they fit there, else each goes
  out under its key in ``k + 1`` tables, each ``(table, key)`` group is
  joined in Rust, and a pair is reported by the first table it shares;
- :func:`dedup`: the kept rows, with every column. Rows with the same
  fingerprint and text are taken as one unit first (a text seen a million
  times is one row in the joins), candidate pairs of units come from the
  fingerprint join and the short-document rule, each is verified on the
  texts (the library's rule: Jaccard of shingles, as the CLI), and
  connected components of the verified pairs (the library's union-find on
  the driver while they fit, else large-star/small-star iterations) keep
  their first row in keep order: the CLI's ``--cluster components``.

Each function checks on the driver, before any task runs, what a task
would otherwise fail on minutes later, naming a place in an Arrow batch:
settings (by the library's own checks), column types, null texts (as
``on_null`` says) and, where rows are named by id, unique ids. Bad input
raises ``neardup.InputError``, bad settings ``neardup.SettingsError``
(both :class:`neardup.NeardupError`, a ``ValueError``).

>>> from neardup import spark as nds           # doctest: +SKIP
>>> kept = nds.dedup(df, id_col="id", text_col="text")  # doctest: +SKIP
>>> kept.write.parquet("s3://bucket/deduplicated")      # doctest: +SKIP
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

import neardup

if TYPE_CHECKING:
    from neardup._result import _Profile

__all__ = ["dedup", "fates", "fingerprint", "near_duplicate_pairs"]

# Bad input (the DataFrame's columns and values) and bad settings.
_InputError = neardup.InputError
_SettingsError = neardup.SettingsError

_INTEGERS = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_IDS = (_INTEGERS + (T.StringType,), "a string or integer column")
_ON_NULL = ("raise", "keep", "drop")

# Helper columns, named so as not to meet a user's.
_RANK = "__neardup_rank"
_FP = "__neardup_fp"
_HASH = "__neardup_hash"
_KIND = "__neardup_kind"
_KEYS = "__neardup_keys"
_UNIT = "__neardup_unit"
_LABEL = "__neardup_label"
_COUNT = "__neardup_count"

# Where the data fits, the driver or every task's memory does what a shuffle
# would. Candidate pairs up to this many (two rows each) go to every task's memory
# (a broadcast join, a few tens of bytes a row), so that each text is read
# where it lies and goes through one shuffle, once per pair it is in; above
# it, the texts are joined by a sort-merge join (every text shuffled).
_BROADCAST_PAIRS = 5_000_000

# Verified pairs up to this many are grouped on the driver (16 bytes each,
# the library's union-find: 160 MB at most, within Spark's default driver
# memory and result size); beyond it by large-star/small-star rounds.
_DRIVER_EDGES = 10_000_000

# Distinct fingerprints up to this many are joined on the driver (8 bytes
# each, 160 MB at most; the CLI's join, a few seconds a million); beyond it
# by grouping rows, k + 1 rows a fingerprint.
_DRIVER_FINGERPRINTS = 20_000_000


def _step(df: DataFrame, what: str) -> Any:
    """The Spark jobs started inside ``with _step(df, what)`` are described
    as ``neardup: what`` (the Spark UI and event logs name them so;
    bench/spark_stages.py sums them by step), and the description is put
    back after."""
    return _step_of(df.sparkSession, what)


@contextmanager
def _step_of(spark: Any, what: str) -> Iterator[None]:
    """:func:`_step` for a session."""
    sc = spark.sparkContext
    before = sc.getLocalProperty("spark.job.description")
    sc.setJobDescription(f"neardup: {what}")
    try:
        yield
    finally:
        sc.setLocalProperty("spark.job.description", before)


# Checks on the driver. Everything a task would trip on is checked before
# the first task runs: a failure inside a task names a position in an
# Arrow batch, after minutes of work, where these name the column, the
# setting, the id. Settings and types cost nothing (the schema is on the
# driver); nulls and ids cost a Spark job each, said where they run.


def _refuse_taken(df: DataFrame, *names: str) -> None:
    taken = [n for n in names if n in df.columns]
    if taken:
        raise _SettingsError(f"{taken[0]!r} is a column already; give another name for the output")


def _require(df: DataFrame, *names: str) -> None:
    for name in names:
        if name not in df.columns:
            raise _InputError(f"no column {name!r}; the DataFrame has {', '.join(df.columns)}")


def _require_type(df: DataFrame, name: str, role: str, types: Tuple[Any, ...], want: str) -> None:
    _require(df, name)
    kind = df.schema[name].dataType
    if not isinstance(kind, types):
        raise _InputError(f"{role} column {name!r} is {kind.simpleString()}; give {want}")


def _require_text(df: DataFrame, text_col: str) -> None:
    _require_type(
        df, text_col, "text", (T.StringType,), f"a string column (F.col({text_col!r}).cast('string'), or decode bytes)"
    )


# What each setting must be for the binding to take it at all: a wrong
# kind is a bad setting, said by name, not a TypeError from inside.
_KINDS: Dict[str, Tuple[Any, str]] = {
    "threshold": ((int, float), "a number"),
    "k": (int, "a whole number of bits, 0 to 63"),
    "keep": (str, "first, longest or shortest"),
    "short_rule": (bool, "True or False"),
    "verify": ((str, type(None)), "jaccard:T, words:F, none or None"),
    "profile": (str, "a profile's name, as Fingerprinter takes it"),
    "max_rounds": (int, "a whole number of rounds, at least 1"),
}
_LEAST = {"k": 0, "max_rounds": 1}


def _check_kinds(**settings: Any) -> None:
    for name, value in settings.items():
        kinds, want = _KINDS[name]
        # bool is an int to isinstance; only short_rule takes one.
        wrong = not isinstance(value, kinds) or (isinstance(value, bool) and name != "short_rule")
        if wrong or (name in _LEAST and value < _LEAST[name]):
            raise _SettingsError(f"{name}: {value!r}; give {want}")


def _check_on_null(on_null: str) -> None:
    if on_null not in _ON_NULL:
        raise _SettingsError(f"on_null: {on_null!r}; give raise, keep or drop")


def _library_check(call: Callable[..., Any], *args: Any, **settings: Any) -> Any:
    # The library's own checks, as neardup.dedup and Fingerprinter run
    # them. A value past what the binding takes (k=2**40) is a bad setting.
    try:
        return call(*args, **settings)
    except (TypeError, OverflowError) as e:
        raise _SettingsError(f"{e}, in the settings {settings or args}") from None


def _check_dedup_settings(**settings: Any) -> None:
    """Raises what :func:`neardup.dedup` raises for these settings, by
    running it over no texts: the same checks (profile, k, threshold,
    verify, keep), the same messages, no Spark job."""
    from neardup import _neardup

    _check_kinds(**settings)
    _library_check(neardup.dedup, [], cluster="components", threads=1, **settings)
    _library_check(_neardup.spark_plan_blocks, settings["k"])


def _name(row: Any) -> str:
    # A row named by a few of its values, each cut short.
    def short(v: Any) -> str:
        text = repr(v)
        return text if len(text) <= 40 else text[:37] + "..."

    named = ", ".join(f"{k}={short(v)}" for k, v in row.asDict().items())
    return f"the row {named}" if named else "a row (no other column to name it)"


def _on_null(df: DataFrame, text_col: str, on_null: str, name_by: List[str]) -> DataFrame:
    """``df`` as ``on_null`` asks: for ``"raise"``, a job that looks for
    one null text (Spark stops at the first it finds; Parquet can skip
    row groups by their null counts) and fails naming its row by the
    columns ``name_by``; for ``"drop"``, the rows with a text; for
    ``"keep"``, as it is."""
    text = F.col(text_col)
    if on_null == "drop":
        return df.where(text.isNotNull())
    if on_null == "raise":
        with _step(df, "checking for null texts"):
            nulls = df.where(text.isNull()).select(*name_by).limit(1).collect()
        for row in nulls:
            raise _InputError(
                f"text column {text_col!r} is null in {_name(row)}; drop or fill those rows, "
                "or give on_null='keep' or on_null='drop'"
            )
    return df


def _check_unique(df: DataFrame, *columns: Tuple[str, str]) -> None:
    """Each row's ``what`` (its id, its order) must be there and its own,
    for each ``(name, what)`` of ``columns``: one aggregation over all of
    them (a pass and a shuffle of their values)."""
    text = {name: isinstance(df.schema[name].dataType, T.StringType) for name, _ in columns}

    def values(name: str, what: str) -> DataFrame:
        # Strings in one column, integers in the other, so that an error
        # shows the value as the user wrote it.
        value = F.col(name)
        return df.select(
            F.lit(what).alias("what"),
            F.lit(name).alias("name"),
            (value if text[name] else F.lit(None).cast("string")).alias("s"),
            (F.lit(None).cast("long") if text[name] else value.cast("long")).alias("n"),
        )

    every = values(*columns[0])
    for more in columns[1:]:
        every = every.unionByName(values(*more))
    counts = every.groupBy("what", "name", "s", "n").agg(F.count(F.lit(1)).alias(_COUNT))
    missing = F.col("s").isNull() & F.col("n").isNull()
    with _step(df, "checking that each " + " and each ".join(w for _, w in columns) + " is there and its own"):
        found = counts.where(missing | (F.col(_COUNT) > 1)).limit(1).collect()
    for what, name, s, n, count in found:
        value = s if text[name] else n
        if value is None:
            rows = "1 row" if count == 1 else f"{count} rows"
            raise _InputError(f"{what} column {name!r} is null in {rows}; give every row its {what}")
        raise _InputError(
            f"{what} column {name!r}: the {what} {value!r} is in {count} rows; give each row its own {what}"
        )


def fingerprint(
    df: DataFrame,
    text_col: str = "text",
    out_col: str = "fingerprint",
    *,
    profile: "_Profile" = "auto",
    on_null: str = "raise",
) -> DataFrame:
    """``df`` with a column ``out_col`` of each text's 64-bit fingerprint
    (a long: the bits, as ``Fingerprinter(profile).fingerprint`` gives
    them, read as a signed 64-bit int).

    Checked on the driver before any task runs: ``text_col`` is a string
    column, ``profile`` is one ``Fingerprinter`` takes, and, for
    ``on_null="raise"`` (the default), no text is null (a job that stops
    at the first null and names its row). ``on_null="keep"`` gives null
    texts a null fingerprint; ``"drop"`` leaves their rows out.

    Raises:
        InputError: a missing or non-string text column, a null text.
        SettingsError: a bad profile or on_null; ``out_col`` taken.
    """
    _check_on_null(on_null)
    _check_kinds(profile=profile)
    _library_check(neardup.Fingerprinter, profile)
    _require_text(df, text_col)
    _refuse_taken(df, out_col)
    # A few other columns name a null text's row.
    df = _on_null(df, text_col, on_null, [c for c in df.columns if c != text_col][:3])
    keep_nulls = on_null == "keep"
    schema = T.StructType(df.schema.fields + [T.StructField(out_col, T.LongType(), keep_nulls)])

    def batches(it: Iterable[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        fp = neardup.Fingerprinter(profile)
        for batch in it:
            texts = batch.column(text_col)
            if keep_nulls and texts.null_count:
                valid = texts.is_valid().to_numpy(zero_copy_only=False)
                bits = np.zeros(len(texts), np.int64)
                bits[valid] = fp.fingerprint_batch(texts.filter(pa.array(valid))).view(np.int64)
                column = pa.array(bits, mask=~valid)
            else:
                column = pa.array(fp.fingerprint_batch(texts).view(np.int64))
            yield pa.RecordBatch.from_arrays(batch.columns + [column], names=batch.schema.names + [out_col])

    return df.mapInArrow(batches, schema)


def _in_runs(df: DataFrame, keys: List[str], work: Callable[[Any, Any], Any], schema: str) -> DataFrame:
    """``df``'s rows gathered by ``keys`` (integer columns), given to
    ``work(batch, offsets)`` whole runs at a time: run ``r`` is rows
    ``offsets[r]`` to ``offsets[r + 1]`` of the Arrow batch, and ``work``
    gives back a batch of ``schema``. One shuffle and a sort within each
    partition, with no object per group: ``collect_list`` aggregates
    partially before its shuffle, copying every list and sorting again once
    a task holds more than a few groups."""

    def runs(it: Iterable[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        carry = None
        for batch in it:
            if carry is not None:
                batch = pa.Table.from_batches([carry, batch]).combine_chunks().to_batches()[0]
            if batch.num_rows == 0:
                continue
            change = np.zeros(batch.num_rows, bool)
            change[0] = True
            for key in keys:
                column = batch.column(key).to_numpy()
                change[1:] |= column[1:] != column[:-1]
            starts = np.flatnonzero(change)
            # The last run may go on in the next batch.
            last = int(starts[-1])
            carry = batch.slice(last)
            if last:
                yield work(batch.slice(0, last), np.append(starts[:-1], last).astype(np.int64))
        if carry is not None and carry.num_rows:
            yield work(carry, np.array([0, carry.num_rows], np.int64))

    return df.repartition(*keys).sortWithinPartitions(*keys).mapInArrow(runs, schema)


def _fingerprint_pairs(fps: DataFrame, k: int) -> DataFrame:
    """Pairs ``(fp_a, fp_b, distance)`` of the distinct fingerprints in
    column ``fp`` of ``fps`` within ``k`` bits, each once: on the driver by
    the CLI's in-memory join while they fit (:data:`_DRIVER_FINGERPRINTS`),
    else by grouping rows (:func:`_keyed_pairs`)."""
    from neardup import _neardup

    with _step(fps, "distinct fingerprints"):
        # One job: all of them, or one more than the driver takes.
        (flat,) = _collect_longs(fps.limit(_DRIVER_FINGERPRINTS + 1), "fp")
    if len(flat) > _DRIVER_FINGERPRINTS:
        return _keyed_pairs(fps, k)
    a, b, d = _neardup.fingerprint_pairs(flat, k)
    return _frame(
        fps.sparkSession,
        {"fp_a": flat[a], "fp_b": flat[b], "distance": d},
        "fp_a long, fp_b long, distance int",
    )


def _keyed_pairs(fps: DataFrame, k: int) -> DataFrame:
    """:func:`_fingerprint_pairs` by grouping rows: each fingerprint goes
    out under its key in each of ``k + 1`` tables, and each ``(table,
    key)`` group's pairs are found in Rust, each pair by the first table it
    shares."""
    from neardup import _neardup

    blocks = _neardup.spark_plan_blocks(k)
    keyed_schema = "table int, key long, fp long"

    def keyed(it: Iterable[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in it:
            fp = batch.column(0).to_numpy()
            rows, tables, keys = _neardup.table_keys(fp, k, blocks)
            yield pa.RecordBatch.from_arrays(
                [pa.array(tables), pa.array(keys), pa.array(fp[rows])], names=["table", "key", "fp"]
            )

    def pairs(batch: Any, offsets: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        flat = batch.column("fp").to_numpy()
        tables = batch.column("table").to_numpy()[offsets[:-1]].astype(np.int32)
        a, b, d = _neardup.pairs_in_groups(tables, offsets, flat, k, blocks)
        fa, fb = flat[a], flat[b]
        return pa.RecordBatch.from_arrays(
            [pa.array(np.minimum(fa, fb)), pa.array(np.maximum(fa, fb)), pa.array(d)],
            names=["fp_a", "fp_b", "distance"],
        )

    keyed_rows = fps.select("fp").mapInArrow(keyed, keyed_schema)
    return _in_runs(keyed_rows, ["table", "key"], pairs, "fp_a long, fp_b long, distance int")


def near_duplicate_pairs(
    df: DataFrame, k: int = 8, *, id_col: str = "id", fp_col: str = "fingerprint"
) -> DataFrame:
    """Every pair of rows of ``df`` whose fingerprints (column ``fp_col``,
    as :func:`fingerprint` makes it) are within ``k`` bits: ``(id_a, id_b,
    distance)`` with ``id_a < id_b``, each pair once. Rows with equal
    fingerprints are pairs at distance 0: n rows of one fingerprint are
    n(n-1)/2 pairs, so collapse exact copies first where they abound
    (:func:`dedup` does). A row with a null fingerprint (``fingerprint(...,
    on_null="keep")``) is in no pair.

    Checked on the driver before any task runs: ``k`` (below 64), the
    columns' types (``fp_col`` long, ``id_col`` string or integer), and
    that the ids are unique and not null: one aggregation over the id
    column, since two rows of one id would merge into one pair's side.

    Raises:
        InputError: a missing column, a wrong type, a null or repeated id.
        SettingsError: a bad ``k``.
    """
    from neardup import _neardup

    _check_kinds(k=k)
    _library_check(_neardup.spark_plan_blocks, k)
    _require_type(df, id_col, "id", *_IDS)
    _require_type(df, fp_col, "fingerprint", (T.LongType,), "a long column, as fingerprint() makes it")
    # Two rows of one id would merge into one side of a pair.
    _check_unique(df, (id_col, "id"))
    ids = df.where(F.col(fp_col).isNotNull()).select(F.col(id_col).alias("id"), F.col(fp_col).alias("fp"))
    pairs = _fingerprint_pairs(ids.select("fp").distinct(), k)
    a, b = ids.alias("a"), ids.alias("b")
    across = (
        pairs.join(a, F.col("a.fp") == F.col("fp_a"))
        .join(b, F.col("b.fp") == F.col("fp_b"))
        .select(F.col("a.id").alias("x"), F.col("b.id").alias("y"), "distance")
    )
    same = (
        a.join(b, (F.col("a.fp") == F.col("b.fp")) & (F.col("a.id") < F.col("b.id")))
        .select(F.col("a.id").alias("x"), F.col("b.id").alias("y"), F.lit(0).alias("distance"))
    )
    return across.unionByName(same).select(
        F.least("x", "y").alias("id_a"), F.greatest("x", "y").alias("id_b"), "distance"
    )


def _components(edges: DataFrame, max_rounds: int) -> DataFrame:
    """``(node, label)`` for every node of the undirected ``edges`` (``u``,
    ``v`` longs): the least node of its connected component.
    Large-star/small-star rounds (Kiveris et al., 2014) until every
    component is a star around its least node."""

    def normal(e: DataFrame, x: str, y: str) -> DataFrame:
        return e.where(F.col(x) != F.col(y)).select(
            F.least(x, y).alias("u"), F.greatest(x, y).alias("v")
        ).distinct()

    e = normal(edges, "u", "v").localCheckpoint()
    count = e.count()
    for _ in range(max_rounds):
        # Large star: each node's larger neighbours to its least neighbour.
        both = e.unionByName(e.select(F.col("v").alias("u"), F.col("u").alias("v")))
        least = both.groupBy("u").agg(F.least(F.min("v"), F.col("u")).alias("m"))
        large = normal(both.join(least, "u").where(F.col("v") > F.col("u")), "v", "m")
        # Small star: each node and its smaller neighbours to the least of them.
        down = large.select(F.col("v").alias("u"), F.col("u").alias("v"))  # v < u
        least = down.groupBy("u").agg(F.min("v").alias("m"))
        spokes = down.join(least, "u").select(F.col("v").alias("x"), "m")
        small = normal(spokes.unionByName(least.select(F.col("u").alias("x"), "m")), "x", "m")
        small = small.localCheckpoint()
        new_count = small.count()
        if new_count == count and small.exceptAll(e).isEmpty():
            break
        e, count = small, new_count
    else:
        raise RuntimeError(f"components did not settle in {max_rounds} rounds; give more max_rounds")
    # A star forest: each edge joins a node to its component's least.
    return e.select(F.col("v").alias("node"), F.col("u").alias("label")).unionByName(
        e.select(F.col("u").alias("node"), F.col("u").alias("label"))
    ).distinct()


def _judged(
    candidates: DataFrame, texts: DataFrame, spec: str, k: int, short_rule: bool, profile: "_Profile"
) -> Any:
    """The ``(u, v)`` of ``candidates`` (units ``u < v`` and their
    fingerprints ``fu``, ``fv``) that the rule calls near-duplicates,
    judged on the texts (``texts``: rank, text) in Rust, per batch: numpy
    arrays on the driver while the pairs fit (:data:`_BROADCAST_PAIRS`),
    else a DataFrame."""
    with _step(candidates, "candidate pairs (by fingerprint and by the short-document rule)"):
        candidates = candidates.localCheckpoint()
        pairs = candidates.count()
    judge = _Judge(spec, k, short_rule, profile)
    with _step(candidates, "verifying the candidate pairs"):
        if pairs <= _BROADCAST_PAIRS:
            return _judged_in_tasks(candidates, texts, judge)
        return _judged_by_joins(candidates, texts, judge).localCheckpoint()


class _Judge:
    """The library's verdict on pairs of texts, as `neardup dedup` gives
    it (the rule every front asks), with this run's settings."""

    def __init__(self, spec: str, k: int, short_rule: bool, profile: "_Profile") -> None:
        self.spec, self.k, self.short_rule, self.profile = spec, k, short_rule, profile

    def __call__(self, a: Any, b: Any, fa: Any, fb: Any) -> Any:
        from neardup import _neardup

        return _neardup.judge_pairs(
            a, b, fa, fb, verify=self.spec, k=self.k, short_rule=self.short_rule, profile=self.profile
        )


def _judged_in_tasks(candidates: DataFrame, texts: DataFrame, judge: _Judge) -> Any:
    """:func:`_judged` with the pairs in every task's memory (a broadcast,
    about 40 bytes a pair): each text is read where it lies and goes out
    once for each pair it is in, through one shuffle that brings a pair's
    two texts together; the pairs that pass come back to the driver."""
    import numpy as np

    u, v, fu, fv = _collect_longs(candidates, "u", "v", "fu", "fv")
    n = len(u)
    ends = np.concatenate([u, v])
    order = np.argsort(ends, kind="stable")
    # End e is pair e % n, its first unit when e < n.
    shared = candidates.sparkSession.sparkContext.broadcast((ends[order], order.astype(np.int64), fu, fv))

    def ended(it: Iterable[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        units, end_of = shared.value[0], shared.value[1]
        for batch in it:
            rank = batch.column(0).to_numpy()
            low = np.searchsorted(units, rank, "left")
            counts = np.searchsorted(units, rank, "right") - low
            rows = np.repeat(np.arange(len(rank)), counts)
            if not len(rows):
                continue
            at = np.repeat(low, counts) + np.arange(len(rows)) - np.repeat(np.cumsum(counts) - counts, counts)
            e = end_of[at]
            yield pa.RecordBatch.from_arrays(
                [pa.array(e % n), pa.array((e >= n).astype(np.int8)), batch.column(1).take(pa.array(rows))],
                names=["pair", "side", "text"],
            )

    def verified(batch: Any, offsets: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        fu, fv = shared.value[2], shared.value[3]
        side, pair = batch.column("side").to_numpy(), batch.column("pair").to_numpy()
        a, b = np.flatnonzero(side == 0), np.flatnonzero(side == 1)
        if len(a) != len(offsets) - 1 or len(b) != len(a):
            raise RuntimeError("neardup: a candidate pair without both of its texts")
        p, text = pair[a], batch.column("text")
        near = judge(text.take(pa.array(a)), text.take(pa.array(b)), fu[p], fv[p])
        return pa.RecordBatch.from_arrays([pa.array(p[near])], names=["pair"])

    rows = texts.mapInArrow(ended, "pair long, side byte, text string")
    (passed,) = _collect_longs(_in_runs(rows, ["pair"], verified, "pair long"), "pair")
    shared.destroy()
    return u[passed], v[passed]


def _judged_by_joins(candidates: DataFrame, texts: DataFrame, judge: _Judge) -> DataFrame:
    """:func:`_judged` by Spark's joins, for more pairs than fit in a
    task's memory: each text joined to the pairs it is in (a shuffle of
    every text), then the two ends of a pair brought together."""
    ends = candidates.select(F.col("u").alias(_UNIT), "u", "v", F.col("fu").alias(_FP)).unionByName(
        candidates.select(F.col("v").alias(_UNIT), "u", "v", F.col("fv").alias(_FP))
    )
    text_col = texts.columns[1]
    ended = texts.select(F.col(_RANK).alias(_UNIT), F.col(text_col).alias("text")).join(ends, _UNIT)

    def verified(batch: Any, offsets: Any) -> Any:
        import numpy as np
        import pyarrow as pa

        # A run is a pair's two ends: the end of unit u, the end of unit v.
        first = batch.column(_UNIT).to_numpy() == batch.column("u").to_numpy()
        a, b = np.flatnonzero(first), np.flatnonzero(~first)
        if len(a) != len(offsets) - 1 or len(b) != len(a):
            raise RuntimeError("neardup: a candidate pair without both of its texts")
        text, prints = batch.column("text"), batch.column(_FP).to_numpy()
        near = judge(text.take(pa.array(a)), text.take(pa.array(b)), prints[a], prints[b])
        return pa.RecordBatch.from_arrays(
            [batch.column("u").take(pa.array(a)), batch.column("v").take(pa.array(a))], names=["u", "v"]
        ).filter(pa.array(near))

    return _in_runs(ended, ["u", "v"], verified, "u long, v long")


def _labels(edges: Any, max_rounds: int, spark: Any) -> DataFrame:
    """``(node, label)`` for every node of ``edges`` (a DataFrame of
    ``u``, ``v`` or two numpy arrays): the least node of its connected
    component. On the driver, by the library's union-find, when the edges
    fit (:data:`_DRIVER_EDGES`); otherwise by :func:`_components` rounds."""
    from neardup import _neardup

    with _step_of(spark, "connected components"):
        if isinstance(edges, DataFrame):
            if edges.count() > _DRIVER_EDGES:
                return _components(edges, max_rounds)
            edges = _collect_longs(edges, "u", "v")
        u, v = edges
        if len(u) > _DRIVER_EDGES:
            return _components(_frame(spark, {"u": u, "v": v}, "u long, v long"), max_rounds)
        nodes, labels = _neardup.least_in_components(u, v)
    return _frame(spark, {"node": nodes, "label": labels}, "node long, label long")


def _collect_longs(df: DataFrame, *columns: str) -> List[Any]:
    """The long columns ``columns`` of ``df``, on the driver, as numpy
    arrays (through Arrow: no Python object per row)."""
    import pyarrow as pa

    schema = pa.schema([(c, pa.int64()) for c in columns])
    batches = df.select(*(F.col(c).cast("long") for c in columns))._collect_as_arrow()
    table = pa.Table.from_batches(batches, schema=schema)
    return [table.column(c).to_numpy() for c in columns]


def _frame(spark: Any, columns: Dict[str, Any], schema: str) -> DataFrame:
    """A DataFrame of the numpy arrays ``columns``, made through Arrow
    (Spark's Arrow conversion on for the call, as it was after it)."""
    import pandas as pd

    key = "spark.sql.execution.arrow.pyspark.enabled"
    was = spark.conf.get(key, "false")
    spark.conf.set(key, "true")
    try:
        frame: DataFrame = spark.createDataFrame(pd.DataFrame(columns), schema)
        return frame
    finally:
        spark.conf.set(key, was)


def _verify_spec(threshold: float, verify: Optional[str]) -> Optional[str]:
    # Checked and written out as neardup.dedup and the CLI read them.
    from neardup import _neardup

    return _neardup.verify_spec(threshold, verify)


def fates(
    df: DataFrame,
    id_col: str = "id",
    text_col: str = "text",
    *,
    threshold: float = 0.8,
    k: int = 8,
    keep: str = "first",
    order_col: Optional[str] = None,
    short_rule: bool = True,
    verify: Optional[str] = None,
    profile: "_Profile" = "auto",
    max_rounds: int = 64,
    on_null: str = "raise",
) -> DataFrame:
    """Every row of ``df`` with two more columns: ``keep`` (boolean) and
    ``duplicate_of`` (the ``id_col`` of the kept row of its group; null
    for kept rows). Settings, checks and errors as :func:`dedup`; with
    ``on_null="keep"``, rows of a null text are kept, never duplicates."""
    from neardup import _neardup

    # Settings, then the schema, then the data: the cheap checks first.
    _check_on_null(on_null)
    _check_kinds(max_rounds=max_rounds)
    _check_dedup_settings(
        threshold=threshold, k=k, keep=keep, short_rule=short_rule, verify=verify, profile=profile
    )
    _require_text(df, text_col)
    _require_type(df, id_col, "id", *_IDS)
    _refuse_taken(df, "keep", "duplicate_of")
    if order_col is not None:
        _require_type(df, order_col, "order", _INTEGERS, "an integer column")
    df = _on_null(df, text_col, on_null, [id_col])
    # duplicate_of names the kept row by its id; a null or repeated one
    # would name none, or two. Ranks name units and components: a repeated
    # or null order would merge rows or lose them without a word.
    _check_unique(df, (id_col, "id"), *([] if order_col is None else [(order_col, "order")]))
    spec = _verify_spec(threshold, verify)
    rule = short_rule and spec is not None
    # The short rule's verification, when it runs (spec is then given).
    short_spec = spec or ""
    alone = rule and _neardup.short_rule_alone(short_spec)

    # A rank in keep order, unique: input order (or order_col), then
    # length for longest and shortest. Ranks follow the sort's partitions.
    if order_col is None:
        df = df.withColumn(_RANK, F.monotonically_increasing_id())
    else:
        df = df.withColumn(_RANK, F.col(order_col).cast("long"))
    if keep != "first":
        size = F.octet_length(text_col)
        df = df.orderBy(size.desc() if keep == "longest" else size.asc(), _RANK).withColumn(
            _RANK, F.monotonically_increasing_id()
        )
    if order_col is None or keep != "first":
        # Ranks drawn from the rows' places would differ in a second
        # reading of the input (the job reads it again for the texts it
        # verifies and for the output): kept as drawn. Ranks of order_col
        # are the data's own, and the input is read again instead.
        with _step(df, "ranks in keep order"):
            df = df.localCheckpoint()
    # The rows the job sees: a null text (on_null="keep") is in no unit,
    # no pair and no component, and comes back kept.
    texted = df.where(F.col(text_col).isNotNull()) if on_null == "keep" else df

    # Each row's fingerprint, short kind and short-rule keys, per batch.
    def sketch(it: Iterable[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        fp = _neardup.Fingerprinter(profile)
        for batch in it:
            texts = batch.column(1)
            bits = fp.fingerprint_batch(texts).view(np.int64)
            kinds = _neardup.short_kinds(texts) if rule else np.zeros(len(bits), np.int8)
            near = np.flatnonzero(kinds > 0)
            rows: Any
            keys: Any
            rows, keys = _neardup.short_rule_keys(texts.take(pa.array(near)), short_spec) if rule else ([], [])
            offsets = np.zeros(len(bits) + 1, np.int64)
            if len(near):
                counts = np.bincount(near[rows], minlength=len(bits)) if len(rows) else np.zeros(len(bits), np.int64)
                offsets[1:] = np.cumsum(counts)
            key_lists = pa.ListArray.from_arrays(pa.array(offsets, pa.int32()), pa.array(keys, pa.int64()))
            yield pa.RecordBatch.from_arrays(
                [batch.column(0), batch.column(2), pa.array(bits), pa.array(kinds), key_lists],
                names=[_RANK, _HASH, _FP, _KIND, _KEYS],
            )

    sketched = texted.select(_RANK, text_col, F.xxhash64(text_col).alias(_HASH)).mapInArrow(
        sketch, f"{_RANK} long, {_HASH} long, {_FP} long, {_KIND} byte, {_KEYS} array<long>"
    )
    # Units: rows with the same fingerprint and text, named by their first rank.
    with _step(df, "fingerprints, short-rule keys and exact copies"):
        docs = sketched.withColumn(_UNIT, F.min(_RANK).over(Window.partitionBy(_FP, _HASH))).localCheckpoint()
    units = docs.where(F.col(_RANK) == F.col(_UNIT)).select(_UNIT, _FP, _KIND, _KEYS)

    # Candidates by fingerprint, among the units the join searches.
    searched = units.where(F.col(_KIND) != 2) if alone else units
    searched = searched.select(F.col(_UNIT).alias("unit"), F.col(_FP).alias("fp"))
    pairs = _fingerprint_pairs(searched.select("fp").distinct(), k)
    a, b = searched.alias("a"), searched.alias("b")
    # Candidates are (x, y, fx, fy): two units and their fingerprints.
    ends = [F.col("a.unit").alias("x"), F.col("b.unit").alias("y"), F.col("a.fp").alias("fx"), F.col("b.fp").alias("fy")]
    candidates = (
        pairs.join(a, F.col("a.fp") == F.col("fp_a"))
        .join(b, F.col("b.fp") == F.col("fp_b"))
        .select(*ends)
        .unionByName(a.join(b, (F.col("a.fp") == F.col("b.fp")) & (F.col("a.unit") < F.col("b.unit"))).select(*ends))
    )
    # Candidates by the short-document rule: units that share a key, one short.
    if rule:
        keyed = units.where(F.col(_KIND) > 0).select(
            F.explode(_KEYS).alias("key"),
            F.col(_UNIT).alias("unit"),
            (F.col(_KIND) == 2).alias("short"),
            F.col(_FP).alias("fp"),
        )

        def short_pairs(batch: Any, offsets: Any) -> Any:
            import numpy as np
            import pyarrow as pa

            units_, prints = batch.column("unit").to_numpy(), batch.column("fp").to_numpy()
            short = batch.column("short").to_numpy(zero_copy_only=False).astype(bool)
            x, y = _neardup.short_pairs_in_groups(offsets, units_, short)
            # Each unit's fingerprint, from its row in this batch.
            order = np.argsort(units_, kind="stable")
            fx, fy = (prints[order[np.searchsorted(units_[order], z)]] for z in (x, y))
            return pa.RecordBatch.from_arrays(
                [pa.array(x), pa.array(y), pa.array(fx), pa.array(fy)], names=["x", "y", "fx", "fy"]
            )

        candidates = candidates.unionByName(
            _in_runs(keyed, ["key"], short_pairs, "x long, y long, fx long, fy long")
        )
    first = F.col("x") < F.col("y")
    candidates = candidates.select(
        F.least("x", "y").alias("u"),
        F.greatest("x", "y").alias("v"),
        F.when(first, F.col("fx")).otherwise(F.col("fy")).alias("fu"),
        F.when(first, F.col("fy")).otherwise(F.col("fx")).alias("fv"),
    ).distinct()

    # Judged by the rule of `neardup dedup` (the library's, as every front
    # asks it) on the texts and fingerprints of the units' first rows.
    if spec is not None:
        candidates = _judged(candidates, texted.select(_RANK, text_col), spec, k, short_rule, profile)

    labels = _labels(candidates, max_rounds, df.sparkSession)
    ranked = (
        docs.select(_RANK, _UNIT)
        .join(labels.withColumnRenamed("node", _UNIT), _UNIT, "left")
        .select(_RANK, F.coalesce("label", _UNIT).alias(_LABEL))
    )
    ids = df.select(F.col(_RANK).alias(_LABEL), F.col(id_col).alias("duplicate_of"))
    fated = ranked.join(ids, _LABEL).select(
        _RANK, (F.col(_RANK) == F.col(_LABEL)).alias("keep"), "duplicate_of"
    )
    fated = fated.withColumn("duplicate_of", F.when(F.col("keep"), F.lit(None)).otherwise(F.col("duplicate_of")))
    if on_null != "keep":
        return df.join(fated, _RANK).drop(_RANK)
    fated = df.join(fated, _RANK, "left").drop(_RANK)
    return fated.withColumn("keep", F.coalesce("keep", F.lit(True)))


def dedup(
    df: DataFrame,
    id_col: str = "id",
    text_col: str = "text",
    *,
    threshold: float = 0.8,
    k: int = 8,
    keep: str = "first",
    order_col: Optional[str] = None,
    short_rule: bool = True,
    verify: Optional[str] = None,
    profile: "_Profile" = "auto",
    out: Optional[str] = None,
    max_rounds: int = 64,
    on_null: str = "raise",
) -> DataFrame:
    """The rows of ``df`` that ``neardup dedup --cluster components``
    keeps, with every column: near-duplicates (Jaccard similarity of
    shingles at least ``threshold``; candidates within ``k`` bits, and any
    distance for short texts) grouped by connected components, each group
    kept by its first row in keep order. Keep order is input order (or the
    integer column ``order_col``, unique), by length first for ``keep=
    "longest"`` or ``"shortest"``. ``verify`` replaces the threshold as in
    :func:`neardup.dedup`. With ``out``, the kept rows are also written
    there as Parquet (a new directory).

    Checked on the driver before any task runs, in this order:

    - the settings, by :func:`neardup.dedup`'s own checks (run over no
      texts), so the errors are its errors; ``on_null`` and ``max_rounds``;
    - the schema: ``text_col`` a string column, ``id_col`` a string or
      integer column, ``order_col`` an integer column;
    - null texts, as ``on_null`` says: ``"raise"`` (the default) runs a
      job that stops at the first null text it finds and names its id;
      ``"keep"`` keeps those rows, never duplicates of anything;
      ``"drop"`` leaves them out of the output;
    - the ids: unique and not null, by one aggregation over the id column
      (a pass over it and a shuffle of the ids), since ``duplicate_of``
      names a row by its id; ``order_col`` the same way when given.

    Raises:
        InputError: a missing column or one of the wrong type, a null
            text (``on_null="raise"``), a null or repeated id or order.
        SettingsError: a setting :func:`neardup.dedup` refuses, a bad
            ``on_null`` or ``max_rounds``; ``keep`` or ``duplicate_of``
            already a column (:func:`fates` adds them).

    Memory per task stays bounded: exact copies (same fingerprint, same
    text) are one row in every join, and a key's group holds fingerprints
    that differ."""
    kept = fates(
        df,
        id_col,
        text_col,
        threshold=threshold,
        k=k,
        keep=keep,
        order_col=order_col,
        short_rule=short_rule,
        verify=verify,
        profile=profile,
        max_rounds=max_rounds,
        on_null=on_null,
    )
    kept = kept.where("keep").drop("keep", "duplicate_of")
    if out is not None:
        kept.write.parquet(out)
    return kept
