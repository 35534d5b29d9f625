"""The one LLM layer: every question of every study goes through this interface.

- :func:`ask_choice` asks a model for one of a set of answers with the one re-ask policy
  (:func:`ask_choices`: several replicates, ``n`` per call where the provider allows;
  :func:`ask_round`: a round of games' :class:`Question` s, identical ones asked together);
- :func:`estimate_choice` estimates one question's choice probabilities: one request with
  log-probabilities, or samples (the model's ``estimation``);
- :func:`prefix_order` orders a job's questions so consecutive prompts share their longest prefix;
- :func:`open_models` builds a job's models (provider, cache, replay, concurrency bound and
  accounting stacked as wrappers) from its Snakemake params (:class:`Runtime`, model entries);
- :func:`answer_record` / :mod:`records` give every study's tables the same answer columns, and
  :func:`records.summarise` summarises invalid rates, spend and latency for any of them;
- :class:`TemplateSet` renders prompts from template files with checked placeholders;
- :func:`parse_answer` reads an option from a raw answer (:mod:`.parsing`).

Importing this package makes litellm work offline: its price map is read from the copy it ships
(``LITELLM_LOCAL_MODEL_COST_MAP``) instead of being fetched at import (../shared/NOTES.md).
"""

import importlib
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# The names below are imported on first use (PEP 562), not with the package: a job that needs one
# module of this layer (a table job: records) does not pay for the others (pandas, jsonschema, the
# cache and the provider stack), which is most of a short job's start-up (issue 16).
_EXPORTS = {
    "Answer": "choice",
    "Attempt": "choice",
    "CacheMiss": "base",
    "Completion": "base",
    "Estimate": "estimation",
    "FAILED": "parsing",
    "JobIncomplete": "session",
    "LanguageModel": "base",
    "ModelSpec": "spec",
    "ParsedAnswer": "parsing",
    "PermanentQueryError": "base",
    "PromptTemplate": "templates",
    "Question": "rounds",
    "ReplayIncomplete": "base",
    "Request": "base",
    "Runtime": "session",
    "STATUSES": "parsing",
    "Session": "session",
    "TemplateError": "templates",
    "TemplateSet": "templates",
    "VALID": "parsing",
    "answer_record": "records",
    "ask_choice": "choice",
    "ask_choices": "choice",
    "ask_round": "rounds",
    "estimate_choice": "estimation",
    "estimate_records": "records",
    "load_templates": "templates",
    "open_models": "session",
    "parse_answer": "parsing",
    "prefix_order": "ordering",
    "records": "records",
    "scripted_record": "records",
}


def __getattr__(name: str):
    """Import the module that defines ``name`` (a key of ``_EXPORTS``) and return the name."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
    return module if _EXPORTS[name] == name else getattr(module, name)


__all__ = [
    "Answer", "Attempt", "CacheMiss", "Completion", "Estimate", "FAILED", "JobIncomplete", "LanguageModel", "ModelSpec",
    "ParsedAnswer", "PermanentQueryError", "PromptTemplate", "Question", "ReplayIncomplete", "Request", "Runtime", "STATUSES",
    "Session", "TemplateError", "TemplateSet", "VALID", "answer_record", "ask_choice", "ask_choices", "ask_round",
    "estimate_choice", "estimate_records", "load_templates", "open_models", "parse_answer", "prefix_order",
    "records", "scripted_record",
]
