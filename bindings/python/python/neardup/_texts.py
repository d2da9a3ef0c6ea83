"""Columns of text from the libraries users hold them in, as the engine
reads them: Arrow arrays in place, anything else as an iterable of str."""

from __future__ import annotations

from typing import Any


def as_texts(column: Any) -> Any:
    """`column` as the engine takes texts: an Arrow array (pyarrow arrays
    and chunked arrays, polars Series, pandas Series backed by Arrow) is
    passed without copying the strings where Arrow allows; a list, tuple,
    numpy array of str or any other iterable of str is passed as it is.

    >>> as_texts(["a", "b"])
    ['a', 'b']
    """
    module = type(column).__module__.split(".")[0]
    if module == "polars":
        column = column.to_arrow()
        module = "pyarrow"
    elif module == "pandas":
        try:
            import pyarrow as pa
        except ImportError:
            return column.tolist()
        column = pa.array(column, from_pandas=True)
        module = "pyarrow"
    if module == "pyarrow" and hasattr(column, "combine_chunks"):
        column = column.combine_chunks()
    return column
