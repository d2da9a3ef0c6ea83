"""The middle of :func:`neardup.spark.fates` on the driver, for a corpus
whose rows' sketches fit there (:data:`_DRIVER_ROWS`): the checks of ids
and orders, the exact copies, the candidate pairs and, at the end, the
kept row each dropped row names, from numpy arrays, as the CLI does them
in one process. Spark still reads the input (once for the sketches,
once for the texts of the candidate pairs, fetched to the driver while
they fit, once for the rank and id columns of the kept rows) and writes
the fates; what would have been a shuffle of every row for each step is
a sort on the driver.

A sketched row is what the first pass over the input makes of it (the
frame the job checkpoints): its rank, the 64-bit hashes of its id and
text, its order (when keep order is not input order), its fingerprint,
its short kind (-1 for a null text), its text's length in bytes and its
short-rule keys (how many, on the driver)."""

from __future__ import annotations

from typing import Any, Dict, Iterable, Iterator, List, NamedTuple, Optional, Tuple

import numpy as np
from pyspark.sql import DataFrame
from pyspark.sql import functions as F

# The limits are read from the module when used (tests set them).
from neardup import _spark_steps as _steps
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
    _frame,
    _step,
)

# Pairs of units: two arrays of ranks.
Pairs = Tuple[Any, Any]


class Sketches(NamedTuple):
    """The sketched rows on the driver, one array per column, aligned."""

    rank: Any
    id_hash: Any
    order: Optional[Any]
    text_hash: Any
    fp: Any
    kind: Any
    text_bytes: Any
    keys: Any


def gather(sketched: DataFrame, with_order: bool) -> Optional[Sketches]:
    """The sketched rows, on the driver, if there are at most
    :data:`_DRIVER_ROWS` of them (counted first, from the checkpoint)."""
    with _step(sketched, "gathering the sketches on the driver"):
        if sketched.count() > _steps._DRIVER_ROWS:
            return None
        columns = [_RANK, _ID_HASH] + ([_ORDER] if with_order else []) + [_HASH, _FP, _KIND, _BYTES]
        picked = sketched.select(*columns, F.size(_KEYS).alias(_KEYS))
        table = _collected(picked, _schema(columns))
    arrays: Dict[str, Any] = {}
    for name in table.column_names:
        column = table.column(name)
        # A column with a null (an id or order) stays an Arrow column, which
        # unique() takes for one that fails; the checks raise on it first.
        arrays[name] = column if column.null_count else column.to_numpy()
    return Sketches(
        rank=arrays[_RANK],
        id_hash=arrays[_ID_HASH],
        order=arrays.get(_ORDER),
        text_hash=arrays[_HASH],
        fp=arrays[_FP],
        kind=arrays[_KIND],
        text_bytes=arrays[_BYTES],
        keys=arrays[_KEYS],
    )


def _collected(df: DataFrame, schema: Any) -> Any:
    """``df`` on the driver, as an Arrow table (``schema`` when empty)."""
    import pyarrow as pa

    batches = df._collect_as_arrow()
    return pa.Table.from_batches(batches) if batches else schema.empty_table()


def _schema(columns: List[str]) -> Any:
    import pyarrow as pa

    kinds = {_KIND: pa.int8(), _BYTES: pa.int32()}
    return pa.schema([(c, kinds.get(c, pa.int64())) for c in columns] + [(_KEYS, pa.int32())])


def with_text(s: Sketches) -> Sketches:
    """``s`` without its rows of a null text (``on_null="keep"``: their
    ids were checked with the others; they are in no pair)."""
    texted = s.kind >= 0
    return Sketches(*(None if c is None else (c.filter(texted) if not isinstance(c, np.ndarray) else c[texted]) for c in s))


def unique(values: Any) -> bool:
    """Whether the hashes ``values`` (an array, or an Arrow column when it
    holds nulls) are all there and all different."""
    if not isinstance(values, np.ndarray):
        return False
    ordered = np.sort(values)
    return not bool(np.any(ordered[1:] == ordered[:-1]))


