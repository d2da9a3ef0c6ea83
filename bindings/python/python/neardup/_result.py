"""`dedup` over texts in memory, and what it gives back: each text's fate,
as columns aligned with the input."""

from __future__ import annotations

import warnings
import functools
from dataclasses import dataclass, field
from os import PathLike, fspath
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Literal, Optional, Sequence, Union

import numpy as np
import numpy.typing as npt

from neardup import _neardup
from neardup._neardup import InputError, SettingsError
from neardup._progress import Reporter, reporter
from neardup._texts import named, read, without

if TYPE_CHECKING:
    # Types only (the settings' names, checked by mypy); at run time the
    # settings are checked by the engine, naming the parameter.
    _Keep = Literal["first", "longest", "shortest"]
    _Cluster = Literal["greedy", "components"]
    _Profile = Literal["auto", "en", "zh", "python-simhash"]
    _OnNull = Literal["raise", "keep", "drop"]
    _Progress = Union[bool, Callable[[str, int, Optional[int]], Any], None]


@dataclass(frozen=True, eq=False)
class DedupResult:
    """Each text's fate in a :func:`dedup` run, in input order: every
    column has one row per text given.

    - ``kept``: a boolean mask, True for the texts kept (``kept_indices``:
      their positions, for ``datasets.Dataset.select``);
    - ``duplicate_of``: the position of the kept text a dropped one
      duplicates (-1 for kept texts, nulls, and texts dropped for an entry
      of ``against``); ``duplicate_of_id``: the same as ids (the ids given,
      else positions; an ``against`` entry's id; ``None`` when kept);
    - ``distance``: bits between a dropped text's fingerprint and its kept
      one's (-1 when kept); ``similarity``: their similarity by the
      verification (NaN when kept, or when nothing was compared);
    - ``cluster``: the position of the kept text of each text's group (its
      own when kept; -1 for texts dropped for an ``against`` entry and for
      nulls): group by it;
    - ``clusters``: each group of more than one text, its kept text first;
    - ``summary``: the counts and settings of the run, as the CLI's
      ``summary.json`` gives them (and ``nulls``);
    - ``ids``: the ids given, if any.

    >>> r = dedup(["same words here", "same words here", "other words"])
    >>> r.kept.tolist(), r.cluster.tolist(), r.clusters, len(r)
    ([True, False, True], [0, 0, 2], [[0, 1]], 3)
    """

    kept: npt.NDArray[np.bool_]
    duplicate_of: npt.NDArray[np.int64]
    distance: npt.NDArray[np.int32]
    similarity: npt.NDArray[np.float32]
    cluster: npt.NDArray[np.int64]
    clusters: List[List[int]]
    summary: Dict[str, Any]
    ids: Optional[List[Any]] = None
    # What the dropped texts duplicate, by name: given whole (a Deduper's
    # batch), or made on first use from ``ids`` and the names of the
    # ``against`` entries (``None`` for the others).
    named: Optional[List[Any]] = field(default=None, repr=False)
    indexed: Optional[List[Optional[str]]] = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.kept)

    @functools.cached_property
    def duplicate_of_id(self) -> List[Any]:
        """For each text, the id of what it duplicates (the id given, else
        its position; an ``against`` entry's id), ``None`` when kept."""
        if self.named is not None:
            return self.named
        out: List[Any] = [None] * len(self)
        for d in np.flatnonzero(self.distance >= 0):
            entry = self.indexed[d] if self.indexed is not None else None
            of = int(self.duplicate_of[d])
            out[d] = entry if entry is not None else (of if self.ids is None else self.ids[of])
        return out

    @property
    def kept_indices(self) -> npt.NDArray[np.intp]:
        """The positions of the kept texts, in order."""
        return np.flatnonzero(self.kept)

    @property
    def keep(self) -> npt.NDArray[np.bool_]:
        """The kept mask under its former name; use ``kept``."""
        warnings.warn("DedupResult.keep is now DedupResult.kept", DeprecationWarning, stacklevel=2)
        return self.kept

    def columns(self) -> Dict[str, Any]:
        """The per-text columns: ``id`` (when ids were given), ``kept``,
        ``duplicate_of``, ``duplicate_of_id``, ``distance``,
        ``similarity``, ``cluster``."""
        out: Dict[str, Any] = {}
        if self.ids is not None:
            out["id"] = self.ids
        out["kept"] = self.kept
        out["duplicate_of"] = self.duplicate_of
        out["duplicate_of_id"] = [None if i is None else str(i) for i in self.duplicate_of_id]
        out["distance"] = self.distance
        out["similarity"] = self.similarity
        out["cluster"] = self.cluster
        return out

    def to_arrow(self) -> Any:
        """The columns as a ``pyarrow.Table``, one row per text."""
        import pyarrow as pa

        return pa.table(self.columns())

    def to_pandas(self, index: Any = None) -> Any:
        """The columns as a ``pandas.DataFrame``, one row per text; give
        ``index=frame.index`` to line it up with the frame the texts came
        from (``pd.concat([frame, r.to_pandas(index=frame.index)],
        axis=1)``)."""
        import pandas as pd

        return pd.DataFrame(self.columns(), index=index)

    def to_polars(self) -> Any:
        """The columns as a ``polars.DataFrame``, one row per text (polars
        has no index: rows line up by position, ``frame.hstack(...)``)."""
        import polars as pl

        return pl.DataFrame(self.columns())

    def filter(self, rows: Any) -> Any:
        """The kept rows of ``rows``, which has one row per text in the
        same order: a pandas or polars DataFrame or Series, a
        ``datasets.Dataset``, a pyarrow Table or array, a numpy array, or
        a list.

        >>> r = dedup(["same words here", "same words here", "other words"])
        >>> r.filter(["a", "b", "c"])
        ['a', 'c']
        """
        if len(rows) != len(self):
            raise InputError(f"rows: {len(rows)} of them for {len(self)} texts; give the rows the texts came from")
        module = type(rows).__module__.split(".")[0]
        if module == "datasets":
            return rows.select(self.kept_indices)
        if module == "polars":
            return rows.filter(self.kept)
        if module == "pandas":
            return rows[self.kept]
        if module == "pyarrow":
            import pyarrow as pa

            return rows.filter(pa.array(self.kept))
        if isinstance(rows, np.ndarray):
            return rows[self.kept]
        return [row for row, kept in zip(rows, self.kept) if kept]


