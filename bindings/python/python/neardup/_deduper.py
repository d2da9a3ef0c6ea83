"""`Deduper`: texts deduplicated as they arrive, batch by batch, against
everything kept before; and `dedup_frame`, a frame deduplicated whole."""

from __future__ import annotations

import itertools
import threading
from os import PathLike, fspath
from typing import TYPE_CHECKING, Any, Dict, Iterable, Iterator, List, Optional, Union

import numpy as np
import numpy.typing as npt

from neardup import _neardup
from neardup._neardup import InputError
from neardup._result import DedupResult, _checked, dedup

if TYPE_CHECKING:
    from neardup._result import _Cluster, _Keep, _OnNull, _Profile
from neardup._texts import named, read, without


class Deduper:
    """Deduplicates texts that arrive in batches: each text is kept unless
    it is a near-duplicate (by :func:`dedup`'s rule and settings) of a text
    kept before it, in an earlier batch or earlier in its own. Three
    batches keep what one ``dedup`` call over their concatenation keeps
    (with ``cluster="greedy"``, ``keep="first"``).

    The kept texts are kept in an index: ``index="idx/"`` starts from the
    one there (made by an earlier ``Deduper``, by ``neardup dedup
    --save-index`` or ``neardup serve --store-text`` with the same
    settings) or makes it, and writes every batch's kept texts to it,
    durably, as the batch is added: ``neardup dedup --against idx/`` and
    ``neardup serve idx/`` take it. Without ``index`` they are kept in a
    temporary folder, removed with the deduper.

    Texts without ids are named by their position in the stream (0, 1,
    ...); an index that already holds texts needs ids. One deduper may be
    shared by threads: batches are added one at a time.

    >>> d = Deduper()
    >>> d.add(["the river rose in the night and the town woke to water",
    ...        "a recipe for bread: flour, water, salt and yeast"]).tolist()
    [True, True]
    >>> d.add(["the river rose in the night and the town woke to water!"]).tolist()
    [False]
    >>> len(d)
    2
    """

    def __init__(
        self,
        index: Optional[Union[str, "PathLike[str]"]] = None,
        *,
        threshold: float = 0.8,
        k: int = 8,
        profile: _Profile = "auto",
        width: int = 64,
        short_rule: bool = True,
        verify: Optional[str] = None,
        on_null: _OnNull = "raise",
    ) -> None:
        _checked("on_null", on_null, ("raise", "keep", "drop"))
        self._native = _neardup.Deduper(
            None if index is None else fspath(index),
            threshold=threshold,
            k=k,
            profile=profile,
            width=width,
            short_rule=short_rule,
            verify=verify,
        )
        self._on_null = on_null
        self._lock = threading.Lock()
        # Positions name texts given without ids, from an empty index only.
        self._next: Optional[int] = 0 if len(self._native) == 0 else None

    def __len__(self) -> int:
        return len(self._native)

    def close(self) -> None:
        """Lets its index go, for another writer (``neardup dedup
        --save-index``, another ``Deduper``) to open; a temporary one is
        removed. A ``with`` block closes it at its end."""
        self._native.close()

    def __enter__(self) -> "Deduper":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.path if self.path is not None else "temporary"
        return f"Deduper(index={where!r}, k={self.k}, kept={len(self)})"

    @property
    def path(self) -> Optional[str]:
        """The folder of its index, or ``None`` for a temporary one."""
        path = self._native.path
        return None if path is None else str(path)

    @property
    def k(self) -> int:
        """The k of its rule."""
        return int(self._native.k)

    def add(self, texts: Any, ids: Any = None) -> npt.NDArray[np.bool_]:
        """Adds a batch and gives its kept mask: True for each text kept
        (and now kept for later batches), False for each near-duplicate
        of a text kept before it. ``texts`` and ``ids`` as :func:`dedup`
        takes them; ids are new and unique."""
        return self.dedup(texts, ids).kept

    def dedup(self, texts: Any, ids: Any = None) -> DedupResult:
        """Adds a batch as :meth:`add` does, and gives its whole
        :class:`DedupResult` (``duplicate_of`` is a position in this batch,
        -1 for a text kept in an earlier batch; ``duplicate_of_id`` names
        either)."""
        converted, given, missing = read(texts, ids, self._on_null)
        n = len(converted)
        present = np.arange(n) if missing is None else np.flatnonzero(~missing)
        batch = converted if missing is None else without(converted, missing)
        with self._lock:
            names = self._names(given, n)
            stored = [str(names[i]) for i in present]
            try:
                of, distance, similarity = self._native.add(batch, stored)
            except InputError as error:
                position = getattr(error, "position", None)
                if position is not None and 0 <= position < len(present):
                    error.position = int(present[position])
                raise named(error, names) from None
            if given is None and self._next is not None:
                self._next += n
        return _batch_result(names, given, present, missing, self._on_null == "keep", of, distance, similarity)

    def _names(self, given: Optional[List[Any]], n: int) -> List[Any]:
        if given is not None:
            if len(given) != n:
                raise InputError(f"{len(given)} ids for {n} texts; give one id per text")
            return given
        if self._next is None:
            raise InputError(
                f"ids: none given, and the index {self.path} holds {len(self)} texts already; give "
                "ids (new and unique), so that what it keeps is named"
            )
        return list(range(self._next, self._next + n))

    def filter(self, texts: Iterable[Any], ids: Optional[Iterable[Any]] = None, *, batch_size: int = 10_000) -> Iterator[Any]:
        """The kept texts of ``texts`` (any iterable, a generator too),
        read and judged ``batch_size`` at a time: each is yielded (as
        ``(id, text)`` when ids are given) once its batch is added.

        >>> d = Deduper()
        >>> list(d.filter(iter(["same words in this one", "same words in this one", "other"]), batch_size=2))
        ['same words in this one', 'other']
        """
        if batch_size < 1:
            from neardup._neardup import SettingsError

            raise SettingsError(f"batch_size: {batch_size}; give a positive number of texts")
        stream = iter(texts)
        id_stream = None if ids is None else iter(ids)
        while True:
            batch = list(itertools.islice(stream, batch_size))
            if not batch:
                return
            batch_ids = None if id_stream is None else list(itertools.islice(id_stream, len(batch)))
            kept = self.add(batch, batch_ids)
            for i in np.flatnonzero(kept):
                yield batch[i] if batch_ids is None else (batch_ids[i], batch[i])


