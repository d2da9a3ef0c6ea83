"""One conversion of inputs for every entry point, settings checked up
front, and results that line up with the frames they came from."""

import numpy as np
import pytest

import neardup

TEXTS = [
    "the cat sat on the mat by the door of the old house",
    "a recipe for bread: flour, water, salt and yeast",
    "The cat sat on the mat, by the door of the old house.",
    "a recipe for bread: flour, water, salt and yeast!",
]
KEPT = [True, True, False, False]


def columns():
    """The same four texts in every form a user holds them in."""
    pa = pytest.importorskip("pyarrow")
    pd = pytest.importorskip("pandas")
    pl = pytest.importorskip("polars")
    datasets = pytest.importorskip("datasets")
    ds = datasets.Dataset.from_dict({"text": TEXTS})
    return {
        "list": TEXTS,
        "tuple": tuple(TEXTS),
        "generator": (t for t in TEXTS),
        "numpy": np.array(TEXTS),
        "numpy-object": np.array(TEXTS, dtype=object),
        "arrow": pa.array(TEXTS),
        "arrow-large": pa.array(TEXTS, pa.large_string()),
        "arrow-view": pa.array(TEXTS, pa.string_view()),
        "arrow-chunked": pa.chunked_array([TEXTS[:1], TEXTS[1:3], TEXTS[3:]]),
        "arrow-dictionary": pa.array(TEXTS).dictionary_encode(),
        "arrow-chunked-dictionary": pa.chunked_array([pa.array(TEXTS[:2]).dictionary_encode(),
                                                      pa.array(TEXTS[2:]).dictionary_encode()]),
        "pandas": pd.Series(TEXTS, index=[9, 8, 7, 6]),
        "pandas-string": pd.Series(TEXTS, dtype="string"),
        "pandas-category": pd.Series(TEXTS, dtype="category"),
        "polars": pl.Series(TEXTS),
        "polars-categorical": pl.Series(TEXTS, dtype=pl.Categorical),
        "polars-enum": pl.Series(TEXTS, dtype=pl.Enum(sorted(set(TEXTS)))),
        "datasets": ds["text"],
    }


KINDS = [
    "list", "tuple", "generator", "numpy", "numpy-object", "arrow", "arrow-large", "arrow-view",
    "arrow-chunked", "arrow-dictionary", "arrow-chunked-dictionary", "pandas", "pandas-string",
    "pandas-category", "polars", "polars-categorical", "polars-enum", "datasets",
]


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_point_takes_every_column(kind):
    assert sorted(columns()) == sorted(KINDS)
    want = neardup.Fingerprinter().fingerprint_batch(TEXTS)
    assert neardup.dedup(columns()[kind]).kept.tolist() == KEPT, kind
    assert (neardup.Fingerprinter().fingerprint_batch(columns()[kind]) == want).all(), kind
    assert neardup.Deduper().add(columns()[kind]).tolist() == KEPT, kind


def test_inputs_refused_say_what_and_where():
    pd = pytest.importorskip("pandas")
    with pytest.raises(neardup.InputError, match=r"texts\[1\]: a int, not a str \(id 'b'\)"):
        neardup.dedup(pd.Series(["A text", 2, "C"], dtype=object), ids=["a", "b", "c"])
    with pytest.raises(neardup.InputError, match=r"texts\[0\]: a bytes, not a str; decode it"):
        neardup.dedup([b"abc"])
    with pytest.raises(neardup.InputError, match="one bytes value"):
        neardup.dedup(b"abc")
    with pytest.raises(neardup.InputError, match=r"a dict; give its values"):
        neardup.dedup({"id1": "a text"})
    with pytest.raises(neardup.InputError, match=r"texts\[2\]: null.*\(id 12\)"):
        neardup.dedup(pd.Series(["a", "b", None]), ids=[10, 11, 12])
    with pytest.raises(neardup.InputError, match=r"ids\[1\]: a float; an id is a str or an int"):
        neardup.dedup(["a", "b"], ids=["x", 1.5])
    with pytest.raises(neardup.InputError, match="a whole Dataset"):
        datasets = pytest.importorskip("datasets")
        neardup.dedup(datasets.Dataset.from_dict({"text": TEXTS}))
    try:
        neardup.dedup(["a", 3], ids=["p", "q"])
    except neardup.InputError as error:
        assert error.position == 1


