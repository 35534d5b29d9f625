"""The command-line tools' help, generated at every build (an MkDocs hook).

A page marker ``<!-- cli-help: NAME -->`` is replaced by the ``--help`` text of
``python -m workflow_scripts.tools.<name>``, run with the interpreter that builds the site, so the
reference shows the options the code has (tests/test_docs.py builds it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
MARKER = re.compile(r"<!-- cli-help: (\w+) -->")


def help_text(tool: str) -> str:
    """The ``--help`` output of ``workflow_scripts.tools.<tool>``; a tool that fails stops the build."""
    result = subprocess.run([sys.executable, "-m", f"workflow_scripts.tools.{tool}", "--help"], cwd=REPO,
                            capture_output=True, text=True, timeout=300, check=True)
    return result.stdout.strip()


def on_page_markdown(markdown: str, page, config, files) -> str:  # noqa: ARG001 (MkDocs hook signature)
    """MkDocs hook: each marker becomes a fenced block with the tool's help."""
    return MARKER.sub(lambda m: f"```text\n{help_text(m.group(1))}\n```", markdown)
