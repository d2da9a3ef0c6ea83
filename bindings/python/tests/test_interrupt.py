"""Ctrl-C stops a long call: the run is cancelled inside the engine, the
caller gets KeyboardInterrupt, and the package works on afterwards.

Each test runs its long call in a child process and sends it SIGINT, as a
terminal does, once the call is under way."""

import json
import signal
import subprocess
import sys
import textwrap
import time

# A corpus whose dedup takes many seconds: overlapping windows of a long
# word list, each a near-duplicate of its neighbours.
CORPUS = """
words = [f"w{i}" for i in range(60000)]
texts = [" ".join(words[i % 59000 : i % 59000 + 60]) + f" n{i}" for i in range(N)]
"""


def interrupted(script, n):
    """Runs `script` (which prints "started" before its long call) in a child
    Python, sends it SIGINT a moment after "started", and gives what it
    printed."""
    # A runner started in the background by a shell (`.ci/run &`) passes
    # SIGINT on ignored, and Python then keeps it ignored: give the child
    # Python's own handler, as in a terminal.
    prelude = "import signal\nsignal.signal(signal.SIGINT, signal.default_int_handler)\n"
    code = prelude + f"N = {n}\n" + CORPUS + textwrap.dedent(script)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "started"
        time.sleep(0.5)
        child.send_signal(signal.SIGINT)
        out, _ = child.communicate(timeout=120)
    finally:
        child.kill()
    assert child.returncode == 0, out
    return out.splitlines()


def test_ctrl_c_stops_dedup():
    lines = interrupted(
        """
        import neardup
        print("started", flush=True)
        try:
            neardup.dedup(texts)
            print("finished")
        except KeyboardInterrupt:
            print("interrupted")
        # The package is usable after the interrupt.
        print(neardup.dedup(texts[:3000]).summary["documents"])
        """,
        n=400_000,
    )
    assert lines == ["interrupted", "3000"]


def test_ctrl_c_stops_dedup_files_and_leaves_no_outputs(tmp_path):
    corpus = tmp_path / "docs.jsonl"
    out = tmp_path / "out"
    lines = interrupted(
        f"""
        import json, os, neardup
        with open({str(corpus)!r}, "w") as f:
            for i, t in enumerate(texts):
                f.write(json.dumps({{"id": i, "text": t}}) + "\\n")
        print("started", flush=True)
        try:
            neardup.dedup_files([{str(corpus)!r}], {str(out)!r})
            print("finished")
        except KeyboardInterrupt:
            print("interrupted")
        print(sorted(os.listdir({str(out)!r})) if os.path.exists({str(out)!r}) else [])
        # Run again into the same directory, as a user would.
        summary = neardup.dedup_files([{str(corpus)!r}], {str(out)!r})
        print(summary["documents"])
        """,
        n=400_000,
    )
    assert lines[0] == "interrupted", lines
    # Nothing that looks like a finished run: no summary.json, no kept records.
    left = json.loads(lines[1].replace("'", '"'))
    assert "summary.json" not in left and "unique.jsonl" not in left, left
    assert lines[2] == "400000"
