"""Asking a provider through litellm: the call, its errors, what litellm knows, and what it costs.

- :mod:`.provider`: the litellm call of a model (retries, timeouts, the answer as a ``Completion``);
- :mod:`.provider_errors`: which provider errors are transient and how long to wait;
- :mod:`.sent`: the provider request body litellm actually sent;
- :mod:`.litellm_facts`: what litellm knows about a model, kept on disk per litellm release;
- :mod:`.pricing`: prices per token from the config or litellm's price map;
- :mod:`.tokens`: token counts of prompts without asking any model;
- :mod:`.limits`: the concurrency bound of a model's requests in flight.
"""
