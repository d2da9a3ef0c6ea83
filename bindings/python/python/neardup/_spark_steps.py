"""The steps of :mod:`neardup.spark`'s job past its checks: gathering
rows by key (:func:`_in_runs`), the fingerprint join, the verdicts on
candidate pairs and the connected components, each on the driver or in
every task's memory where the data fits, else by Spark's shuffles."""

from __future__ import annotations

from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

if TYPE_CHECKING:
    from neardup._result import _Profile

# Helper columns, named so as not to meet a user's.
_RANK = "__neardup_rank"
_FP = "__neardup_fp"
_HASH = "__neardup_hash"
_KIND = "__neardup_kind"
_KEYS = "__neardup_keys"
_UNIT = "__neardup_unit"
_LABEL = "__neardup_label"
_COUNT = "__neardup_count"
_ID_HASH = "__neardup_id_hash"
_ORDER = "__neardup_order"
_BYTES = "__neardup_bytes"

# Where the data fits, the driver or every task's memory does what a shuffle
# would. Candidate pairs up to this many go to every Python worker (a
# broadcast of numpy arrays, 48 bytes a pair: 240 MB at most), so that each
# text is read where it lies and goes through one shuffle, once per pair it
# is in; above it, the texts are joined by a sort-merge join (every text
# shuffled).
_BROADCAST_PAIRS = 5_000_000

# The texts of candidate pairs (each unit's once), up to this many bytes in
# all, are judged on the driver: fetched through Arrow by a scan and a
# broadcast join, no Python in the executors and no shuffle (512 MB at
# most through Spark, within the default spark.driver.maxResultSize of
# 1 GB; in the driver's Python, the texts and their verification
# sketches, 8 bytes a shingle: about 1.3 times the texts' bytes in English,
# up to 3 times in Chinese or Japanese). Beyond it, each text goes out once
# per pair it is in, through a shuffle.
_DRIVER_TEXT_BYTES = 512 << 20

# Verified pairs up to this many are grouped on the driver (16 bytes each,
# the library's union-find: 160 MB at most, within Spark's default driver
# memory and result size); beyond it by large-star/small-star rounds.
_DRIVER_EDGES = 10_000_000

# Rows up to this many have their sketches gathered on the driver (about
# 45 bytes a row: 450 MB at most, within Spark's default
# spark.driver.maxResultSize of 1 GB), where exact copies, candidate pairs
# and components are found as the CLI finds them; beyond it every step is
# a Spark job.
_DRIVER_ROWS = 10_000_000

# Candidate pairs of units up to this many, by fingerprint and by the
# short-document rule each, are made on the driver where the rows are
# gathered (counted first from the sizes of the groups they come from:
# about 64 bytes a pair at the peak, while they are sorted, 1.3 GB at
# most); beyond it, as where the rows are not gathered, by Spark's joins.
_DRIVER_PAIRS = 20_000_000

# Short-rule keys up to this many (of the gathered rows' near-short rows,
# exact copies included) are gathered on the driver (8 bytes a key through
# Spark: 480 MB at most, within the default spark.driver.maxResultSize of
# 1 GB; about 60 bytes a key in the driver's Python at the peak, while
# they are sorted: 3.6 GB at most) and grouped there; beyond it by a
# shuffle of the keys.
_DRIVER_KEYS = 60_000_000

# A frame made of driver arrays (_frame) gets a partition, and a broadcast,
# for each this many rows.
_FRAME_PART_ROWS = 1 << 20

# A shuffle of texts gets a partition for each this many bytes (or
# spark.sql.shuffle.partitions, if more), so that each task sorts what fits
# in an executor's memory instead of spilling it to disk.
_SHUFFLE_PARTITION_BYTES = 64 << 20

# Dropped rows up to this many are joined to the input by a broadcast (a
# scan of the input, no shuffle; about 50 bytes a row in each executor);
# beyond it by a shuffle join.
_BROADCAST_FATES = 5_000_000

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


def _in_runs(
    df: DataFrame, keys: List[str], work: Callable[[Any, Any], Any], schema: str, partitions: int = 0
) -> DataFrame:
    """``df``'s rows gathered by ``keys`` (integer columns), given to
    ``work(batch, offsets)`` whole runs at a time: run ``r`` is rows
    ``offsets[r]`` to ``offsets[r + 1]`` of the Arrow batch, and ``work``
    gives back a batch of ``schema``. One shuffle (into ``partitions``, or
    spark.sql.shuffle.partitions) and a sort within each partition, with no
    object per group: ``collect_list`` aggregates partially before its
    shuffle, copying every list and sorting again once a task holds more
    than a few groups."""

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

    gathered = df.repartition(partitions, *keys) if partitions else df.repartition(*keys)
    return gathered.sortWithinPartitions(*keys).mapInArrow(runs, schema)


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