def units(s: Sketches) -> Any:
    """Each row's unit: the least rank of the rows of its fingerprint and
    text (its exact copies and itself), by a parallel sort in Rust."""
    from neardup import _neardup

    return _neardup.exact_units(s.rank, s.fp, s.text_hash)


def fingerprint_candidates(unit: Any, fp: Any, k: int) -> Optional[Pairs]:
    """Every pair of the units ``unit`` (ranks, fingerprinted ``fp``)
    within ``k`` bits, each once: the distinct fingerprints joined by the
    CLI's join, each pair of them crossed to their units, and the units of
    one fingerprint paired among themselves. None when there are more than
    :data:`_DRIVER_PAIRS`."""
    from neardup import _neardup

    return _neardup.unit_pairs_by_fingerprint(unit, fp, k, _steps._DRIVER_PAIRS)


def short_candidates(sketched: DataFrame, s: Sketches, unit: Any) -> Optional[Pairs]:
    """The short-document rule's pairs of units (two units that share a
    key, one of them short), from the keys of the near-short units:
    gathered on the driver (one job) and grouped by a sort while there are
    at most :data:`_DRIVER_KEYS` of them, else grouped by a shuffle (its
    pairs gathered). None when there are more than :data:`_DRIVER_PAIRS`."""
    import pyarrow as pa

    from neardup import _neardup

    near_short = s.kind > 0
    # Exact copies carry their unit's keys: only the units' own rows count.
    reps = np.sort(s.rank[near_short & (s.rank == unit)])
    # What is gathered is every near-short row's keys, copies' too.
    if int(s.keys[near_short].sum()) > _steps._DRIVER_KEYS:
        shared = sketched.sparkSession.sparkContext.broadcast(reps)

        def own(it: Iterable[Any]) -> Iterator[Any]:
            for batch in it:
                keys, members, short, fp = _own_keys(batch, shared.value, with_fp=True)
                yield pa.RecordBatch.from_arrays(
                    [pa.array(keys), pa.array(members), pa.array(short), pa.array(fp)],
                    names=["key", "unit", "short", "fp"],
                )

        near = sketched.where(F.col(_KIND) > 0).select(_RANK, _KIND, _FP, _KEYS)
        with _step(sketched, "short-rule candidates, by a shuffle of their keys"):
            rows = near.mapInArrow(own, "key long, unit long, short boolean, fp long")
            pairs = _steps._short_pairs(rows).select("x", "y").distinct().localCheckpoint()
            try:
                if pairs.count() > _steps._DRIVER_PAIRS:
                    return None
                x, y = _steps._collect_longs(pairs, "x", "y")
            finally:
                shared.destroy()
        return x, y
    with _step(sketched, "gathering the short-rule keys on the driver"):
        schema = pa.schema([(_RANK, pa.int64()), (_KIND, pa.int8()), (_KEYS, pa.list_(pa.int64()))])
        table = _collected(sketched.where(F.col(_KIND) > 0).select(_RANK, _KIND, _KEYS), schema)
    keys, members, short, _ = _own_keys(table, reps, with_fp=False)
    del table
    return _neardup.short_unit_pairs(keys, members, short, _steps._DRIVER_PAIRS)


def _own_keys(rows: Any, reps: Any, with_fp: bool) -> Tuple[Any, Any, Any, Any]:
    """``(key, unit, short, fp)``, a row per key, of the rows of ``rows``
    (an Arrow batch or table of rank, kind, keys and, ``with_fp``, the
    fingerprint; else ``fp`` is None) whose rank is among ``reps``
    (sorted): the units' own rows."""
    import pyarrow as pa

    rank = rows.column(_RANK).to_numpy()
    own = np.zeros(len(rank), bool)
    if len(reps):
        at = np.minimum(np.searchsorted(reps, rank), len(reps) - 1)
        own = reps[at] == rank
    lists = rows.column(_KEYS)
    if isinstance(lists, pa.ChunkedArray):
        lists = lists.combine_chunks() if lists.num_chunks != 1 else lists.chunk(0)
    lengths = lists.value_lengths().fill_null(0).to_numpy(zero_copy_only=False)
    keys = lists.flatten().to_numpy()[np.repeat(own, lengths)]
    counts = np.where(own, lengths, 0)
    short = rows.column(_KIND).to_numpy() == 2
    fp = np.repeat(rows.column(_FP).to_numpy(), counts) if with_fp else None
    return keys, np.repeat(rank, counts), np.repeat(short, counts), fp


