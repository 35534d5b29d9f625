"""Provider faults: one retry layer; the permanent / transient / refusal /
too-long split; Retry-After; a quota 429 is permanent; nothing is retried by litellm itself."""

import asyncio
import secrets

import httpx
import litellm
import pytest

from workflow_scripts.llm.base import PermanentQueryError, Request
from workflow_scripts.llm.providers.provider import LiteLLMModel
from workflow_scripts.llm.spec import ModelSpec

REQUEST = Request([{"role": "user", "content": "L or R?"}], 0, ("L", "R"), "q")
ENTRY = {"litellm_model": "openai/gpt-4o", "decoding": {"temperature": 1.0}, "num_retries": 3, "retry_budget_s": 100}


def response(status, headers=None):
    return httpx.Response(status, headers=headers or {}, request=httpx.Request("POST", "https://x"))


def rate_limit(message="slow down", retry_after=None):
    headers = {"retry-after": str(retry_after)} if retry_after is not None else {}
    return litellm.RateLimitError(message, llm_provider="openai", model="gpt-4o", response=response(429, headers))


ERRORS = {
    "rate_limit": lambda: rate_limit(),
    "server_500": lambda: litellm.InternalServerError("boom", llm_provider="openai", model="gpt-4o"),
    "unavailable_503": lambda: litellm.ServiceUnavailableError("down", llm_provider="openai", model="gpt-4o"),
    "timeout": lambda: litellm.Timeout("took too long", model="gpt-4o", llm_provider="openai"),
    "connection": lambda: litellm.APIConnectionError("reset", llm_provider="openai", model="gpt-4o"),
}
PERMANENT = {
    "auth_401": lambda: litellm.AuthenticationError("bad key", llm_provider="openai", model="gpt-4o"),
    "not_found": lambda: litellm.NotFoundError("no such model", llm_provider="openai", model="gpt-4o"),
    "bad_request": lambda: litellm.BadRequestError("temperature unsupported", model="gpt-4o", llm_provider="openai"),
    "permission": lambda: litellm.PermissionDeniedError("denied", llm_provider="openai", model="gpt-4o",
                                                         response=response(403)),
    "quota_429": lambda: rate_limit("You exceeded your current quota (insufficient_quota)"),
}


class Provider:
    """Fake litellm.acompletion: raises the scripted errors in order, then answers 'L'."""

    def __init__(self, errors):
        self.errors, self.calls, self.kwargs = list(errors), 0, []

    async def __call__(self, **kwargs):
        self.calls += 1
        self.kwargs.append(kwargs)
        if self.errors:
            raise self.errors.pop(0)()
        return litellm.ModelResponse(choices=[{"index": 0, "message": {"role": "assistant", "content": "L"},
                                               "finish_reason": "stop"}], model="gpt-4o")


def run(monkeypatch, errors, entry=ENTRY):
    provider, waits = Provider(errors), []

    async def sleep(seconds):
        waits.append(seconds)

    monkeypatch.setattr(litellm, "acompletion", provider)
    model = LiteLLMModel(ModelSpec.from_config("gpt", entry), sleep=sleep)
    return asyncio.run(model.complete(REQUEST)), provider, waits


@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_transient_errors_are_retried_and_counted(monkeypatch, kind):
    completion, provider, waits = run(monkeypatch, [ERRORS[kind]] * 2)
    assert completion.text == "L" and completion.failure is None
    assert provider.calls == 3 and completion.retries == 2 and len(waits) == 2


@pytest.mark.parametrize("kind", sorted(ERRORS))
def test_transient_errors_past_the_retry_limit_give_a_failed_completion_not_an_exception(monkeypatch, kind):
    """num_retries 3: 4 attempts, then a retryable failure naming the error (the job goes on)."""
    completion, provider, _ = run(monkeypatch, [ERRORS[kind]] * 10)
    assert provider.calls == 4 and completion.failure is not None and completion.retryable
    assert "after 4 attempts" in completion.failure


@pytest.mark.parametrize("kind", sorted(PERMANENT))
def test_permanent_errors_stop_at_once_naming_the_model_and_field(monkeypatch, kind):
    with pytest.raises(PermanentQueryError, match=r"models\.gpt") as error:
        run(monkeypatch, [PERMANENT[kind]])
    assert "kept in the cache" in str(error.value)


def test_only_one_retry_layer_is_active(monkeypatch):
    """litellm's and the OpenAI client's retries are off: every HTTP attempt is ours and counted."""
    _, provider, _ = run(monkeypatch, [])
    assert provider.kwargs[0]["num_retries"] == 0 and provider.kwargs[0]["max_retries"] == 0


def test_retry_after_is_honoured(monkeypatch):
    _, _, waits = run(monkeypatch, [lambda: rate_limit(retry_after=7)])
    assert waits == [7.0]


def test_the_retry_budget_bounds_the_waiting(monkeypatch):
    """A Retry-After longer than the budget ends the retries at once (failed, retryable)."""
    completion, provider, waits = run(monkeypatch, [lambda: rate_limit(retry_after=500)])
    assert provider.calls == 1 and waits == [] and completion.retryable


def test_content_policy_rejection_is_a_refused_answer(monkeypatch):
    """litellm's ContentPolicyViolationError (an HTTP 400 subclass) becomes finish reason content_filter."""
    policy = lambda: litellm.ContentPolicyViolationError("flagged", model="gpt-4o", llm_provider="openai")  # noqa: E731
    completion, provider, _ = run(monkeypatch, [policy])
    assert provider.calls == 1 and completion.failure is None
    assert completion.finish_reason == "content_filter" and completion.text == ""
    assert completion.entry is not None, "a refusal is an answer: it is cached"


def test_a_prompt_longer_than_the_context_fails_without_retry(monkeypatch):
    too_long = lambda: litellm.ContextWindowExceededError("too many tokens", model="gpt-4o", llm_provider="openai")  # noqa: E731
    completion, provider, _ = run(monkeypatch, [too_long])
    assert provider.calls == 1 and completion.failure is not None and not completion.retryable
    assert "context" in completion.failure


def test_the_api_key_is_sent_but_never_stored(monkeypatch):
    key = "sk-test-" + secrets.token_hex(12)  # made at run time: no key-shaped text in the repository
    monkeypatch.setenv("TEST_PROVIDER_KEY", key)
    completion, provider, _ = run(monkeypatch, [], {**ENTRY, "api_key_env": "TEST_PROVIDER_KEY"})
    assert provider.kwargs[0]["api_key"] == key
    assert key not in repr(completion.entry)


@pytest.mark.parametrize("message", [
    "Your request was rejected as a result of our safety system.",
    "The response was filtered due to the prompt triggering Azure OpenAI's content management policy.",
    "Output blocked by content_filter",
])
def test_a_plain_bad_request_that_says_content_was_refused_is_a_refusal(monkeypatch, message):
    """Providers word refusals differently and litellm maps only some to ContentPolicyViolationError."""
    refused = lambda: litellm.BadRequestError(message, model="gpt-4o", llm_provider="openai")  # noqa: E731
    completion, provider, _ = run(monkeypatch, [refused])
    assert provider.calls == 1 and completion.finish_reason == "content_filter" and completion.failure is None


def test_a_plain_bad_request_that_says_the_prompt_is_too_long_is_too_long(monkeypatch):
    too_long = lambda: litellm.BadRequestError("Requested tokens (3000) exceed context window of 2048",  # noqa: E731
                                               model="gpt-4o", llm_provider="openai")
    completion, _, _ = run(monkeypatch, [too_long])
    assert completion.failure is not None and not completion.retryable
