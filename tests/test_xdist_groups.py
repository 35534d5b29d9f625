"""The suite's xdist groups take effect (tests/conftest.py): tests of one group run on one worker.

pytest-xdist's ``--dist loadgroup`` works by renaming node ids (``test_x@group``); pytest 9.2 no longer
reads the attribute xdist 3.8 renames, and the groups were then ignored without a word (two embedded
model servers at once, module-scoped runs made once per worker). This runs a small suite on two
workers and checks where each test ran.
"""

import os
import subprocess
import sys
import textwrap

import pytest


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_tests_of_one_xdist_group_run_on_one_worker(tmp_path):
    (tmp_path / "test_grouped.py").write_text(textwrap.dedent("""
        import os
        import pathlib
        import pytest

        @pytest.mark.parametrize("i", range(6))
        @pytest.mark.xdist_group("exclusive")
        def test_grouped(i):
            (pathlib.Path(os.environ["RAN_DIR"]) / f"ran-{i}").write_text(os.environ["PYTEST_XDIST_WORKER"])
    """))
    ran = tmp_path / "ran"
    ran.mkdir()
    done = subprocess.run([sys.executable, "-m", "pytest", "-n", "2", "--dist", "loadgroup", "-q", "-p", "no:cacheprovider",
                           str(tmp_path / "test_grouped.py")], cwd=tmp_path, capture_output=True, text=True, timeout=300,
                          env={**os.environ, "RAN_DIR": str(ran)})
    assert done.returncode == 0, done.stdout[-2000:]
    workers = {p.read_text() for p in ran.glob("ran-*")}
    assert len(list(ran.glob("ran-*"))) == 6
    assert len(workers) == 1, f"one group ran on several workers: {sorted(workers)}"
