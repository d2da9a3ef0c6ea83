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