def distinct_pairs(pairs: List[Pairs], unit: Any, fp: Any) -> Tuple[Any, Any, Any, Any]:
    """``(u, v, fu, fv)``: the pairs of units ``pairs``, each once with
    ``u < v``, and the units' fingerprints (``unit`` the units' ranks,
    fingerprinted ``fp``)."""
    from neardup import _neardup

    u, v = _neardup.distinct_unit_pairs(np.concatenate([p[0] for p in pairs]), np.concatenate([p[1] for p in pairs]))
    by_rank = np.argsort(unit)
    ranks = unit[by_rank]
    fu = fp[by_rank][np.searchsorted(ranks, u)]
    fv = fp[by_rank][np.searchsorted(ranks, v)]
    return u, v, fu, fv


def dropped(rank: Any, unit: Any, nodes: Any, labels: Any) -> Tuple[Any, Any]:
    """``(ranks, kept)``: the rows that are dropped, and the rank of the
    row each is dropped for: its unit's component's least unit (``nodes``
    ascending, ``labels`` theirs), or its unit itself outside every pair."""
    label = unit.copy()
    if len(nodes):
        at = np.minimum(np.searchsorted(nodes, unit), len(nodes) - 1)
        linked = nodes[at] == unit
        label[linked] = labels[at[linked]]
    gone = label != rank
    return rank[gone], label[gone]


def fates_of(df: DataFrame, id_col: str, ranks: Any, kept: Any, broadcast: bool) -> DataFrame:
    """``df`` (with its rank column) with ``keep`` and ``duplicate_of``:
    the rows ``ranks`` are dropped for the rows ``kept`` (ranks), every
    other row is kept. The kept rows' ids are read in one job (a scan of
    the rank and id columns, joined to the ranks wanted, broadcast); the
    fates are joined to ``df`` by a broadcast join (a scan, no shuffle)
    when ``broadcast``, else by a shuffle."""
    spark = df.sparkSession
    id_type = df.schema[id_col].dataType
    of = np.array([], object)
    if len(kept):
        wanted = _frame(spark, {_LABEL: np.unique(kept)}, f"{_LABEL} long")
        named = df.select(F.col(_RANK).alias(_LABEL), F.col(id_col).alias("duplicate_of")).join(
            F.broadcast(wanted), _LABEL
        )
        with _step(df, "naming the kept rows"):
            batches = named._collect_as_arrow()
        labels = np.concatenate([b.column(0).to_numpy() for b in batches]) if batches else np.zeros(0, np.int64)
        names = np.concatenate([b.column(1).to_numpy(zero_copy_only=False) for b in batches]) if batches else of
        order = np.argsort(labels)
        labels, names = labels[order], names[order]
        at = np.minimum(np.searchsorted(labels, kept), max(len(labels) - 1, 0))
        if not len(labels) or np.any(labels[at] != kept):
            # The input read again had other rows than the first time.
            raise RuntimeError("neardup: a kept row was not found again in the input; is it deterministic?")
        of = names[at]
    fated = _frame(spark, {_RANK: ranks, "duplicate_of": of}, f"{_RANK} long, duplicate_of {id_type.simpleString()}")
    joined = df.join(F.broadcast(fated) if broadcast else fated, _RANK, "left")
    columns = [c for c in df.columns if c != _RANK]
    return joined.select(*columns, F.col("duplicate_of").isNull().alias("keep"), "duplicate_of")