def _batch_result(
    names: List[Any],
    given: Optional[List[Any]],
    present: Any,
    missing: Optional[Any],
    keep_nulls: bool,
    of: List[Optional[str]],
    distance: Any,
    similarity: Any,
) -> DedupResult:
    """A batch's :class:`DedupResult` from what the engine gave for its
    texts that were not null."""
    n = len(names)
    here: Dict[str, int] = {str(names[i]): int(i) for i in present}
    kept = np.ones(n, dtype=bool)
    if missing is not None:
        kept[missing] = keep_nulls
    duplicate_of = np.full(n, -1, dtype=np.int64)
    full_distance = np.full(n, -1, dtype=np.int32)
    full_similarity = np.full(n, np.nan, dtype=np.float32)
    of_id: List[Any] = [None] * n
    cluster = np.where(kept, np.arange(n), -1).astype(np.int64)
    groups: Dict[int, List[int]] = {}
    by_name: Dict[str, Any] = {str(name): name for name in names}
    for j, i in enumerate(present):
        duplicate = of[j]
        if duplicate is None:
            continue
        kept[i] = False
        full_distance[i] = distance[j]
        full_similarity[i] = similarity[j]
        first = here.get(duplicate, -1)
        duplicate_of[i] = first
        cluster[i] = first
        of_id[i] = by_name.get(duplicate, int(duplicate) if given is None and duplicate.isdigit() else duplicate)
        if first >= 0:
            groups.setdefault(first, [first]).append(int(i))
    dropped = int((~kept).sum())
    summary = {
        "documents": n,
        "unique": n - dropped,
        "dropped": dropped,
        "dropped_against_index": int(((full_distance >= 0) & (duplicate_of < 0)).sum()),
        "nulls": 0 if missing is None else int(missing.sum()),
    }
    return DedupResult(
        kept=kept,
        duplicate_of=duplicate_of,
        distance=full_distance,
        similarity=full_similarity,
        cluster=cluster,
        clusters=[groups[k] for k in sorted(groups)],
        summary=summary,
        ids=given,
        named=of_id,
    )


def dedup_frame(
    frame: Any,
    column: str = "text",
    *,
    id_column: Optional[str] = None,
    threshold: float = 0.8,
    k: int = 8,
    keep: _Keep = "first",
    cluster: _Cluster = "greedy",
    profile: _Profile = "auto",
    verify: Optional[str] = None,
    on_null: _OnNull = "raise",
    threads: Optional[int] = None,
) -> Any:
    """``frame`` (a pandas or polars DataFrame, a ``datasets.Dataset`` or
    a pyarrow Table) without the near-duplicates of its ``column`` of
    texts: :func:`dedup` over the column, its kept rows, of the same type.

    >>> import pandas as pd
    >>> frame = pd.DataFrame({"text": ["same words here", "same words here", "other words"]},
    ...                      index=[10, 20, 30])
    >>> dedup_frame(frame).index.tolist()
    [10, 30]
    """
    texts = frame[column] if type(frame).__module__.split(".")[0] != "pyarrow" else frame.column(column)
    ids = None
    if id_column is not None:
        ids = frame[id_column] if type(frame).__module__.split(".")[0] != "pyarrow" else frame.column(id_column)
    result = dedup(
        texts,
        ids,
        threshold=threshold,
        k=k,
        keep=keep,
        cluster=cluster,
        profile=profile,
        verify=verify,
        on_null=on_null,
        threads=threads,
    )
    return result.filter(frame)
