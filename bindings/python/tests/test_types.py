"""The package type-checks: `mypy --strict` on it (its settings in
pyproject.toml), `mypy.stubtest` of its stubs against the installed
module (no allowlist), and a caller's typo in a setting caught by the
checker."""

import subprocess
import sys
from pathlib import Path

CONFIG = Path(__file__).resolve().parents[1] / "pyproject.toml"


def mypy(*args):
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--config-file", str(CONFIG), *args],
        capture_output=True,
        text=True,
    )


def test_the_package_passes_mypy_strict():
    done = mypy("-p", "neardup")
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_stubs_match_the_compiled_module():
    done = subprocess.run(
        [sys.executable, "-m", "mypy.stubtest", "neardup", "--mypy-config-file", str(CONFIG)],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_misspelt_setting_is_a_type_error(tmp_path):
    caller = tmp_path / "caller.py"
    caller.write_text(
        "import neardup\n"
        "r = neardup.dedup(['a'], cluster='componentz')\n"
        "ok = neardup.dedup(['a'], cluster='components', on_null='drop').kept_indices\n"
        "d = neardup.Deduper(profile='zh')\n"
        "neardup.Fingerprinter(profile='english')\n"
    )
    done = mypy(str(caller))
    assert done.returncode == 1, done.stdout
    errors = [line for line in done.stdout.splitlines() if ": error:" in line]
    assert len(errors) == 2, done.stdout
    assert "componentz" in errors[0] and "english" in errors[1], done.stdout
