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
- :func:`dedup`: the kept rows, with every column. One pass over the
  input fingerprints every row (and hashes its text and id); rows with the
  same fingerprint and text are taken as one unit (a text seen a million
  times is one row in the joins), candidate pairs of units come from the
  fingerprint join and the short-document rule, each is verified on the
  texts (the library's rule: Jaccard of shingles, as the CLI), and
  connected components of the verified pairs keep their first row in keep
  order: the CLI's ``--cluster components``. While the rows' sketches
  (and their candidate pairs) fit on the driver, units, candidates and
  components are found there, as the CLI finds them in one process, and
  the texts of the candidate pairs are judged there while they fit too;
  past that, by Spark's joins and large-star/small-star iterations.

Each function checks, first, what a task would otherwise fail on minutes
later, naming a place in an Arrow batch: settings (by the library's own
checks) and column types on the driver before any job; null texts (as
``on_null`` says) and, where rows are named by id, unique ids, in the
first pass over the data before any other work (:func:`dedup`,
:func:`fates`) or by a job of their own first (:func:`fingerprint`,
:func:`near_duplicate_pairs`). Bad input raises
``neardup.InputError``, bad settings ``neardup.SettingsError`` (both
:class:`neardup.NeardupError`, a ``ValueError``).

>>> from neardup import spark as nds           # doctest: +SKIP
>>> kept = nds.dedup(df, id_col="id", text_col="text")  # doctest: +SKIP
>>> kept.write.parquet("s3://bucket/deduplicated")      # doctest: +SKIP
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, Iterable, Iterator, Optional

import numpy as np
from pyspark.sql import DataFrame, Window
from pyspark.sql import functions as F
from pyspark.sql import types as T

import neardup

if TYPE_CHECKING:
    from neardup._result import _Profile

from neardup import _spark_gathered as _gathered
from neardup import _spark_steps as _steps
from neardup._spark_checks import (
    _IDS,
    _INTEGERS,
    _check_dedup_settings,
    _check_kinds,
    _check_on_null,
    _check_unique,
    _hashed,
    _library_check,
    _name_null_text,
    _name_repeated,
    _on_null,
    _refuse_taken,
    _require_text,
    _require_type,
    _suspect,
)
from neardup._spark_steps import (
    _BYTES,
    _FP,
    _HASH,
    _ID_HASH,
    _KEYS,
    _KIND,
    _LABEL,
    _ORDER,
    _RANK,
    _UNIT,
    _fingerprint_pairs,
    _Judge,
    _judged,
    _labels,
    _short_pairs,
    _step,
    _verified,
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
    if on_null == "drop":
        df = df.where(F.col(text_col).isNotNull())
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

    # Each row's fingerprint, short kind (-1: a null text) and short-rule
    # keys, per batch, with the hashes of its text and id passed through.
    def sketch(it: Iterable[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa
        import pyarrow.compute as pc

        fp = _neardup.Fingerprinter(profile)
        for batch in it:
            texts = batch.column(1)
            null = None
            if texts.null_count:
                null = texts.is_null().to_numpy(zero_copy_only=False)
                texts = pc.fill_null(texts, "")
            bits, kinds, offsets, keys = _neardup.sketch_rows(fp, texts, short_spec if rule else None)
            if null is not None:
                # A null text (read as "") is kind -1 and has no keys.
                kinds[null] = -1
                counts = np.diff(offsets)
                keys = keys[np.repeat(~null, counts)]
                offsets[1:] = np.cumsum(np.where(null, 0, counts))
            key_lists = pa.ListArray.from_arrays(pa.array(offsets), pa.array(keys))
            passed = [batch.column(0)] + batch.columns[2:]
            yield pa.RecordBatch.from_arrays(
                passed + [pa.array(bits), pa.array(kinds), pc.binary_length(texts), key_lists],
                names=[batch.schema.names[0]] + batch.schema.names[2:] + [_FP, _KIND, _BYTES, _KEYS],
            )

    # One pass over the input; every later step reads its checkpoint, and
    # the input again only for the texts of candidate pairs and the output.
    # Null texts are sketched too (kind -1), so that on_null="keep" rows
    # have their ids checked with the others.
    passed = [F.xxhash64(text_col).alias(_HASH), _hashed(df, id_col).alias(_ID_HASH)]
    # The order, checked as the id is: the rank itself in input order.
    order = None if order_col is None else (_RANK if keep == "first" else _ORDER)
    if order == _ORDER and order_col is not None:
        passed.append(_hashed(df, order_col).alias(_ORDER))
    sketched = df.select(_RANK, text_col, *passed).mapInArrow(
        sketch,
        f"{_RANK} long, {_HASH} long, {_ID_HASH} long, "
        + (f"{_ORDER} long, " if order == _ORDER else "")
        + f"{_FP} long, {_KIND} byte, {_BYTES} int, {_KEYS} array<long>",
    )
    with _step(df, "fingerprints, short-rule keys and hashes of every row"):
        sketched = sketched.localCheckpoint()
    gathered = _gathered.gather(sketched, order == _ORDER)
    _check_sketched(df, sketched, gathered, id_col, text_col, order_col, order, on_null)
    texts = df.where(F.col(text_col).isNotNull()).select(_RANK, text_col)
    if on_null == "keep":
        sketched = sketched.where(F.col(_KIND) >= 0)
    judge = None if spec is None else _Judge(spec, k, short_rule, profile)
    if gathered is not None:
        if on_null == "keep":
            gathered = _gathered.with_text(gathered)
        fated = _fates_gathered(df, sketched, gathered, id_col, texts, judge, k, rule, alone)
        if fated is not None:
            return fated
        gathered = None  # not held while Spark's joins run
    return _fates_by_spark(df, sketched, id_col, texts, judge, k, rule, alone, max_rounds, on_null)


def _fates_by_spark(
    df: DataFrame,
    sketched: DataFrame,
    id_col: str,
    texts: DataFrame,
    judge: Optional[_Judge],
    k: int,
    rule: bool,
    alone: bool,
    max_rounds: int,
    on_null: str,
) -> DataFrame:
    """:func:`fates` past its first pass, for more rows than the driver
    gathers: every step a Spark job (or the driver's, each while its own
    data fits there)."""
    # Units: rows with the same fingerprint and text, named by their first rank.
    with _step(df, "exact copies"):
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
        candidates = candidates.unionByName(_short_pairs(_keyed(units.withColumnRenamed(_UNIT, _RANK))))
    first = F.col("x") < F.col("y")
    candidates = candidates.select(
        F.least("x", "y").alias("u"),
        F.greatest("x", "y").alias("v"),
        F.when(first, F.col("fx")).otherwise(F.col("fy")).alias("fu"),
        F.when(first, F.col("fy")).otherwise(F.col("fx")).alias("fv"),
    ).distinct()

    # Judged by the rule of `neardup dedup` (the library's, as every front
    # asks it) on the texts and fingerprints of the units' first rows.
    if judge is not None:
        with _step(df, "the texts' mean length, to size the shuffle of texts"):
            (mean,) = sketched.agg(F.avg(_BYTES)).collect()[0]
        text_bytes = float(mean or 0.0)
        candidates = _judged(candidates, texts, judge, text_bytes)

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


def _keyed(units: DataFrame) -> DataFrame:
    """A row per short-rule key of each near-short unit of ``units`` (rows
    of the sketch, by their rank), as :func:`_short_pairs` reads them."""
    return units.where(F.col(_KIND) > 0).select(
        F.explode(_KEYS).alias("key"),
        F.col(_RANK).alias("unit"),
        (F.col(_KIND) == 2).alias("short"),
        F.col(_FP).alias("fp"),
    )


def _check_sketched(
    df: DataFrame,
    sketched: DataFrame,
    gathered: Optional[_gathered.Sketches],
    id_col: str,
    text_col: str,
    order_col: Optional[str],
    order: Optional[str],
    on_null: str,
) -> None:
    """What the first pass found out of place, said before any other work:
    a null text (``on_null="raise"``), a null or repeated id or order (the
    sketch's column ``order`` holds the order: its rank in input order,
    else its hash); by the gathered
    arrays, or by one job over the checkpoint. The row or value is named
    from the input, only when something was found."""
    if on_null == "raise":
        if gathered is not None:
            null = bool(np.any(gathered.kind == -1))
        else:
            with _step(df, "checking for null texts"):
                null = bool(sketched.where(F.col(_KIND) == -1).limit(1).collect())
        if null:
            _name_null_text(df, text_col, [id_col])
    columns = [(id_col, "id")] + ([] if order_col is None else [(order_col, "order")])
    if gathered is not None:
        orders = {_RANK: gathered.rank, _ORDER: gathered.order}.get(order or "")
        suspect = not _gathered.unique(gathered.id_hash) or (orders is not None and not _gathered.unique(orders))
    else:
        hashes = [sketched.select(F.col(_ID_HASH).alias("h"))]
        if order is not None:
            hashes.append(sketched.select(F.col(order).alias("h")))
        with _step(df, "checking that each " + " and each ".join(w for _, w in columns) + " is there and its own"):
            suspect = _suspect(hashes)
    if suspect:
        _name_repeated(df, tuple(columns))


def _fates_gathered(
    df: DataFrame,
    sketched: DataFrame,
    s: _gathered.Sketches,
    id_col: str,
    texts: DataFrame,
    judge: Optional[_Judge],
    k: int,
    rule: bool,
    alone: bool,
) -> Optional[DataFrame]:
    """:func:`fates` past its first pass, for rows gathered on the driver:
    exact copies, candidate pairs and components there, the texts of the
    candidate pairs verified on the driver or in the executors. None when
    the candidate pairs are too many to make there (the job goes on by
    Spark's joins)."""
    from neardup import _neardup

    with _step(df, "candidate pairs (by fingerprint and by the short-document rule)"):
        unit = _gathered.units(s)
        own = s.rank == unit
        searched = own & (s.kind != 2) if alone else own
        # The fingerprint join (Rust, no Spark job) runs while Spark
        # gathers the short-rule keys.
        with ThreadPoolExecutor(1) as beside:
            by_fingerprint = beside.submit(_gathered.fingerprint_candidates, s.rank[searched], s.fp[searched], k)
            pairs = [_gathered.short_candidates(sketched, s, unit)] if rule else []
            pairs.append(by_fingerprint.result())
        made = [p for p in pairs if p is not None]
        if len(made) < len(pairs):
            return None
        u, v, fu, fv = _gathered.distinct_pairs(made, s.rank[own], s.fp[own])
    if judge is not None:
        u, v = _verified(u, v, fu, fv, texts, judge, s.rank, s.text_bytes)
    with _step(df, "connected components"):
        nodes, labels = _neardup.least_in_components(u, v)
        ranks, kept = _gathered.dropped(s.rank, unit, nodes, labels)
    return _gathered.fates_of(df, id_col, ranks, kept, len(ranks) <= _steps._BROADCAST_FATES)


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

    Checked in this order, the settings and the schema on the driver
    before any Spark job, the data in the first pass over it (the one that
    fingerprints every row) before any other work:

    - the settings, by :func:`neardup.dedup`'s own checks (run over no
      texts), so the errors are its errors; ``on_null`` and ``max_rounds``;
    - the schema: ``text_col`` a string column, ``id_col`` a string or
      integer column, ``order_col`` an integer column;
    - null texts, as ``on_null`` says: ``"raise"`` (the default) fails
      naming the id of a row whose text is null; ``"keep"`` keeps those
      rows, never duplicates of anything; ``"drop"`` leaves them out of
      the output;
    - the ids: unique and not null, by their 64-bit hashes (taken in the
      first pass; sorted on the driver, or counted by one aggregation when
      the rows are too many to gather there; the ids themselves are
      counted only when two hashes meet, to name the repeated one), since
      ``duplicate_of`` names a row by its id; ``order_col`` the same way
      when given.

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
