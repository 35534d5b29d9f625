"""Snakemake's config-file loader, wrapped by workflow_scripts.config.snakemake_hook: a
YAML syntax error in a ``--configfile`` overlay names file, line and column; a good file loads as
before. The whole path through ``snakemake -n`` is tests/config/test_refusals.py (slow)."""

from __future__ import annotations

import subprocess
import sys

import pytest
from snakemake.common import configfile
from snakemake_interface_common.exceptions import WorkflowError

from tests.conftest import REPO
from workflow_scripts.config import snakemake_hook


@pytest.fixture
def patched(monkeypatch):
    monkeypatch.setattr(configfile, "_load_configfile", configfile._load_configfile)
    snakemake_hook.patch(configfile)
    return configfile


@pytest.mark.parametrize("text, line, column", [
    ("ipd:\n  samples: 3\n max_reasks: 2\n", 3, 2),               # an indent one space short
    ("models:\n  m: {enabled: true\n  other: 1\n", 3, 8),          # an unclosed flow mapping
    ("crg:\n\tgames_per_cell: 2\n", 2, 1),                         # a tab
])
def test_a_syntax_error_names_file_line_and_column(patched, tmp_path, text, line, column):
    path = tmp_path / "overlay.yaml"
    path.write_text(text)
    with pytest.raises(WorkflowError) as error:
        patched.load_configfile(str(path))
    assert f"{path}: line {line}, column {column}: YAML syntax error" in str(error.value)
    assert "not valid JSON or YAML" not in str(error.value)


def test_good_files_load_as_snakemake_loads_them(patched, tmp_path):
    path = tmp_path / "overlay.yaml"
    path.write_text("ipd:\n  samples: 3\n")
    assert patched.load_configfile(str(path)) == {"ipd": {"samples": 3}}
    assert patched.load_configfile(tmp_path / "overlay.yaml") == {"ipd": {"samples": 3}}


def test_a_missing_file_is_named_with_the_likely_cause(patched, tmp_path):
    """Snakemake 9.27.1 opens the file outside its try (a bare FileNotFoundError traceback); the hook
    names the file and the usual cause: a target after --configfile, read as one more file."""
    with pytest.raises(WorkflowError, match=r"'results/plan.csv' does not exist .* put targets before --configfile"):
        patched.load_configfile("results/plan.csv")


def test_a_target_after_configfile_is_refused_in_one_message(tmp_path):
    """Through Snakemake's command line: one message, no traceback."""
    done = subprocess.run([sys.executable, "-m", "snakemake", "-n", "--cores", "1", "--configfile",
                           "config/test/scripted.yaml", "results/no_such_target.csv"],
                          capture_output=True, text=True, cwd=REPO)
    assert done.returncode != 0
    output = done.stdout + done.stderr
    assert "'results/no_such_target.csv' does not exist" in output and "Traceback" not in output


def test_the_pth_line_activates_the_hook_in_a_fresh_interpreter(tmp_path):
    """The line make setup writes, run as site.py runs a .pth line, patches Snakemake's loader."""
    code = (f"exec({snakemake_hook.PTH_LINE!r}); from snakemake.common import configfile; "
            "print(configfile._load_configfile.__qualname__)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "patch.<locals>.load_configfile"
