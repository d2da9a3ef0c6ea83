"""neardup: find near-duplicate text with SimHash, from Python.

The engine is the Rust library behind the ``neardup`` command; this package
calls it directly (no subprocess), on all cores, with the GIL released.

>>> import neardup
>>> result = neardup.dedup([
...     "the river rose in the night and the town woke to water in every street",
...     "a recipe for bread: flour, water, salt and yeast, and a warm room",
...     "The river rose in the night, and the town woke to water in every street.",
... ])
>>> result.kept.tolist()
[True, True, False]
>>> result.duplicate_of.tolist()
[-1, -1, 0]

- :class:`Fingerprinter` and :func:`distance`: fingerprints of texts;
- :class:`Index`: fingerprints with ids, queried within k bits, in memory
  or opened in place on the index directories of ``neardup index``;
- :class:`Deduper`: texts deduplicated batch by batch (a stream), against
  an index kept on disk or in a temporary folder;
- :func:`dedup` and :class:`DedupResult`: the dedup job over texts in
  memory (a list, or a pyarrow, pandas, polars or ``datasets`` column),
  and :func:`dedup_frame` for a whole frame;
- :func:`dedup_files`: ``neardup dedup`` over files, with its outputs;
- :mod:`neardup.compat`: a drop-in for PyPI ``simhash``;
- :mod:`neardup.spark`: the same on Spark DataFrames;
- :class:`Client`: a client of ``neardup serve``, the durable service.
"""

from neardup._neardup import (
    Fingerprinter,
    Index,
    InputError,
    NeardupError,
    SettingsError,
    StorageError,
    __version__,
    distance,
)
from neardup._client import Client, ServiceError
from neardup._deduper import Deduper, dedup_frame
from neardup._files import dedup_files
from neardup._result import DedupResult, dedup
from neardup._texts import as_texts

__all__ = [
    "Client",
    "DedupResult",
    "Deduper",
    "Fingerprinter",
    "Index",
    "InputError",
    "NeardupError",
    "ServiceError",
    "SettingsError",
    "StorageError",
    "__version__",
    "as_texts",
    "dedup",
    "dedup_files",
    "dedup_frame",
    "distance",
]
