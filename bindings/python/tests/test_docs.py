"""The examples in the compiled module's docstrings run and hold (pytest's
--doctest-modules collects the Python modules' own)."""

import doctest

import neardup._neardup as native


def test_compiled_docstrings():
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    tests = []
    for obj in [native.Fingerprinter, native.Index, native.distance]:
        tests += [t for t in finder.find(obj, obj.__name__, globs={}) if t.examples]
    assert len(tests) >= 3
    for test in tests:
        runner.run(test)
    assert runner.failures == 0


def test_the_frame_examples_of_the_guide_run():
    # docs/PYTHON.md's blocks marked "```python tested": pandas, polars and
    # a Hugging Face dataset, each run as a reader would paste it.
    import re
    from pathlib import Path

    guide = (Path(__file__).resolve().parents[3] / "docs" / "PYTHON.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python tested\n(.*?)```", guide, flags=re.S)
    assert len(blocks) == 3, "the pandas, polars and datasets examples"
    for block in blocks:
        exec(compile(block, "docs/PYTHON.md", "exec"), {})
