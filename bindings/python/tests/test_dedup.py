import json

import pytest

import neardup
from conftest import conformance_corpus, write_jsonl


def cli_fates(cli, tmp_path, ids, texts, *flags):
    """What `neardup dedup` drops, as {dropped id: kept id}."""
    path = tmp_path / "docs.jsonl"
    write_jsonl(path, ids, texts)
    out = tmp_path / "out"
    cli("dedup", path, "--out", out, "--quiet", *flags)
    dropped = {}
    for line in (out / "duplicates.jsonl").open():
        row = json.loads(line)
        dropped[row["id"]] = row["duplicate_of"]
    return dropped, json.loads((out / "summary.json").read_text())


@pytest.mark.parametrize("flags", [(), ("--cluster", "components"), ("--keep", "longest", "-k", "6")])
def test_equal_to_the_cli_on_the_samples(tmp_path, cli, samples, flags):
    ids, texts = samples
    want, summary = cli_fates(cli, tmp_path, ids, texts, *flags)
    options = {"cluster": "greedy", "keep": "first", "k": 8}
    for name, value in zip(flags[::2], flags[1::2]):
        options[name.lstrip("-")] = int(value) if name == "-k" else value
    result = neardup.dedup(texts, ids, **options)
    got = {ids[d]: ids[int(of)] for d, of in enumerate(result.duplicate_of) if of >= 0}
    assert got == want and len(want) > 50
    for key in ["documents", "unique", "dropped", "exact_copies", "groups", "pairs"]:
        assert result.summary[key] == summary[key], key
    assert result.kept.sum() == summary["unique"]


@pytest.mark.parametrize("flags", [(), ("--cluster", "components")])
def test_equal_to_the_cli_on_the_conformance_corpus(tmp_path, cli, flags):
    # One verdict everywhere: the corpus the CLI's doors are checked on
    # (crates/cli/tests/conformance.rs), with the same drops, each for the
    # same kept document.
    ids, texts = conformance_corpus()
    want, summary = cli_fates(cli, tmp_path, ids, texts, *flags)
    cluster = flags[1] if flags else "greedy"
    result = neardup.dedup(texts, ids, cluster=cluster)
    got = {ids[d]: ids[int(of)] for d, of in enumerate(result.duplicate_of) if of >= 0}
    assert got == want and len(want) > 300
    assert result.summary["unique"] == summary["unique"]


def test_result_columns(samples):
    pa = pytest.importorskip("pyarrow")
    ids, texts = samples
    result = neardup.dedup(pa.array(texts), ids)
    table = result.to_arrow()
    assert table.column_names == ["id", "kept", "duplicate_of", "duplicate_of_id", "distance", "similarity", "cluster"]
    assert table.num_rows == len(texts)
    frame = result.to_pandas()
    assert frame["kept"].sum() == result.summary["unique"]
    for group in result.clusters:
        assert result.kept[group[0]] and not result.kept[group[1:]].any()
        assert all(result.duplicate_of[d] == group[0] for d in group[1:])
    assert sum(len(g) - 1 for g in result.clusters) == result.summary["dropped"]


def test_bad_settings_and_texts():
    with pytest.raises(neardup.SettingsError, match="threshold"):
        neardup.dedup(["a"], threshold=1.5)
    # As the CLI: 0 would pass every pair.
    with pytest.raises(neardup.SettingsError, match=r"threshold: 0; .*above 0.*verify none"):
        neardup.dedup(["a"], threshold=0)
    with pytest.raises(neardup.SettingsError, match=r"verify: \"jaccard:0\".*or none"):
        neardup.dedup(["a"], verify="jaccard:0")
    with pytest.raises(neardup.SettingsError, match="keep"):
        neardup.dedup(["a"], keep="max")
    with pytest.raises(neardup.SettingsError, match="cluster"):
        neardup.dedup(["a"], cluster="louvain")
    with pytest.raises(neardup.InputError, match="1 ids for 2 texts"):
        neardup.dedup(["a", "b"], ["x"])
    with pytest.raises(neardup.SettingsError):
        neardup.dedup(["a"], k=64)
    with pytest.raises(neardup.InputError, match=r"texts\[0\]"):
        neardup.dedup([None])
    assert len(neardup.dedup([])) == 0


@pytest.mark.parametrize("flags", [(), ("--cluster", "components", "--keep", "longest")])
def test_dedup_files_writes_what_the_cli_writes(tmp_path, cli, flags):
    from conftest import SAMPLES

    cli("dedup", SAMPLES, "--out", tmp_path / "cli", "--quiet", *flags)
    options = {name.lstrip("-"): value for name, value in zip(flags[::2], flags[1::2])}
    summary = neardup.dedup_files(SAMPLES, tmp_path / "py", **options)
    for name in ["unique.jsonl", "unique.txt", "duplicates.jsonl", "clusters.jsonl"]:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
    want = json.loads((tmp_path / "cli" / "summary.json").read_text())
    for got in [summary, json.loads((tmp_path / "py" / "summary.json").read_text())]:
        assert {**got, "seconds": 0} == {**want, "seconds": 0}
    assert (tmp_path / "py" / "report.html").stat().st_size > 10_000


def test_dedup_files_errors_are_the_clis(tmp_path):
    with pytest.raises(neardup.NeardupError, match="the directory is not empty"):
        (tmp_path / "out").mkdir()
        (tmp_path / "out" / "x").write_text("x")
        neardup.dedup_files([tmp_path / "out" / "x"], tmp_path / "out")
    with pytest.raises(neardup.NeardupError, match="no such file|cannot"):
        neardup.dedup_files([tmp_path / "missing.jsonl"], tmp_path / "o2")
    with pytest.raises(neardup.NeardupError, match="name the field"):
        neardup.dedup_files([tmp_path / "out" / "x"], tmp_path / "o3", keep="max")
    with pytest.warns(UserWarning, match="no document has the field"):
        p = tmp_path / "d.jsonl"
        p.write_text('{"id": "a", "text": "some text here"}\n')
        neardup.dedup_files(p, tmp_path / "o4", keep="max:score")
