"""Types of the compiled half of neardup (Rust, PyO3)."""

from os import PathLike
from typing import Any, Callable, ClassVar, Iterable, Iterator, Literal, Optional, Sequence, Tuple, Union, final

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

__version__: str
__all__ = [
    "NeardupError",
    "InputError",
    "SettingsError",
    "StorageError",
    "__version__",
    "Fingerprinter",
    "distance",
    "Index",
    "Deduper",
    "dedup",
    "verify_spec",
    "dedup_files",
    "simhash_text",
    "simhash_features",
    "SimhashIndex",
    "Simhash",
    "spark_plan_blocks",
    "table_keys",
    "pairs_in_groups",
    "sketch_rows",
    "short_rule_alone",
    "judge_pairs",
    "short_pairs_in_groups",
    "least_in_components",
    "fingerprint_pairs",
    "exact_units",
    "unit_pairs_by_fingerprint",
    "short_unit_pairs",
    "distinct_unit_pairs",
]

class NeardupError(ValueError):
    """Bad settings, unreadable input or a failed run; the message is the
    CLI's."""

class InputError(NeardupError):
    """Input neardup cannot take; names the position (and id)."""

    position: int

class SettingsError(NeardupError):
    """A setting out of range or unknown; names the parameter."""

class StorageError(NeardupError):
    """An index or folder that cannot be read or written; names the path."""

_Profile = Literal["auto", "en", "zh", "python-simhash"]

@final
class Fingerprinter:
    def __new__(cls, profile: _Profile = "auto", width: int = 64) -> Fingerprinter: ...
    @property
    def width(self) -> int: ...
    @property
    def profile(self) -> str: ...
    def fingerprint(self, text: str) -> int: ...
    def fingerprint_batch(self, texts: Any) -> npt.NDArray[np.uint64]: ...

def distance(a: int, b: int) -> int: ...

@final
class Index:
    def __new__(cls, k: int = 3, width: int = 64, expected: int = 1_000_000) -> Index: ...
    def add(self, ids: Any, fingerprints: Any) -> None: ...
    def query(self, fingerprints: Any) -> list[list[tuple[str, int]]]: ...
    def remove(self, ids: Any) -> None: ...
    def get(self, id: Union[str, int]) -> int: ...
    def save(
        self, path: Union[str, PathLike[str]], fingerprinter: Optional[Fingerprinter] = None
    ) -> None: ...
    @staticmethod
    def open(path: Union[str, PathLike[str]], read_only: bool = False) -> Index: ...
    @property
    def k(self) -> int: ...
    @property
    def width(self) -> int: ...
    @property
    def read_only(self) -> bool: ...
    def close(self) -> None: ...
    def __enter__(self) -> Index: ...
    def __exit__(self, *_exc: object) -> None: ...
    def __len__(self) -> int: ...
    def __contains__(self, id: object, /) -> bool: ...

@final
class Deduper:
    def __new__(
        cls,
        index: Optional[Union[str, PathLike[str]]] = None,
        *,
        threshold: float = ...,
        k: int = ...,
        profile: str = "auto",
        width: int = 64,
        short_rule: bool = True,
        verify: Optional[str] = None,
    ) -> Deduper: ...
    def add(
        self, texts: Any, ids: list[str]
    ) -> tuple[list[Optional[str]], npt.NDArray[np.int32], npt.NDArray[np.float32]]: ...
    def close(self) -> None: ...
    def __len__(self) -> int: ...
    @property
    def path(self) -> Optional[PathLike[str]]: ...
    @property
    def k(self) -> int: ...

def dedup(
    texts: Any,
    ids: Any = None,
    *,
    threshold: float = ...,
    k: int = ...,
    keep: str = "first",
    cluster: str = "greedy",
    profile: str = "auto",
    width: int = 64,
    short_rule: bool = True,
    verify: Optional[str] = None,
    against: Optional[Union[str, PathLike[str]]] = None,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
    progress: Optional[Callable[[str, int, Optional[int]], Any]] = None,
) -> tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.int32],
    npt.NDArray[np.float32],
    Optional[list[Optional[str]]],
    list[list[int]],
    dict[str, Any],
]: ...
def dedup_files(
    paths: Sequence[str],
    out: str,
    *,
    threshold: float = ...,
    k: int = ...,
    keep: str = "first",
    cluster: str = "greedy",
    profile: str = "auto",
    width: int = 64,
    short_rule: bool = True,
    verify: Optional[str] = None,
    against: Optional[str] = None,
    save_index: Optional[str] = None,
    text_field: str = "text",
    id_field: str = "id",
    lines: bool = False,
    format: str = "auto",
    max_bytes: int = ...,
    skip_invalid: bool = False,
    force: bool = False,
    memory: Optional[int] = None,
    threads: Optional[int] = None,
) -> Tuple[str, list[str], list[str]]: ...
def verify_spec(threshold: float, verify: Optional[str] = None) -> Optional[str]: ...
def simhash_text(text: str, f: int) -> int: ...
def simhash_features(features: Any, f: int, owner: Any = None) -> int: ...

