"""`dedup` over texts in memory and what it gives back."""

from __future__ import annotations

from dataclasses import dataclass, field
from os import PathLike
from typing import Any, Iterable, Optional, Sequence, Union

import numpy as np

from neardup import _neardup
from neardup._texts import as_texts


@dataclass(frozen=True)
class DedupResult:
    """Each text's fate in a :func:`dedup` run, in input order.

    - ``keep``: a boolean mask, True for the texts kept;
    - ``duplicate_of``: for each dropped text, the position of the kept one
      it duplicates (-1 for kept texts, and for texts dropped for an entry
      of ``against``, named in ``duplicate_of_indexed``);
    - ``distance``: the bits between a dropped text's fingerprint and its
      kept one's (-1 for kept texts);
    - ``clusters``: each group of more than one text, its kept text first;
    - ``summary``: the counts and settings of the run, as the CLI's
      ``summary.json`` gives them;
    - ``ids``: the ids given, if any.

    >>> r = dedup(["same words here", "same words here", "other words"])
    >>> r.clusters, r.summary["unique"], len(r)
    ([[0, 1]], 2, 3)
    """

    keep: np.ndarray
    duplicate_of: np.ndarray
    distance: np.ndarray
    clusters: list
    summary: dict
    ids: Optional[list] = None
    duplicate_of_indexed: Optional[list] = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.keep)

    def columns(self) -> dict:
        """The per-text columns: ``keep``, ``duplicate_of``, ``distance``
        (and ``id`` when ids were given), as numpy arrays and lists."""
        out = {}
        if self.ids is not None:
            out["id"] = self.ids
        out["keep"] = self.keep
        out["duplicate_of"] = self.duplicate_of
        out["distance"] = self.distance
        if self.duplicate_of_indexed is not None:
            out["duplicate_of_indexed"] = self.duplicate_of_indexed
        return out

    def to_arrow(self) -> Any:
        """The columns as a ``pyarrow.Table``."""
        import pyarrow as pa

        return pa.table(self.columns())

    def to_pandas(self) -> Any:
        """The columns as a ``pandas.DataFrame``."""
        import pandas as pd

        return pd.DataFrame(self.columns())

    def to_polars(self) -> Any:
        """The columns as a ``polars.DataFrame``."""
        import polars as pl

        return pl.DataFrame(self.columns())


def dedup(
    texts: Iterable[str],
    ids: Optional[Iterable[str]] = None,
    *,
    threshold: float = 0.8,
    k: int = 8,
    keep: str = "first",
    cluster: str = "greedy",
    profile: str = "auto",
    width: int = 64,
    short_rule: bool = True,
    verify: Optional[str] = None,
    against: Optional[Union[str, PathLike]] = None,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
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

    ``texts`` is any iterable of str, or a pyarrow, polars or Arrow-backed
    pandas string column (read in place). ``ids``, if given, name the texts
    in errors and come back in ``DedupResult.ids``. ``verify`` replaces the
    threshold: ``"jaccard:T"``, ``"words:F"`` or ``"none"`` (fingerprints
    alone). ``against`` is an index directory (``neardup index`` or
    ``dedup_files(save_index=...)``) whose entries count as kept before
    the run. Raises :class:`NeardupError` for bad settings or texts.

    >>> r = dedup(["a long enough text about rivers and towns and the rain",
    ...            "a long enough text about rivers and towns and the rain!"])
    >>> r.keep.tolist(), r.distance.tolist()
    ([True, False], [-1, 0])
    """
    id_list = None if ids is None else list(ids)
    duplicate_of, distance, indexed, clusters, summary = _neardup.dedup(
        as_texts(texts),
        id_list,
        threshold=threshold,
        k=k,
        keep=keep,
        cluster=cluster,
        profile=profile,
        width=width,
        short_rule=short_rule,
        verify=verify,
        against=None if against is None else str(against),
        memory=memory,
        threads=threads,
    )
    kept = distance < 0
    return DedupResult(
        keep=kept,
        duplicate_of=duplicate_of,
        distance=distance,
        clusters=clusters,
        summary=summary,
        ids=id_list,
        duplicate_of_indexed=indexed,
    )
