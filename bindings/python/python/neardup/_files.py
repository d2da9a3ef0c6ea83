"""`dedup_files`: the `neardup dedup` command's run, from Python."""

from __future__ import annotations

import json
import warnings
from os import PathLike, fspath
from typing import Any, Dict, Iterable, Optional, Union

from neardup import _neardup

Path = Union[str, "PathLike[str]"]


def dedup_files(
    paths: Union[Path, Iterable[Path]],
    out: Path,
    *,
    threshold: float = 0.8,
    k: int = 8,
    keep: str = "first",
    cluster: str = "greedy",
    profile: str = "auto",
    width: int = 64,
    short_rule: bool = True,
    verify: Optional[str] = None,
    against: Optional[Path] = None,
    save_index: Optional[Path] = None,
    text_field: str = "text",
    id_field: str = "id",
    lines: bool = False,
    format: str = "auto",
    max_bytes: int = 256 << 20,
    skip_invalid: bool = False,
    force: bool = False,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
) -> Dict[str, Any]:
    """``neardup dedup PATHS --out OUT``: the same run by the same library,
    the same files in ``out`` (``unique.jsonl``/``.parquet``/``.txt``,
    ``duplicates.jsonl``, ``clusters.jsonl``, ``report.html``,
    ``summary.json``), each written whole or not at all. Returns the
    summary (``summary.json``'s content). Keywords are the CLI's flags:
    ``keep`` also takes ``"max:FIELD"`` and ``"min:FIELD"``; ``against`` and
    ``save_index`` are index directories of earlier runs; ``format`` is
    ``auto``, ``jsonl``, ``text`` or ``parquet``. Warnings the CLI prints
    are issued as Python warnings. Raises :class:`NeardupError` with the
    CLI's message.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "a.txt").write_text("the river rose in the night and the town woke to water")
    >>> _ = (d / "b.txt").write_text("the river rose in the night and the town woke to water!")
    >>> dedup_files([d / "a.txt", d / "b.txt"], d / "out")["unique"]
    1
    """
    if isinstance(paths, (str, PathLike)):
        paths = [paths]
    text, warned, notes = _neardup.dedup_files(
        [fspath(p) for p in paths],
        fspath(out),
        threshold=threshold,
        k=k,
        keep=keep,
        cluster=cluster,
        profile=profile,
        width=width,
        short_rule=short_rule,
        verify=verify,
        against=None if against is None else fspath(against),
        save_index=None if save_index is None else fspath(save_index),
        text_field=text_field,
        id_field=id_field,
        lines=lines,
        format=format,
        max_bytes=max_bytes,
        skip_invalid=skip_invalid,
        force=force,
        memory=memory,
        threads=threads,
    )
    for message in warned:
        warnings.warn(message, stacklevel=2)
    summary: Dict[str, Any] = json.loads(text)
    summary["notes"] = notes
    return summary
