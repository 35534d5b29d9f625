"""Progress of a query job: a line every interval in the job's log whether answers come
or not, the same line on the terminal when the job's stderr is one, none there otherwise."""

import io
import logging
import time

from workflow_scripts.llm.spend.accounting import JobStats, Progress


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_lines_come_every_interval_even_without_answers(caplog):
    """0.05 s interval, nothing answered for 0.4 s (a job stuck retrying): several lines, each with
    answers done/planned, cache hits, not-valid answers, retries and spend."""
    stats = JobStats(answers=3, cache_hits=2, calls=1, retries=4, not_valid=1, cost_usd=0.0125)
    terminal = Terminal()
    with caplog.at_level(logging.INFO, logger="workflow_scripts.llm.spend.accounting"):
        with Progress([stats], "ipd/original/m/none", planned=10, interval=0.05, terminal=terminal):
            time.sleep(0.4)
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) >= 3 and lines[-1].startswith("ipd/original/m/none: done")
    for line in lines:
        assert "3/10" in line and "2 from cache" in line and "1 calls" in line and "4 retries" in line
        assert "1 not valid" in line and "$0.0125" in line
    assert terminal.getvalue().splitlines() == lines


def test_the_counts_are_read_as_they_change(caplog):
    stats = JobStats()
    with caplog.at_level(logging.INFO, logger="workflow_scripts.llm.spend.accounting"):
        with Progress([stats, JobStats(answers=1)], "job", planned=4, interval=10):
            stats.answers, stats.cache_hits = 2, 2
    assert "3/4" in caplog.records[-1].getMessage() and "2 from cache" in caplog.records[-1].getMessage()


def test_no_terminal_no_terminal_lines(caplog):
    """A stream that is not a terminal (a pipe, a file) gets nothing: the job's log has the lines."""
    pipe = io.StringIO()
    with caplog.at_level(logging.INFO, logger="workflow_scripts.llm.spend.accounting"):
        with Progress([JobStats()], "job", interval=0.05, terminal=pipe):
            time.sleep(0.15)
    assert pipe.getvalue() == "" and len(caplog.records) >= 2


def test_re_asked_answers_beyond_the_planned_questions_show_no_share(caplog):
    """10 questions planned, 30 answers (each question re-asked twice): no '30/10', no share."""
    with caplog.at_level(logging.INFO, logger="workflow_scripts.llm.spend.accounting"):
        with Progress([JobStats(answers=30, not_valid=20)], "job", planned=10, interval=10):
            pass
    line = caplog.records[-1].getMessage()
    assert line.startswith("job: done 30 answers [") and "(10 questions planned; re-asks add answers)" in line
    assert "%" not in line and "/10" not in line
    with caplog.at_level(logging.INFO, logger="workflow_scripts.llm.spend.accounting"):
        with Progress([JobStats(answers=10)], "job", planned=10, interval=10):
            pass
    assert "100%" in caplog.records[-1].getMessage() and "10/10" in caplog.records[-1].getMessage()
