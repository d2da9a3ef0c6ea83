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

from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional

from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

import neardup

if TYPE_CHECKING:
    from neardup._result import _Profile

from neardup._spark_checks import (
    _IDS,
    _INTEGERS,
    _check_dedup_settings,
    _check_kinds,
    _check_on_null,
    _check_unique,
    _library_check,
    _on_null,
    _refuse_taken,
    _require_text,
    _require_type,
)
from neardup._spark_steps import (
    _FP,
    _HASH,
    _KEYS,
    _KIND,
    _LABEL,
    _RANK,
    _UNIT,
    _fingerprint_pairs,
    _in_runs,
    _judged,
    _labels,
    _step,
)

__all__ = ["dedup", "fates", "fingerprint", "near_duplicate_pairs"]

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
    - the ids: unique and not null, by one aggregation of their 64-bit
      hashes (a pass over the id column and a shuffle of 12 bytes an id;
      the ids themselves are counted only when two hashes meet, to name
      the repeated one), since ``duplicate_of``
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