def _short_pairs(keyed: DataFrame) -> DataFrame:
    """The short-document rule's pairs ``(x, y, fx, fy)`` of the units in
    ``keyed`` (``key``, ``unit``, ``short``, ``fp``: a row per key of a
    near-short unit), by a shuffle of the keys: two units that share a
    key, one of them short; a pair once for each key they share."""
    from neardup import _neardup

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

    return _in_runs(keyed, ["key"], short_pairs, "x long, y long, fx long, fy long")


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


def _judged(candidates: DataFrame, texts: DataFrame, judge: "_Judge", text_bytes: float) -> Any:
    """The ``(u, v)`` of ``candidates`` (units ``u < v`` and their
    fingerprints ``fu``, ``fv``) that the rule calls near-duplicates,
    judged on the texts (``texts``: rank, text; ``text_bytes`` the mean
    length of one) in Rust, a partition or a run of a pair's ends at a
    time: numpy arrays on the driver while the pairs fit
    (:data:`_BROADCAST_PAIRS`), else a DataFrame."""
    with _step(candidates, "candidate pairs (by fingerprint and by the short-document rule)"):
        candidates = candidates.localCheckpoint()
        pairs = candidates.count()
    with _step(candidates, "verifying the candidate pairs"):
        if pairs <= _BROADCAST_PAIRS:
            u, v, fu, fv = _collect_longs(candidates, "u", "v", "fu", "fv")
            return _judged_in_tasks(u, v, fu, fv, texts, judge, _partitions(pairs, text_bytes))
        return _judged_by_joins(candidates, texts, judge).localCheckpoint()


def _verified(u: Any, v: Any, fu: Any, fv: Any, texts: DataFrame, judge: "_Judge", ranks: Any, sizes: Any) -> Any:
    """:func:`_judged` for candidate pairs on the driver (arrays ``u < v``
    of units, ``fu``, ``fv`` their fingerprints; ``ranks`` and ``sizes``
    the gathered rows' ranks and text lengths in bytes): the pairs that
    pass, as arrays."""
    import numpy as np

    units = np.unique(np.concatenate([u, v]))
    by_rank = np.argsort(ranks)
    sorted_ranks, sorted_sizes = ranks[by_rank], sizes[by_rank]

    def size(of: Any) -> int:
        return int(sorted_sizes[np.searchsorted(sorted_ranks, of)].sum())

    wanted_bytes = size(units)
    # The mean length of a pair's end, to size the shuffle of texts.
    text_bytes = (size(u) + size(v)) / (2 * len(u)) if len(u) else 0.0
    with _step(texts, "verifying the candidate pairs"):
        if wanted_bytes <= _DRIVER_TEXT_BYTES:
            return _judged_on_driver(u, v, fu, fv, units, texts, judge)
        if len(u) <= _BROADCAST_PAIRS:
            return _judged_in_tasks(u, v, fu, fv, texts, judge, _partitions(len(u), text_bytes))
        pairs = _frame(texts.sparkSession, {"u": u, "v": v, "fu": fu, "fv": fv}, "u long, v long, fu long, fv long")
        return _collect_longs(_judged_by_joins(pairs, texts, judge), "u", "v")


def _judged_on_driver(u: Any, v: Any, fu: Any, fv: Any, units: Any, texts: DataFrame, judge: "_Judge") -> Any:
    """:func:`_verified` with the texts of ``units`` (the pairs' units,
    ascending) fetched to the driver, each once, and the pairs judged there
    (the library's judge, on every core of the driver)."""
    import numpy as np
    import pyarrow as pa

    if len(u) == 0:
        return u, v
    rank_col, text_col = texts.columns[:2]
    wanted = _frame(texts.sparkSession, {rank_col: units}, f"{rank_col} long")
    picked = texts.join(F.broadcast(wanted), rank_col).select(rank_col, text_col)
    batches = picked._collect_as_arrow()
    table = pa.Table.from_batches(batches) if batches else None
    ranks = np.empty(0, np.int64) if table is None else table.column(0).to_numpy()
    order = np.argsort(ranks, kind="stable")
    if table is None or len(ranks) != len(units) or np.any(ranks[order] != units):
        raise RuntimeError("neardup: a candidate pair without both of its texts")
    a, b = order[np.searchsorted(units, u)], order[np.searchsorted(units, v)]
    prints = np.zeros(len(units), np.int64)
    prints[a], prints[b] = fu, fv
    near = judge(table.column(1), prints, a, b)
    return u[near], v[near]


