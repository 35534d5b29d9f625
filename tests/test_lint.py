"""``snakemake --lint`` finds nothing in the workflow, on the default config without a
profile, apart from the exceptions listed here with the reason each is not a problem."""

import re
import subprocess

from tests.conftest import REPO, SNAKEMAKE

EXCEPTIONS = {
    # The spend plan renders every prompt template, read from the workflow directory as every query job
    # reads them (workflow_scripts/tools/plan.py); its template inputs lie under that directory, which
    # the lint takes for a hard-coded output prefix. The plan is a local rule: it always runs where the
    # workflow directory is.
    ("plan", "Param basedir is a prefix of input or output file but hardcoded"),
}


def findings(text: str) -> set[tuple[str, str]]:
    """(rule or snakefile, title) of every finding of ``snakemake --lint``'s text output."""
    found, where = set(), None
    for line in text.splitlines():
        header = re.match(r"Lints for (?:rule (\S+) \(|snakefile (\S+):)", line)
        if header:
            where = header.group(1) or header.group(2)
        title = re.match(r"\s+\* (.+?):?$", line)
        if title and where is not None:
            found.add((where, title.group(1).rstrip(":")))
    return found


def test_snakemake_lint_finds_nothing_but_the_listed_exceptions():
    """Every lint of Snakemake's (rules, snakefiles, scripts' paths) on the default config."""
    done = subprocess.run([str(SNAKEMAKE), "--lint", "--workflow-profile", "none", "--cores", "1"],
                          cwd=REPO, capture_output=True, text=True, timeout=300)
    output = done.stdout + done.stderr
    found = findings(output)
    assert "Exception" not in output and "Error" not in output, output[-4000:]  # the workflow was read
    assert done.returncode == (1 if found else 0), output[-4000:]  # snakemake --lint exits 1 on findings
    assert found - EXCEPTIONS == set(), output[-4000:]
