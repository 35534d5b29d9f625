"""Logging set-up shared by the rule scripts: everything a job prints goes to its rule log."""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import Path
from typing import Iterator


@contextlib.contextmanager
def rule_log(path: str | None) -> Iterator[logging.Logger]:
    """Send stderr and the ``logging`` root logger to the rule's log file for the block.

    Exceptions are logged with their traceback and re-raised, so the job fails with the
    message in its log (secrets never reach logs: keys are not logged anywhere).
    """
    if not path:
        yield logging.getLogger("llm_dilemmas")
        return
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as sink, contextlib.redirect_stderr(sink):
        handler = logging.StreamHandler(sink)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        root = logging.getLogger()
        root.addHandler(handler)
        root.setLevel(logging.INFO)
        for noisy in ("LiteLLM", "litellm", "httpx", "openai"):
            logging.getLogger(noisy).setLevel(logging.WARNING)
        try:
            yield logging.getLogger("llm_dilemmas")
        except BaseException:
            logging.getLogger("llm_dilemmas").exception("job failed")
            raise
        finally:
            root.removeHandler(handler)
