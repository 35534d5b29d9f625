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
- :func:`parse_answer` reads an option from a raw answer (:mod:`.reading.parsing`).

This package is the layer's public face: rule scripts import only the names of ``__all__`` from it
(``from workflow_scripts.llm import Budget``), never its modules, so its rooms can be rearranged
without touching a rule. Inside, modules stand in rooms by concern:

- the top (``llm/*.py``): the core every room builds on (:mod:`.base` requests and completions,
  :mod:`.spec` model entries, :mod:`.templates`, :mod:`.choice` the re-ask policy, :mod:`.grouping`,
  :mod:`.adaptation`, :mod:`.extraction`) and the modules that assemble the rooms (:mod:`.session`
  the wrapper stack, :mod:`.records`, :mod:`.rounds`, :mod:`.context`, :mod:`.ordering`);
- :mod:`.reading`: reading an answer (:mod:`.reading.parsing` labels it);
- :mod:`.caching`: the cache key (:mod:`.caching.keys`), the response cache, replay, file locks;
- :mod:`.providers`: the litellm call, provider errors, what litellm knows, prices, token counts,
  the concurrency bound;
- :mod:`.serving`: models the pipeline serves itself: the embedded llama.cpp model and ``serve``
  entries (vLLM, SGLang, llama.cpp), their servers and watchdog;
- :mod:`.batch`: batch mode through providers' batch APIs;
- :mod:`.spend`: the spend plan, budget caps and accounting;
- :mod:`.estimation`: choice probabilities from log-probabilities or samples, the sequential
  stopping rule.

An import crosses between rooms only along a declared arrow (``tests/test_layout.py``,
``ROOM_ARROWS``, each with its reason). Leaving out the top, which both serves the rooms and assembles
them, the rooms stand in layers, each importing only rooms before it: reading, caching, providers,
serving, batch, spend, estimation.

Importing this package makes litellm work offline: its price map is read from the copy it ships
(``LITELLM_LOCAL_MODEL_COST_MAP``) instead of being fetched from the network at import (litellm's default).
"""

import importlib
import os

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# The names below are imported on first use (PEP 562), not with the package: a job that needs one
# module of this layer (a table job: records) does not pay for the others (pandas, jsonschema, the
# cache and the provider stack), which is most of a short job's start-up.
_EXPORTS = {
    "Answer": "choice",
    "answer_entry": "spec",
    "answer_record": "records",
    "ask_choice": "choice",
    "ask_choices": "choice",
    "ask_round": "rounds",
    "Attempt": "choice",
    "Budget": "spend.budget",
    "CacheMiss": "base",
    "Completion": "base",
    "condition_slots": "session",
    "Estimate": "estimation.estimate",
    "estimate_choice": "estimation.estimate",
    "estimate_records": "records",
    "FAILED": "reading.parsing",
    "JobIncomplete": "session",
    "LanguageModel": "base",
    "load_templates": "templates",
    "mark_run": "serving.run_servers",
    "ModelSpec": "spec",
    "open_models": "session",
    "parse_answer": "reading.parsing",
    "ParsedAnswer": "reading.parsing",
    "PermanentQueryError": "base",
    "pid_alive": "serving.embedded",
    "prefix_order": "ordering",
    "probability_capable": "spec",
    "PromptTemplate": "templates",
    "Question": "rounds",
    "read_counts": "spend.accounting",
    "records": "records",
    "ReplayIncomplete": "base",
    "Request": "base",
    "RUN_ENV": "serving.watchdog",
    "run_with_models": "session",
    "Runtime": "session",
    "scripted_record": "records",
    "ServeSpec": "serving.spec",
    "Session": "session",
    "STATUSES": "reading.parsing",
    "stop_jobs_on_signals": "serving.watchdog",
    "stop_run": "serving.run_servers",
    "TemplateError": "templates",
    "TemplateSet": "templates",
    "VALID": "reading.parsing",
    "with_extracted_answers": "extraction",
}


def __getattr__(name: str):
    """Import the module that defines ``name`` (a key of ``_EXPORTS``) and return the name."""
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(f"{__name__}.{_EXPORTS[name]}")
    return module if _EXPORTS[name] == name else getattr(module, name)


__all__ = [
    "Answer", "answer_entry", "answer_record", "ask_choice", "ask_choices", "ask_round", "Attempt", "Budget",
    "CacheMiss", "Completion", "condition_slots", "Estimate", "estimate_choice", "estimate_records", "FAILED",
    "JobIncomplete", "LanguageModel", "load_templates", "mark_run", "ModelSpec", "open_models", "parse_answer",
    "ParsedAnswer", "PermanentQueryError", "pid_alive", "prefix_order", "probability_capable", "PromptTemplate",
    "Question", "read_counts", "records", "ReplayIncomplete", "Request", "RUN_ENV", "run_with_models", "Runtime",
    "scripted_record", "ServeSpec", "Session", "STATUSES", "stop_jobs_on_signals", "stop_run", "TemplateError",
    "TemplateSet", "VALID", "with_extracted_answers",
]
