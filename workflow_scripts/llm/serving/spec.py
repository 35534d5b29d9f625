"""A model entry's ``serve`` section: the pipeline starts the model's server itself.

``models.<name>.serve`` (``config/schema/config.schema.yaml``) names the engine (vLLM, SGLang or
llama.cpp), the weights (a local path, or a name the engine resolves pinned to a revision), the
engine's release (``version``), its arguments, whether it runs deterministically, and what its SLURM
job asks for (GPUs, memory, time, partition). :class:`ServeSpec` is that section checked, with the
pipeline's defaults filled in; :meth:`ServeSpec.identity` is what of it shapes the answers and so
enters their cache key (``served_by``):

- the engine and its release: another release is other code computing the answers;
- the weights' identity (:mod:`.weights`): a digest of the local file or folder, or the pinned revision;
- every argument except those that change only capacity (:data:`CAPACITY_ARGS`: the log-probability
  cap, memory fractions, batch limits, logging), the engine's defaults included (:attr:`Engine.defaults`):
  data type, quantisation, context length, tensor parallelism (it changes the order of the sums, so
  the last bits of the logits), the engine's seed;
- the determinism flag (vLLM's batch invariance, SGLang's deterministic inference, llama.cpp's cold
  evaluation).

The address, node, port, GPU model and the job's resources are not part of it: the same server
restarted elsewhere replays the cache. Changing any part of the identity asks every question of the
model again.
"""

from __future__ import annotations

import functools
import importlib.metadata
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

from workflow_scripts.errors import ConfigError
from workflow_scripts.llm.caching.keys import canonical_json
from workflow_scripts.llm.serving.engines import (
    COMMON_ARGS, ENGINES, LLAMA_CPP, RESERVED_ARGS, SGLANG, VLLM, engine_command, engine_environment, version_command)
from workflow_scripts.llm.serving.weights import COMMIT, is_local, stamp, weights_identity

SERVED_PROVIDERS = ("hosted_vllm", "openai")
"""litellm providers that reach a server's OpenAI-compatible API at a base URL (the part of
``litellm_model`` before '/'); the rest is the name the server lists the model under."""
CAPACITY_ARGS = ("max_logprobs", "gpu_memory_utilization", "max_num_seqs", "mem_fraction_static",
                 "max_running_requests", "disable_log_requests", "disable_log_stats", "uvicorn_log_level",
                 "log_level")
"""Arguments that change how much a server holds or says, not what it answers: outside the cache identity."""
JOB_FIELDS = ("resources",)
"""Parts of ``serve`` that reach only the server's SLURM job, not the query jobs' params (raising the
memory reruns no query job)."""


