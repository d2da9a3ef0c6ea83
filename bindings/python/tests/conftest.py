"""Shared fixtures: the samples that ship in the repo, and the CLI to
compare with (built by scripts/test-python.sh; NEARDUP_BIN names it)."""

import json
import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
SAMPLES = ROOT / "samples"


def cli_path() -> Path:
    path = Path(os.environ.get("NEARDUP_BIN", ROOT / "target" / "debug" / "neardup"))
    if not path.exists():
        pytest.fail(f"{path}: the neardup command is missing; run scripts/test-python.sh, which builds it")
    return path


@pytest.fixture(scope="session")
def cli():
    """Runs `neardup ARGS...`, failing the test with its stderr if it fails."""

    def run(*args):
        done = subprocess.run([str(cli_path()), *map(str, args)], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    return run


def sample_documents():
    """Every document of samples/: each JSON line's text, each .txt file
    whole, in path order; ids say where each came from."""
    ids, texts = [], []
    for path in sorted(SAMPLES.rglob("*")):
        if path.suffix == ".jsonl":
            for n, line in enumerate(path.open(encoding="utf-8")):
                ids.append(f"{path.relative_to(SAMPLES)}:{n}")
                texts.append(json.loads(line)["text"])
        elif path.suffix == ".txt":
            ids.append(str(path.relative_to(SAMPLES)))
            texts.append(path.read_text(encoding="utf-8"))
    return ids, texts


@pytest.fixture(scope="session")
def samples():
    return sample_documents()


def conformance_corpus():
    """The one corpus every door must judge alike (conformance/corpus.jsonl,
    written by conformance/corpus.py), as (ids, texts)."""
    path = ROOT / "conformance" / "corpus.jsonl"
    rows = [json.loads(line) for line in path.open(encoding="utf-8")]
    return [r["id"] for r in rows], [r["text"] for r in rows]


def write_jsonl(path: Path, ids, texts):
    with path.open("w", encoding="utf-8") as out:
        for i, t in zip(ids, texts):
            out.write(json.dumps({"id": i, "text": t}, ensure_ascii=False) + "\n")
