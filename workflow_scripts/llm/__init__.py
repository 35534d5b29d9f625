"""The one LLM layer: every question of every study goes through this interface.

- :func:`ask_choice` asks a model for one of a set of answers with the one re-ask policy
  (:func:`ask_choices`: several replicates, ``n`` per call where the provider allows);
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

import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from workflow_scripts.llm import records  # noqa: E402
from workflow_scripts.llm.base import CacheMiss, Completion, LanguageModel, PermanentQueryError, ReplayIncomplete, Request  # noqa: E402
from workflow_scripts.llm.choice import Answer, Attempt, ask_choice, ask_choices  # noqa: E402
from workflow_scripts.llm.estimation import Estimate, estimate_choice  # noqa: E402
from workflow_scripts.llm.ordering import prefix_order  # noqa: E402
from workflow_scripts.llm.parsing import FAILED, STATUSES, VALID, ParsedAnswer, parse_answer  # noqa: E402
from workflow_scripts.llm.records import answer_record, estimate_records, scripted_record  # noqa: E402
from workflow_scripts.llm.session import JobIncomplete, Runtime, Session, open_models  # noqa: E402
from workflow_scripts.llm.spec import ModelSpec  # noqa: E402
from workflow_scripts.llm.templates import PromptTemplate, TemplateError, TemplateSet, load_templates  # noqa: E402

__all__ = [
    "Answer", "Attempt", "CacheMiss", "Completion", "Estimate", "FAILED", "JobIncomplete", "LanguageModel", "ModelSpec",
    "ParsedAnswer", "PermanentQueryError", "PromptTemplate", "ReplayIncomplete", "Request", "Runtime", "STATUSES",
    "Session", "TemplateError", "TemplateSet", "VALID", "answer_record", "ask_choice", "ask_choices",
    "estimate_choice", "estimate_records", "load_templates", "open_models", "parse_answer", "prefix_order",
    "records", "scripted_record",
]