def _checked(name: str, value: str, allowed: Sequence[str]) -> None:
    if value not in allowed:
        raise SettingsError(f"{name}: {value!r}; give " + ", ".join(map(repr, allowed)))


def dedup(
    texts: Any,
    ids: Any = None,
    *,
    threshold: float = 0.8,
    k: int = 8,
    keep: _Keep = "first",
    cluster: _Cluster = "greedy",
    profile: _Profile = "auto",
    width: int = 64,
    short_rule: bool = True,
    verify: Optional[str] = None,
    against: Optional[Union[str, "PathLike[str]"]] = None,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
    on_null: _OnNull = "raise",
    progress: _Progress = None,
) -> DedupResult:
    """Finds the near-duplicates among ``texts`` and says which to keep:
    ``neardup dedup``'s job, with its defaults, over texts in memory.

    Two texts are near-duplicates when the Jaccard similarity of their
    shingles (word 3-grams; character 4-grams for Chinese and Japanese) is
    at least ``threshold``; SimHash fingerprints within ``k`` bits find the
    candidates (any distance for short texts). Each text, in input order,
    is kept unless it is near one already kept (``cluster="greedy"``), or
    every chain of near-duplicates is one group kept by its first text
    (``cluster="components"``). ``keep`` orders the candidates for keeping:
    ``first``, ``longest`` or ``shortest``.

    ``texts`` is a list or any iterable of str, or a column: pyarrow
    (chunked, dictionary, large, view), pandas (categorical too), polars
    (Categorical too), numpy, or a Hugging Face ``datasets`` column.
    ``ids`` (str or int, one per text) name the texts in errors and in
    ``duplicate_of_id``. ``on_null`` says what a null text is: an error
    naming it (``"raise"``), kept and never a duplicate (``"keep"``), or
    dropped (``"drop"``). ``verify`` replaces the threshold:
    ``"jaccard:T"``, ``"words:F"`` or ``"none"`` (fingerprints alone).
    ``against`` is an index directory (``neardup index``, ``dedup_files(
    save_index=...)`` or a :class:`Deduper`'s) whose entries count as kept
    before the run. ``threads``: None, 0 or -1 for one per core.
    ``progress``: True for a progress bar (tqdm's, when installed), or a
    callable ``(stage, bytes_read, bytes_in_all)``. Raises
    :class:`SettingsError`, :class:`InputError` or :class:`StorageError`
    (all :class:`NeardupError`).

    >>> r = dedup(["a long enough text about rivers and towns and the rain",
    ...            "a long enough text about rivers and towns and the rain!"])
    >>> r.kept.tolist(), r.distance.tolist()
    ([True, False], [-1, 0])
    """
    _checked("on_null", on_null, ("raise", "keep", "drop"))
    converted, id_given, missing = read(texts, ids, on_null)
    present = None if missing is None else np.flatnonzero(~missing)
    run_texts = converted if missing is None else without(converted, missing)
    run_ids = id_given
    if id_given is not None and present is not None:
        run_ids = [id_given[i] for i in present]
    report: Optional[Reporter] = reporter(progress)
    try:
        duplicate_of, distance, similarity, indexed, clusters, summary = _neardup.dedup(
            run_texts,
            run_ids,
            threshold=threshold,
            k=k,
            keep=keep,
            cluster=cluster,
            profile=profile,
            width=width,
            short_rule=short_rule,
            verify=verify,
            against=None if against is None else fspath(against),
            memory=memory,
            threads=threads,
            progress=report,
        )
    except InputError as error:
        position = getattr(error, "position", None)
        if present is not None and position is not None and 0 <= position < len(present):
            error.position = int(present[position])
        raise named(error, id_given) from None
    finally:
        if report is not None:
            report.close()
    n = len(duplicate_of) if missing is None else len(missing)
    if present is not None:
        duplicate_of, distance, similarity, indexed, clusters = _spread(
            present, n, duplicate_of, distance, similarity, indexed, clusters
        )
    summary["nulls"] = 0 if missing is None else int(missing.sum())
    kept = distance < 0
    if missing is not None:
        kept[missing] = on_null == "keep"
    cluster_of = np.where(kept, np.arange(n), -1).astype(np.int64)
    dropped = duplicate_of >= 0
    cluster_of[dropped] = duplicate_of[dropped]
    if missing is not None:
        cluster_of[missing] = np.where(kept[missing], np.flatnonzero(missing), -1)
    return DedupResult(
        kept=kept,
        duplicate_of=duplicate_of,
        distance=distance,
        similarity=similarity,
        cluster=cluster_of,
        clusters=clusters,
        summary=summary,
        ids=id_given,
        indexed=indexed,
    )


def _spread(present: Any, n: int, duplicate_of: Any, distance: Any, similarity: Any, indexed: Any, clusters: Any) -> Any:
    """A run's columns over the texts that were not null, spread over all
    ``n`` rows (nulls: -1, NaN, no group)."""
    full_of = np.full(n, -1, dtype=np.int64)
    full_of[present] = np.where(duplicate_of >= 0, present[np.maximum(duplicate_of, 0)], -1)
    full_distance = np.full(n, -1, dtype=np.int32)
    full_distance[present] = distance
    full_similarity = np.full(n, np.nan, dtype=np.float32)
    full_similarity[present] = similarity
    full_indexed = None
    if indexed is not None:
        full_indexed = [None] * n
        for i, name in zip(present, indexed):
            full_indexed[int(i)] = name
    groups = [[int(present[d]) for d in group] for group in clusters]
    return full_of, full_distance, full_similarity, full_indexed, groups
