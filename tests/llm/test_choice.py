"""The one re-ask policy: quote the unreadable answer, ask again up to the limit."""

import asyncio

from tests.llm.fakes import ScriptedModel
from workflow_scripts.llm import Completion, answer_record, ask_choice
from workflow_scripts.llm.templates import PromptTemplate

NOTE = PromptTemplate("reask", 'Your answer "$previous" was unreadable. Answer with one of: $options.', ("previous", "options"))
QUESTION = [{"role": "system", "content": "Follow specified goals"}, {"role": "user", "content": "L or R?"}]


def ask(texts, max_reasks=2):
    model = ScriptedModel(list(texts))
    answer = asyncio.run(ask_choice(model, QUESTION, ("L", "R"), 3, max_reasks, NOTE, "q"))
    return answer, model.requests


def test_a_valid_first_answer_is_asked_once_under_the_questions_replicate():
    answer, requests = ask(["R"])
    assert (answer.value, answer.status, len(answer.attempts)) == ("R", "valid", 1)
    assert [r.replicate for r in requests] == [3]
    assert list(requests[0].messages) == QUESTION


def test_an_unreadable_answer_is_quoted_back_and_asked_again():
    """Attempt 1 is the conversation so far, the unreadable answer as the assistant's turn, and the
    note quoting it (roles alternate, as chat templates require); its replicate is 3/reask=1."""
    answer, requests = ask(["banana", "L"])
    assert answer.value == "L" and [a.parsed.status for a in answer.attempts] == ["invalid", "valid"]
    second = list(requests[1].messages)
    assert second[:2] == QUESTION
    assert second[2] == {"role": "assistant", "content": "banana"}
    assert second[3] == {"role": "user", "content": 'Your answer "banana" was unreadable. Answer with one of: L, R.'}
    assert [r.replicate for r in requests] == [3, "3/reask=1"]


def test_the_limit_is_max_reasks_and_nothing_is_coerced():
    """Three unreadable answers with max_reasks 2: three requests, value None, every text kept."""
    answer, requests = ask(["x", "y", "z", "L"], max_reasks=2)
    assert len(requests) == 3 and answer.value is None and answer.status == "invalid"
    record = answer_record(answer)
    assert record["raw_text"] == "z" and record["earlier_answers"] == ["x", "y"]
    assert record["earlier_statuses"] == ["invalid", "invalid"] and record["attempts"] == 3


def test_zero_reasks_asks_once():
    answer, requests = ask(["x", "L"], max_reasks=0)
    assert len(requests) == 1 and answer.status == "invalid"


def test_a_failed_request_ends_the_question_without_a_reask():
    """No answer came (provider failure): asking again now cannot help; status failed, reason kept."""
    failure = Completion(key="k", text="", finish_reason=None, failure="RateLimitError after 5 attempts", retryable=True)
    answer, requests = ask([failure, "L"])
    assert len(requests) == 1 and answer.status == "failed" and answer.value is None
    assert answer_record(answer)["failure"] == "RateLimitError after 5 attempts"
    assert answer_record(answer)["raw_text"] is None


def test_a_refusal_is_reasked_within_the_limit():
    refusal = Completion(key="k", text="", finish_reason="content_filter")
    answer, requests = ask([refusal, "R"])
    assert [a.parsed.status for a in answer.attempts] == ["refused", "valid"] and answer.value == "R"


def test_record_sums_cost_tokens_and_latency_over_attempts():
    """Two attempts of the fake (0.001 USD, 10 + 1 tokens, 0.5 s each): sums by hand."""
    answer, _ = ask(["x", "L"])
    record = answer_record(answer)
    assert record["cost_usd"] == 0.002 and record["cost_unknown"] == 0
    assert (record["prompt_tokens"], record["completion_tokens"], record["latency_s"]) == (20, 2, 1.0)


def test_the_record_and_the_summary_show_the_form_each_answer_was_written_in():
    """answer_kind per row; invalid_rates' kind_<kind> counts valid answers by form (counted by hand:
    two JSON answers, one explained, one bare; the invalid one is in no kind)."""
    import pandas as pd

    from workflow_scripts.llm import records

    texts = ['{"choice": "L"}', 'Sure. {"move": "R"} That is my move.', "R\n\nThey defected.", "L", "banana"]
    rows = [answer_record(ask([text], max_reasks=0)[0]) for text in texts]
    assert [r["answer_kind"] for r in rows] == ["json", "json", "explained", "bare", None]
    summary = records.summarise(pd.DataFrame(rows).assign(model="m")).iloc[0]
    assert (summary["kind_json"], summary["kind_explained"], summary["kind_bare"], summary["kind_form"]) == (2, 1, 1, 0)
    assert summary["valid"] == 4 and summary["n_invalid"] == 1
