"""What :mod:`neardup.spark` checks first: settings and column types on
the driver before any job, the data in the first pass over it."""

from __future__ import annotations

from typing import Any, Callable, Dict, List, Tuple

from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

import neardup

from neardup._spark_steps import _COUNT, _step

# Bad input (the DataFrame's columns and values) and bad settings.
_InputError = neardup.InputError
_SettingsError = neardup.SettingsError

_INTEGERS = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
_IDS = (_INTEGERS + (T.StringType,), "a string or integer column")
_ON_NULL = ("raise", "keep", "drop")


# Everything a task would trip on is checked first: a failure inside a
# task names a position in an Arrow batch, after minutes of work, where
# these name the column, the setting, the id. Settings and types cost
# nothing (the schema is on the driver). Nulls and ids cost a Spark job
# each in fingerprint and near_duplicate_pairs; dedup and fates read them
# in their first pass (spark.py, _check_sketched) and run a job here only
# to name what that pass found.


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
    if on_null == "drop":
        return df.where(F.col(text_col).isNotNull())
    if on_null == "raise":
        with _step(df, "checking for null texts"):
            _name_null_text(df, text_col, name_by)
    return df


def _name_null_text(df: DataFrame, text_col: str, name_by: List[str]) -> None:
    """Raises naming a row of ``df`` (by the columns ``name_by``) whose
    text is null, if there is one."""
    for row in df.where(F.col(text_col).isNull()).select(*name_by).limit(1).collect():
        raise _InputError(
            f"text column {text_col!r} is null in {_name(row)}; drop or fill those rows, "
            "or give on_null='keep' or on_null='drop'"
        )


def _hashed(df: DataFrame, name: str) -> Any:
    """The column ``name`` of ``df`` as a 64-bit hash, null where the value
    is: an integer is its own hash, a string its ``xxhash64``."""
    value = F.col(name)
    # xxhash64 of a null is its seed, not null.
    h = F.xxhash64(value) if isinstance(df.schema[name].dataType, T.StringType) else value.cast("long")
    return F.when(value.isNotNull(), h)


def _check_unique(df: DataFrame, *columns: Tuple[str, str]) -> None:
    """Each row's ``what`` (its id, its order) must be there and its own,
    for each ``(name, what)`` of ``columns``: one aggregation over all of
    them, of 64-bit hashes of the values (a pass and a shuffle of 12 bytes
    a value); only when it finds a null or a repeated hash (a repeat, or
    two values of one hash) are the values themselves counted, to name
    the one repeated."""
    hashes = [df.select(_hashed(df, name).alias("h")) for name, _ in columns]
    what = " and each ".join(w for _, w in columns)
    with _step(df, f"checking that each {what} is there and its own"):
        suspect = _suspect(hashes)
    if suspect:
        _name_repeated(df, columns)


def _suspect(hashes: List[DataFrame]) -> bool:
    """Whether any of the one-column frames ``hashes`` (column ``h``) holds
    a null or a repeated value: one aggregation over all of them."""
    every = hashes[0].select(F.lit(0).alias("i"), "h")
    for i, more in enumerate(hashes[1:], 1):
        every = every.unionByName(more.select(F.lit(i).alias("i"), "h"))
    counts = every.groupBy("i", "h").agg(F.count(F.lit(1)).alias(_COUNT))
    return bool(counts.where(F.col("h").isNull() | (F.col(_COUNT) > 1)).limit(1).collect())


def _name_repeated(df: DataFrame, columns: Tuple[Tuple[str, str], ...]) -> None:
    """Raises naming a null or repeated value of ``columns``, counted by
    value, if there is one (none when only two hashes met)."""
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
    with _step(df, "naming the null or repeated value"):
        found = counts.where(missing | (F.col(_COUNT) > 1)).limit(1).collect()
    for what, name, s, n, count in found:
        value = s if text[name] else n
        if value is None:
            rows = "1 row" if count == 1 else f"{count} rows"
            raise _InputError(f"{what} column {name!r} is null in {rows}; give every row its {what}")
        raise _InputError(
            f"{what} column {name!r}: the {what} {value!r} is in {count} rows; give each row its own {what}"
        )