def _partitions(pairs: int, text_bytes: float) -> int:
    """How many partitions the texts of ``pairs`` candidate pairs (two a
    pair, ``text_bytes`` each on average) go to: one for each
    :data:`_SHUFFLE_PARTITION_BYTES`."""
    return int(2 * pairs * text_bytes // _SHUFFLE_PARTITION_BYTES) + 1


class _Judge:
    """The library's verdict on pairs of texts, as `neardup dedup` gives
    it (the rule every front asks), with this run's settings."""

    def __init__(self, spec: str, k: int, short_rule: bool, profile: "_Profile") -> None:
        self.spec, self.k, self.short_rule, self.profile = spec, k, short_rule, profile

    def __call__(self, texts: Any, fingerprints: Any, a: Any, b: Any) -> Any:
        """Whether each pair ``(texts[a[i]], texts[b[i]])`` is near
        (``fingerprints[j]`` is text ``j``'s)."""
        import numpy as np

        from neardup import _neardup

        a, b, fingerprints = (np.ascontiguousarray(x, np.int64) for x in (a, b, fingerprints))
        return _neardup.judge_pairs(
            texts, fingerprints, a, b, verify=self.spec, k=self.k, short_rule=self.short_rule, profile=self.profile
        )


def _judged_in_tasks(
    u: Any, v: Any, fu: Any, fv: Any, texts: DataFrame, judge: _Judge, partitions: int = 0
) -> Any:
    """:func:`_judged` with the pairs ``(u, v)`` (arrays, fingerprints
    ``fu``, ``fv``) in every task's memory (a broadcast, 48 bytes a pair):
    the texts of the units in a pair are picked where they lie (a
    broadcast join in the JVM, so no other text goes to Python) and go out
    once for each pair they are in, through one shuffle that brings a
    pair's two texts together; the pairs that pass come back to the
    driver. The shuffle has ``partitions`` if more than Spark's own."""
    import numpy as np

    n = len(u)
    if n == 0:
        return u, v
    # Databricks' spark.sql.shuffle.partitions may be "auto".
    spark_own = texts.sparkSession.conf.get("spark.sql.shuffle.partitions") or ""
    base = int(spark_own) if spark_own.isdigit() else texts.sparkSession.sparkContext.defaultParallelism
    partitions = max(partitions, base)
    ends = np.concatenate([u, v])
    order = np.argsort(ends, kind="stable")
    # End e is pair e % n, its first unit when e < n.
    shared = texts.sparkSession.sparkContext.broadcast((ends[order], order.astype(np.int64), fu, fv))
    rank_col, text_col = texts.columns[:2]
    wanted = _frame(texts.sparkSession, {rank_col: np.unique(ends)}, f"{rank_col} long")

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

    def verified(it: Iterable[Any]) -> Iterator[Any]:
        import numpy as np
        import pyarrow as pa

        # A partition whole (a few tens of MB: partitions are sized by
        # bytes), its pairs' two ends found by a sort here rather than by
        # Spark's sort of every row with its text.
        batches = [b for b in it if b.num_rows]
        if not batches:
            return
        rows = pa.Table.from_batches(batches).combine_chunks()
        fu, fv = shared.value[2], shared.value[3]
        side, pair = rows.column("side").to_numpy(), rows.column("pair").to_numpy()
        order = np.lexsort((side, pair))
        a, b = order[0::2], order[1::2]
        if len(a) != len(b) or np.any(pair[a] != pair[b]) or np.any(side[a] != 0) or np.any(side[b] != 1):
            raise RuntimeError("neardup: a candidate pair without both of its texts")
        prints = np.where(side == 0, fu[pair], fv[pair])
        near = judge(rows.column("text"), prints, a, b)
        yield pa.RecordBatch.from_arrays([pa.array(pair[a][near])], names=["pair"])

    picked = texts.join(F.broadcast(wanted), rank_col).select(rank_col, text_col)
    rows = picked.mapInArrow(ended, "pair long, side byte, text string").repartition(partitions, "pair")
    try:
        (passed,) = _collect_longs(rows.mapInArrow(verified, "pair long"), "pair")
    finally:
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
        near = judge(batch.column("text"), batch.column(_FP).to_numpy(), a, b)
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
    """A DataFrame of the numpy arrays ``columns`` (of the DDL ``schema``):
    each of a range's partitions makes its slice of the arrays, sent to it
    as a broadcast of its own, into Arrow. (``createDataFrame`` of a pandas
    frame ships the rows inside the tasks: 5.8 s to make a frame of 4.5
    million longs and 16.8 s to join it to 2·10⁷ rows, against 0.2 s and
    3.5 s; bench/spark_frames.py.) The broadcasts live as long as the
    frame's plan."""
    from pyspark.sql.pandas.types import to_arrow_schema
    from pyspark.sql.types import _parse_datatype_string

    struct = _parse_datatype_string(schema)
    if not isinstance(struct, T.StructType):
        raise TypeError(f"not a row's schema: {schema}")
    types = to_arrow_schema(struct)
    arrays = [columns[name] for name in types.names]
    rows = len(arrays[0]) if arrays else 0
    parts = max(1, min(rows // _FRAME_PART_ROWS + 1, 64))
    bounds = [(rows * p // parts, rows * (p + 1) // parts) for p in range(parts)]
    shares = [spark.sparkContext.broadcast([a[start:end] for a in arrays]) for start, end in bounds]

    def sliced(it: Iterable[Any]) -> Iterator[Any]:
        import pyarrow as pa

        for batch in it:
            for part in batch.column(0).to_pylist():
                yield pa.RecordBatch.from_arrays(
                    [pa.array(a, type=f.type) for a, f in zip(shares[part].value, types)], schema=types
                )

    frame: DataFrame = spark.range(0, parts, numPartitions=parts).mapInArrow(sliced, schema)
    return frame