@disjoint_base
class Simhash:
    large_weight_cutoff: ClassVar[int]
    batch_size: ClassVar[int]
    __hash__: ClassVar[None]  # type: ignore[assignment]
    f: int
    f_bytes: Any
    reg: Any
    hashfunc: Any
    hashfunc_returns_int: Any
    log: Any
    value: Any
    def __init__(
        self, value: Any, f: int = 64, reg: Any = None, hashfunc: Any = None, log: Any = None
    ) -> None: ...
    def build_by_text(self, content: Any) -> None: ...
    def build_by_features(self, features: Any) -> None: ...
    def _tokenize(self, content: Any) -> list[str]: ...
    def _slide(self, content: Any, width: int = 4) -> list[str]: ...
    def distance(self, another: Any) -> int: ...
    def __eq__(self, other: object, /) -> bool: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any]) -> None: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

@disjoint_base
class SimhashIndex:
    log: Any
    @property
    def f(self) -> int: ...
    @property
    def k(self) -> int: ...
    @property
    def offsets(self) -> list[int]: ...
    def __init__(self, objs: Any, f: int = 64, k: int = 2, log: Any = None) -> None: ...
    def get_near_dups(self, simhash: Any) -> list[str]: ...
    def add(self, obj_id: Any, simhash: Any) -> None: ...
    def delete(self, obj_id: Any, simhash: Any) -> None: ...
    def get_keys(self, simhash: Any) -> Iterator[str]: ...
    def bucket_size(self) -> int: ...
    def __getstate__(self) -> dict[str, Any]: ...
    def __setstate__(self, state: dict[str, Any]) -> None: ...
    def __reduce__(self) -> Tuple[Any, ...]: ...

def spark_plan_blocks(k: int) -> int: ...
def table_keys(
    fingerprints: npt.NDArray[np.int64], k: int, blocks: int
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int32], npt.NDArray[np.int64]]: ...
def pairs_in_groups(
    tables: npt.NDArray[np.int32],
    offsets: npt.NDArray[np.int64],
    fingerprints: npt.NDArray[np.int64],
    k: int,
    blocks: int,
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int32]]: ...
def sketch_rows(
    fingerprinter: Fingerprinter, texts: Any, verify: Optional[str] = None
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int8], npt.NDArray[np.int32], npt.NDArray[np.int64]]: ...
def short_rule_alone(verify: str) -> bool: ...
def short_pairs_in_groups(
    offsets: npt.NDArray[np.int64], units: npt.NDArray[np.int64], short: npt.NDArray[np.bool_]
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def fingerprint_pairs(
    fingerprints: npt.NDArray[np.int64], k: int
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int32]]: ...
def exact_units(
    rank: npt.NDArray[np.int64], fp: npt.NDArray[np.int64], text_hash: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]: ...
def unit_pairs_by_fingerprint(
    unit: npt.NDArray[np.int64], fp: npt.NDArray[np.int64], k: int, limit: int
) -> Optional[Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]: ...
def short_unit_pairs(
    keys: npt.NDArray[np.int64], units: npt.NDArray[np.int64], short: npt.NDArray[np.bool_], limit: int
) -> Optional[Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]]: ...
def distinct_unit_pairs(
    x: npt.NDArray[np.int64], y: npt.NDArray[np.int64]
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def least_in_components(
    u: npt.NDArray[np.int64], v: npt.NDArray[np.int64]
) -> Tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]: ...
def judge_pairs(
    texts: Any,
    fingerprints: npt.NDArray[np.int64],
    a: npt.NDArray[np.int64],
    b: npt.NDArray[np.int64],
    *,
    verify: str,
    k: int,
    short_rule: bool,
    profile: str,
) -> npt.NDArray[np.bool_]: ...