@dataclass(frozen=True)
class ServeSpec:
    """The ``serve`` section of model ``model`` (module docstring), checked.

    Attributes:
        model: the config name. served_name: the name the server lists the model under (the
            ``litellm_model`` after its provider prefix).
        engine: ``vllm``, ``sglang`` or ``llama.cpp``. version: its release.
        weights: a local path (made absolute) or a name; revision: the commit a name is pinned to.
        args: the engine's arguments, the pipeline's defaults filled in (vLLM's ``max_logprobs`` is the
            model's ``logprobs.top`` unless set).
        deterministic: start the engine deterministic (module docstring).
        executable / launcher: the program that starts the engine, and words put before it.
        resources: the server's SLURM job (gpus, gpu_model, cpus, mem_mb, runtime, partition, slurm_extra).
        ready_timeout_s: seconds the engine may take until it lists the model.
        chat_template: llama.cpp only, the template of :mod:`workflow_scripts.llm.serving.chat_templates`.
    """

    model: str
    served_name: str
    engine: str
    version: str
    weights: str
    revision: str | None = None
    args: dict = field(default_factory=dict)
    deterministic: bool = True
    executable: str | None = None
    launcher: list = field(default_factory=list)
    resources: dict = field(default_factory=dict)
    ready_timeout_s: float = 1800.0
    chat_template: str | None = None

    @classmethod
    def from_entry(cls, name: str, entry: dict) -> "ServeSpec":
        """The spec of a model entry with schema defaults (its ``serve`` is not None).

        Raises:
            ConfigError: naming the field and the fix (:func:`serve_problems`).
        """
        problems = serve_problems(name, entry)
        if problems:
            raise ConfigError(problems[0])
        serve, engine = entry["serve"], ENGINES[entry["serve"]["engine"]]
        args = {**engine.defaults, **serve["args"]}
        if serve["engine"] == VLLM:
            args.setdefault("max_logprobs", entry["logprobs"]["top"])
        weights = str(Path(serve["weights"]).expanduser().resolve()) if is_local(serve["weights"]) else serve["weights"]
        return cls(
            model=name, served_name=entry["litellm_model"].split("/", 1)[1], engine=serve["engine"],
            version=serve["version"] or installed_version(serve["engine"]), weights=weights,
            revision=serve["revision"], args=args, deterministic=serve["deterministic"],
            executable=serve["executable"], launcher=list(serve["launcher"]), resources=dict(serve.get("resources") or {}),
            ready_timeout_s=float(serve["ready_timeout_s"]), chat_template=entry.get("chat_template"),
        )

    def identity(self) -> dict:
        """What shapes the answers (module docstring): engine, version, weights, arguments, determinism."""
        return {"engine": self.engine, "version": self.version,
                "weights": _weights_identity(self.weights, self.revision),
                "args": {k: v for k, v in sorted(self.args.items()) if k not in CAPACITY_ARGS},
                "deterministic": self.deterministic}

    def served_by(self) -> str:
        """The identity as the cache key's ``served_by``: ``served:<canonical JSON>``."""
        return "served:" + canonical_json(self.identity())

    def command(self, port: int) -> list[str]:
        """The engine's command line on 127.0.0.1:``port`` (:func:`.engines.engine_command`)."""
        return engine_command(ENGINES[self.engine], self.executable, self.launcher, self.weights, self.served_name,
                              port, self.args, self.deterministic, self.revision, self.chat_template)

    def environment(self) -> dict:
        """Environment variables the engine needs (``VLLM_BATCH_INVARIANT=1``)."""
        return engine_environment(ENGINES[self.engine], self.deterministic)

    def version_command(self) -> list[str]:
        """A command that prints the release of the engine the node would start."""
        return version_command(ENGINES[self.engine], self.executable, self.launcher)

    def to_json(self) -> str:
        """The spec as JSON (the server process's ``--spec``)."""
        return json.dumps(asdict(self), sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> "ServeSpec":
        """The spec :meth:`to_json` wrote."""
        return cls(**json.loads(text))


def _weights_identity(weights: str, revision: str | None) -> str:
    """:func:`.weights.weights_identity`, computed once per process for weights whose files are unchanged
    (every query job's params ask for it when Snakemake builds the DAG)."""
    return _remembered_identity(weights, revision, stamp(weights))


@functools.lru_cache(maxsize=None)
def _remembered_identity(weights: str, revision: str | None, stamp: tuple) -> str:
    return weights_identity(weights, revision)


def installed_version(engine: str) -> str:
    """The release of ``engine`` installed beside the pipeline (llama.cpp: llama-cpp-python's).

    Raises:
        ConfigError: it is not installed here.
    """
    package = {LLAMA_CPP: "llama-cpp-python", VLLM: "vllm", SGLANG: "sglang"}[engine]
    try:
        return importlib.metadata.version(package)
    except importlib.metadata.PackageNotFoundError:
        raise ConfigError(f"serve.version: {package} is not installed beside the pipeline, so its release cannot be "
                          f"read here; state the release the nodes run (e.g. version: \"0.11.0\")") from None


def serve_problems(name: str, entry: dict) -> list[str]:
    """What keeps model entry ``models.<name>`` (schema defaults filled in) from being served, each
    naming its field and the fix; empty if nothing does (or the entry has no ``serve``)."""
    serve = entry.get("serve")
    if not serve:
        return []
    field_of = f"models.{name}"
    problems = _entry_problems(field_of, entry) + _weights_problems(field_of, serve)
    problems += _arg_problems(field_of, entry, serve)
    return problems


def _entry_problems(field_of: str, entry: dict) -> list[str]:
    serve, problems = entry["serve"], []
    provider = entry["litellm_model"].split("/", 1)[0]
    if provider not in SERVED_PROVIDERS:
        problems.append(f"{field_of}.litellm_model: a served model is asked through its server's OpenAI-compatible API: "
                        f"write {' or '.join(p + '/<name>' for p in SERVED_PROVIDERS)} (the name the server lists it under)")
    for key, why in (("api_base", "its address is found when its server starts"), ("embedded", "it is served, not embedded"),
                     ("server", "the kind follows from serve.engine")):
        if entry.get(key) is not None:
            problems.append(f"{field_of}.{key}: remove it from a served model ({why})")
    if entry.get("chat_template") is not None and serve["engine"] != LLAMA_CPP:
        problems.append(f"{field_of}.chat_template: only the llama.cpp engine takes one of the pipeline's chat templates; "
                        f"{serve['engine']} formats messages with the model's own; remove it")
    if serve["engine"] != LLAMA_CPP and entry.get("answer_format") == "grammar":
        problems.append(f"{field_of}.answer_format: grammar is llama.cpp's GBNF, which {serve['engine']} does not read; "
                        "use free_text or json_schema")
    if serve["engine"] != LLAMA_CPP and not serve.get("version"):
        problems.append(f"{field_of}.serve.version: state the {serve['engine']} release the nodes run (e.g. \"0.11.0\"): "
                        "it is part of the answers' cache identity, and the server refuses to start another")
    return problems


def _weights_problems(field_of: str, serve: dict) -> list[str]:
    weights, revision = serve["weights"], serve["revision"]
    if serve["engine"] == LLAMA_CPP and not Path(weights).expanduser().is_file():
        return [f"{field_of}.serve.weights: llama.cpp serves one GGUF file and there is none at {weights}; "
                "give the file's path (relative to the working directory, or absolute)"]
    if is_local(weights):
        if revision is not None:
            return [f"{field_of}.serve.revision: {weights} is a local path, identified by its digest; remove revision"]
        return []
    if revision is None or not COMMIT.match(revision):
        return [f"{field_of}.serve.revision: {weights} is no file or folder here, so it is a name the engine resolves "
                "on the cluster; pin it to one commit of its repository (revision: <40-hex commit>, e.g. from the "
                "model page's history) so the cache knows which weights answered"]
    return []


def _arg_problems(field_of: str, entry: dict, serve: dict) -> list[str]:
    engine, args, problems = ENGINES[serve["engine"]], serve["args"], []
    for key in args:
        if key in RESERVED_ARGS:
            problems.append(f"{field_of}.serve.args.{key}: the pipeline sets {key} itself; remove it")
        elif key in COMMON_ARGS and key not in engine.flags:
            problems.append(f"{field_of}.serve.args.{key}: {engine.name} has no such setting; remove it")
    cap, top = args.get("max_logprobs"), entry["logprobs"]["top"]
    if engine.name == VLLM and cap is not None and cap < top:
        problems.append(f"{field_of}.logprobs.top: {top} is above serve.args.max_logprobs {cap}, the cap the vLLM server "
                        f"starts with (it refuses larger requests: \"Requested sample logprobs of {top}, which is greater "
                        f"than max allowed: {cap}\"); raise serve.args.max_logprobs or lower logprobs.top")
    return problems


def config_problems(name: str, entry: dict) -> list[str]:
    """What of model entry ``models.<name>`` only the config as written can show (checked where the
    config is read; a query job's params carry the derived ``served_by`` and leave the server's
    resources out, :data:`JOB_FIELDS`): a ``served_by`` of one's own, fewer GPUs than tensor-parallel shards."""
    serve = entry.get("serve")
    if not serve:
        return []
    problems = []
    if entry.get("served_by") is not None:
        problems.append(f"models.{name}.served_by: remove it from a served model (the pipeline derives it from serve)")
    gpus, shards = serve["resources"]["gpus"], serve["args"].get("tensor_parallel_size", 1)
    if serve["engine"] != LLAMA_CPP and gpus < shards:
        problems.append(f"models.{name}.serve.resources.gpus: {gpus} is below serve.args.tensor_parallel_size {shards} "
                        "(tensor parallelism puts one shard on each GPU); ask for as many GPUs as shards")
    return problems
