"""The one conversion of columns every entry point takes (``dedup``, the
``Deduper``, ``Fingerprinter.fingerprint_batch``, ``Index``): texts and ids
from the libraries users hold them in, as the engine reads them.

- pyarrow arrays and chunked arrays of ``string``, ``large_string`` or
  ``string_view`` are read in place, chunk by chunk: no copy of the strings;
  dictionary-encoded ones are decoded (one copy);
- polars Series (``Categorical`` and ``Enum`` cast to ``String``) and pandas
  Series (``category`` decoded; ``object`` and ``string`` dtypes, with
  ``None``/``NaN`` as nulls) go through Arrow when pyarrow is installed;
- a Hugging Face ``datasets`` column (``ds["text"]``) through its Arrow
  table;
- numpy arrays, lists, tuples and any other iterable of ``str``, as they
  are (a generator is read whole: the batch job needs every text; the
  :class:`neardup.Deduper` reads one in batches).

A ``str``, ``bytes`` or ``dict`` given where a column belongs is refused
with what to give instead: a dict's keys are not texts.
"""

from __future__ import annotations

from typing import Any, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

from neardup._neardup import InputError

_STRINGS = ("string", "large_string", "string_view")


def _module(value: Any) -> str:
    return type(value).__module__.split(".")[0]


def column(texts: Any, what: str = "texts") -> Any:
    """``texts`` as the engine reads them: a pyarrow array or chunked array
    of strings, or a sequence of ``str`` (checked by the engine, item by
    item).

    >>> column(["a", "b"])
    ['a', 'b']
    >>> column("a text")
    Traceback (most recent call last):
    ...
    neardup.InputError: texts: one str; give a list (or any column) of them
    """
    if isinstance(texts, (str, bytes, bytearray)):
        kind = "str" if isinstance(texts, str) else "bytes value"
        raise InputError(f"{what}: one {kind}; give a list (or any column) of them")
    if isinstance(texts, dict):
        raise InputError(
            f"{what}: a dict; give its values as the texts (list(d.values())) and its keys as "
            "the ids (list(d))"
        )
    module = _module(texts)
    if module == "datasets":
        texts = _datasets_column(texts, what)
        module = _module(texts)
    if module == "polars":
        return _polars(texts)
    if module == "pandas":
        return _pandas(texts, what)
    if module == "pyarrow":
        return _decoded(texts)
    if isinstance(texts, np.ndarray):
        return texts.tolist()
    if isinstance(texts, (list, tuple)):
        return texts
    if hasattr(texts, "__arrow_c_array__"):
        return texts
    return list(texts)


def _decoded(array: Any) -> Any:
    """A pyarrow array or chunked array with dictionary-encoded strings
    decoded; others as they are."""
    import pyarrow as pa

    kind = array.type
    if pa.types.is_dictionary(kind) and str(kind.value_type) in _STRINGS:
        return array.cast(kind.value_type)
    return array


def _polars(series: Any) -> Any:
    import polars as pl

    if series.dtype in (pl.Categorical, pl.Enum) or isinstance(series.dtype, (pl.Categorical, pl.Enum)):
        series = series.cast(pl.String)
    return _decoded(series.to_arrow())


def _pandas(series: Any, what: str) -> Any:
    if getattr(series, "ndim", 1) != 1:
        raise InputError(f"{what}: a DataFrame; give one of its columns (frame['text'])")
    try:
        import pyarrow as pa
    except ImportError:
        return [None if _missing(v) else v for v in series.tolist()]
    try:
        return _decoded(pa.array(series, from_pandas=True))
    except (pa.ArrowTypeError, pa.ArrowInvalid):
        # Mixed types: the engine names the first that is not a str.
        return [None if _missing(v) else v for v in series.tolist()]


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and value != value)


def _datasets_column(value: Any, what: str) -> Any:
    """The Arrow column behind a ``datasets`` column object."""
    if hasattr(value, "column_names") and hasattr(value, "data"):
        raise InputError(
            f"{what}: a whole Dataset; give one of its columns (ds['text']), or call "
            "neardup.dedup_frame(ds, 'text')"
        )
    source = getattr(value, "source", None)
    name = getattr(value, "column_name", None)
    if source is not None and name is not None and hasattr(source, "data"):
        return source.data.column(name)
    return list(value)


def id_list(ids: Any, what: str = "ids") -> Sequence[Any]:
    """``ids`` as a sequence of ``str`` or ``int`` (the engine checks each):
    any column :func:`column` takes, of strings or integers.

    >>> id_list(range(3))
    [0, 1, 2]
    """
    if isinstance(ids, (str, bytes, bytearray, dict)):
        raise InputError(f"{what}: one {type(ids).__name__}; give one id per text, in a list or column")
    module = _module(ids)
    if module == "datasets":
        ids = _datasets_column(ids, what)
        module = _module(ids)
    if module == "pyarrow":
        return list(ids.to_pylist())
    if module in ("polars", "pandas"):
        return list(ids.to_list() if hasattr(ids, "to_list") else ids.tolist())
    if isinstance(ids, np.ndarray):
        return list(ids.tolist())
    if isinstance(ids, (list, tuple)):
        return ids
    return list(ids)


def nulls(texts: Any) -> Optional[npt.NDArray[np.bool_]]:
    """A mask of the nulls among converted ``texts`` (what :func:`column`
    gave), or ``None`` when there are none."""
    if hasattr(texts, "null_count"):
        if texts.null_count == 0:
            return None
        return np.asarray(texts.is_null().to_numpy(zero_copy_only=False), dtype=bool)
    if None not in texts:
        return None
    mask = np.fromiter((t is None for t in texts), dtype=bool, count=len(texts))
    return mask if mask.any() else None


def without(texts: Any, mask: npt.NDArray[np.bool_]) -> Any:
    """Converted ``texts`` without the items where ``mask`` is True."""
    if hasattr(texts, "filter"):
        import pyarrow as pa

        return texts.filter(pa.array(~mask))
    return [t for t, drop in zip(texts, mask) if not drop]


def read(texts: Any, ids: Any, on_null: str) -> Tuple[Any, Optional[List[Any]], Optional[npt.NDArray[np.bool_]]]:
    """``texts`` converted (:func:`column`), ``ids`` as a list (or
    ``None``), and the mask of null texts (or ``None`` when there are
    none); with ``on_null="raise"``, a null is an :class:`InputError`
    naming its position and id.

    >>> read(["a", None], None, "keep")[2].tolist()
    [False, True]
    """
    converted = column(texts)
    given = None if ids is None else list(id_list(ids))
    missing = nulls(converted)
    if missing is not None and on_null == "raise":
        first = int(np.flatnonzero(missing)[0])
        error = InputError(
            f"texts[{first}]: null; drop or fill the rows without text first, or say what to do "
            'with them (on_null="keep" or "drop")'
        )
        error.position = first
        raise named(error, given)
    return converted, given, missing


def as_texts(texts: Any) -> Any:
    """``texts`` as the engine takes them (see :func:`column`); kept for
    callers of earlier versions.

    >>> as_texts(["a", "b"])
    ['a', 'b']
    """
    return column(texts)


def named(error: InputError, ids: Optional[List[Any]]) -> InputError:
    """``error``, naming the id of the position it names when there are
    ids."""
    position = getattr(error, "position", None)
    if ids is None or position is None or not 0 <= position < len(ids):
        return error
    again = InputError(f"{error} (id {ids[position]!r})")
    again.position = position
    return again
