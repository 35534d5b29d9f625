"""Which providers' batch APIs the pinned litellm really reaches: the one table that ``batch: true``,
the config check and the plan's batch column follow.

Derived from litellm 1.110.2's own code (``litellm/batches/main.py``, ``litellm/files/main.py``,
``ProviderConfigManager.get_provider_batches_config`` / ``get_provider_files_config``) and its
dispatch called offline with its HTTP transport mocked (tests/llm/test_batch_wire.py), not from its
documentation:

- ``openai``, ``azure``, ``xai``: files and batches through their own handlers; litellm turns xAI's
  paged results (read by the batch id) into OpenAI's output lines, but names that "output file"
  only for a batch that completed: the results a cancelled xAI batch kept are read by its id.
- ``gemini`` (the Developer API): reached only when every call passes ``model=`` (without it
  litellm refuses "doesn't support custom_llm_provider=gemini"); its batch job runs the uploaded
  OpenAI-shaped lines and writes OpenAI-shaped output lines. Cancelling is not reached.
- ``mistral``: reached only with ``model=`` on every call (the job's model is set on the job);
  OpenAI-shaped output and error files. Cancelling is not reached.
- ``vertex_ai``: files to Cloud Storage and batch prediction jobs (``GCS_BUCKET_NAME``,
  ``VERTEXAI_PROJECT``, ``VERTEXAI_LOCATION``, Google credentials through ``google-auth``, which litellm
  needs for any Vertex call and this project does not install); litellm turns each line into a Vertex
  request labelled with its custom id (cut to 63 characters, and whole in an encoded label) and the
  predictions back into OpenAI's output lines under the whole id.
- ``bedrock``: refused. litellm creates Bedrock model-invocation jobs (with ``model=``) but returns
  their output as Bedrock writes it (``recordId`` / ``modelOutput`` in the model's native schema),
  which it does not turn back into OpenAI's lines: no answer could be matched to its request.
- ``anthropic``: refused. litellm retrieves Message Batches and their results but cannot create one
  (no batch config for anthropic in ``create_batch``; its create transformation raises
  ``NotImplementedError``).
- ``hosted_vllm``: refused. litellm sends plain ``/v1/files`` and ``/v1/batches`` requests to the
  server, which a vLLM server does not have (only litellm's proxy with a database serves them);
  vLLM's own batch is ``vllm run-batch -i in.jsonl -o out.jsonl --model M`` on the node that holds
  the model.

Every other provider litellm knows is refused as not reached (``together_ai``, ...). litellm's own
retries are off on every batch call, as on the chat path (:func:`workflow_scripts.llm.providers.provider.transport`).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reach:
    """What litellm does with one provider's batch API.

    Attributes:
        reachable: the whole batch life (upload, create, retrieve, output and error files) works.
        needs_model: every call must pass ``model=`` (the provider's batch config is found by it).
        cancel: litellm can cancel a batch of this provider.
        results_by_batch_id: the results of any ended batch are read with the batch id as file id.
        reason: why it is refused (None where it is reachable).
    """

    reachable: bool
    needs_model: bool = False
    cancel: bool = True
    results_by_batch_id: bool = False
    reason: str | None = None


BATCH_REACH: dict[str, Reach] = {
    "openai": Reach(True),
    "azure": Reach(True),
    "xai": Reach(True, results_by_batch_id=True),
    "vertex_ai": Reach(True),
    "gemini": Reach(True, needs_model=True, cancel=False),
    "mistral": Reach(True, needs_model=True, cancel=False),
    "bedrock": Reach(False, reason=(
        "litellm 1.110.2 creates Bedrock batch jobs but hands their output back in Bedrock's own record "
        "format (recordId / modelOutput), not as OpenAI's output lines, so no answer could be matched to "
        "its request")),
    "anthropic": Reach(False, reason=(
        "litellm 1.110.2 retrieves Anthropic Message Batches but cannot create one (its create "
        "transformation raises NotImplementedError)")),
    "hosted_vllm": Reach(False, reason=(
        "a vLLM server has no /v1/files or /v1/batches routes (only litellm's proxy with a database serves "
        "them); vLLM's own batch is `vllm run-batch -i in.jsonl -o out.jsonl --model M` on the node that "
        "holds the model, or ask it synchronously (batch: false)")),
}
"""Batch reach per litellm provider prefix (module docstring)."""
NOT_REACHED = Reach(False, reason="litellm 1.110.2 reaches no batch API of this provider")


def batch_reach(litellm_model: str) -> Reach:
    """The :class:`Reach` of a litellm model id's provider (its prefix before ``/``)."""
    return BATCH_REACH.get(litellm_model.partition("/")[0], NOT_REACHED)


def batch_providers() -> tuple[str, ...]:
    """The providers whose batch API is reached, in table order."""
    return tuple(provider for provider, reach in BATCH_REACH.items() if reach.reachable)
