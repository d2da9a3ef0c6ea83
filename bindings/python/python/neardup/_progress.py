"""Progress of a long run: the engine reports ``(stage, bytes_read,
bytes_in_all)`` from the calling thread every 50 ms or so; a reporter turns
that into a bar (tqdm's when installed, else one line on stderr) or hands
it to the caller's own callable."""

from __future__ import annotations

import sys
from typing import Any, Callable, Optional, Union


class Reporter:
    """What the engine calls as it goes, and closes at the end."""

    def __init__(self, callback: Optional[Callable[[str, int, Optional[int]], Any]] = None):
        self._callback = callback
        self._bar: Any = None
        self._stage: Optional[str] = None

    def __call__(self, stage: str, done: int, total: Optional[int]) -> None:
        if self._callback is not None:
            self._callback(stage, done, total)
            return
        if stage != self._stage:
            self.close()
            self._stage = stage
            self._bar = _bar(stage, total)
        if self._bar is not None:
            self._bar.update(done - self._bar.n)
        else:
            shown = f"{done / total:.0%}" if total else f"{done / 1e6:.0f} MB"
            sys.stderr.write(f"\r{stage}: {shown}")
            sys.stderr.flush()

    def close(self) -> None:
        """Ends the bar (or the line) of the stage under way."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None
        elif self._stage is not None and self._callback is None:
            sys.stderr.write("\n")
        self._stage = None


def _bar(stage: str, total: Optional[int]) -> Any:
    try:
        from tqdm.auto import tqdm
    except ImportError:
        return None
    return tqdm(total=total, desc=stage, unit="B", unit_scale=True, leave=False)


def reporter(progress: Union[bool, Callable[[str, int, Optional[int]], Any], None]) -> Optional[Reporter]:
    """The reporter ``progress=`` asks for: none for ``None``/``False``, a
    bar for ``True``, the callable itself otherwise.

    >>> reporter(None) is None
    True
    """
    if progress is None or progress is False:
        return None
    if progress is True:
        return Reporter()
    if callable(progress):
        return Reporter(progress)
    from neardup._neardup import SettingsError

    raise SettingsError(f"progress: {progress!r}; give True, False, or a callable (stage, done, total)")
