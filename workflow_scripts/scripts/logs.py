"""Logging set-up shared by the rule scripts: everything a job prints goes to its rule log."""

from __future__ import annotations

import contextlib
import logging
import sys
from pathlib import Path
from typing import Iterator

from workflow_scripts.errors import ConfigError, JobStopped

CLEAR_ERRORS = (JobStopped, ConfigError)
"""Errors whose message says in full what happened and what to do (the model, the config field,
how to resume): a job ends with that message as one line instead of a traceback."""


@contextlib.contextmanager
def rule_log(path: str | None) -> Iterator[logging.Logger]:
    """Send stderr and the ``logging`` root logger to the rule's log file for the block.

    A job that ends with one of :data:`CLEAR_ERRORS` (requests that failed after their retries or
    were not asked, a provider's permanent rejection, a config error) writes its message to the log
    and, as one line, to the terminal Snakemake runs in (the job's original stderr), and exits with
    status 1 without a traceback. Any other exception is a bug: logged with its traceback and
    re-raised. Keys never reach logs: they are not logged anywhere.
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
        except CLEAR_ERRORS as error:
            logging.getLogger("llm_dilemmas").error("job stopped: %s", error)
            tell(f"job stopped: {str(error).splitlines()[0]} (log: {path})")
            raise SystemExit(1) from None
        except BaseException:
            logging.getLogger("llm_dilemmas").exception("job failed")
            raise
        finally:
            root.removeHandler(handler)


def tell(line: str) -> None:
    """Write one line to the job's original stderr (Snakemake's terminal), if it is still there."""
    try:
        print(line, file=sys.__stderr__, flush=True)
    except (OSError, ValueError, AttributeError):  # no stderr, or its reader is gone
        pass