def test_nulls_are_kept_or_dropped_as_asked():
    pa = pytest.importorskip("pyarrow")
    texts = pa.array([TEXTS[0], None, TEXTS[2], None, TEXTS[1]])
    kept = neardup.dedup(texts, on_null="keep", ids=["a", "b", "c", "d", "e"])
    assert kept.kept.tolist() == [True, True, False, True, True]
    assert kept.duplicate_of.tolist() == [-1, -1, 0, -1, -1]
    assert kept.duplicate_of_id == [None, None, "a", None, None]
    assert kept.cluster.tolist() == [0, 1, 0, 3, 4]
    assert kept.summary["nulls"] == 2
    dropped = neardup.dedup([TEXTS[0], None, TEXTS[2]], on_null="drop")
    assert dropped.kept.tolist() == [True, False, False]
    assert dropped.cluster.tolist() == [0, -1, 0]
    with pytest.raises(neardup.SettingsError, match="on_null"):
        neardup.dedup(TEXTS, on_null="skip")


def test_settings_are_checked_before_anything_runs():
    for call, match in [
        (lambda: neardup.dedup(TEXTS, threads=-2), "threads: -2"),
        (lambda: neardup.dedup(TEXTS, threads=100_000), "threads: 100000 threads on .* per core"),
        (lambda: neardup.dedup(TEXTS, k=-1), "k: -1"),
        (lambda: neardup.dedup(TEXTS, memory=0), "memory: 0"),
        (lambda: neardup.dedup(TEXTS, cluster="componentz"), "cluster"),
        (lambda: neardup.dedup(TEXTS, progress="yes"), "progress"),
        (lambda: neardup.Index(k=-1), "k: -1"),
        (lambda: neardup.Index(expected=0), "expected: 0"),
        (lambda: neardup.Fingerprinter(width=-1), "width"),
        (lambda: neardup.Deduper(k=200), "k: 200"),
    ]:
        with pytest.raises(neardup.SettingsError, match=match):
            call()
    assert neardup.dedup(TEXTS, threads=-1).kept.tolist() == KEPT, "-1: every core"
    with pytest.raises(neardup.InputError, match="a: -1"):
        neardup.distance(-1, 0)
    assert issubclass(neardup.SettingsError, neardup.NeardupError)
    assert issubclass(neardup.NeardupError, ValueError)


def test_results_line_up_with_their_frames():
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame({"text": TEXTS, "n": range(4)}, index=[40, 30, 20, 10])
    result = neardup.dedup(frame["text"])
    both = pd.concat([frame, result.to_pandas(index=frame.index)], axis=1)
    assert both["kept"].tolist() == KEPT and len(both) == 4
    assert both.loc[20, "duplicate_of_id"] == "0"
    assert result.filter(frame)["n"].tolist() == [0, 1]
    assert neardup.dedup_frame(frame).index.tolist() == [40, 30]
    assert result.kept_indices.tolist() == [0, 1]
    assert (result.similarity[2:] >= 0.8).all() and np.isnan(result.similarity[:2]).all()
    with pytest.warns(DeprecationWarning):
        assert result.keep.tolist() == KEPT
    with pytest.raises(neardup.InputError, match="3 of them for 4 texts"):
        result.filter(TEXTS[:3])


def test_progress_is_reported():
    seen = []
    texts = [f"text number {i} with some words to read" for i in range(200_000)]
    neardup.dedup(texts, progress=lambda stage, done, total: seen.append((stage, done, total)))
    assert seen and seen[0][0] == "fingerprinting"
    assert all(done >= 0 for _, done, _ in seen)
