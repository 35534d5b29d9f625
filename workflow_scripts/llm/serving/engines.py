"""The command lines of the engines that serve an open-weight model, built from a ``serve`` entry.

Each engine is a row of :data:`ENGINES`: the program that starts it, the flags of the arguments
the config names in engine-neutral terms (:data:`COMMON_ARGS`), how it is made deterministic and how
it states its release. Every other argument of ``serve.args`` is passed as the engine's own flag
(``--name-with-dashes`` for vLLM and SGLang, ``--name_with_underscores`` for llama-cpp-python).

Flags as the engines document them (checked by ``tests/llm/serving/test_engines.py``):

- vLLM (``vllm serve --help``; docs.vllm.ai "Engine Arguments"): ``vllm serve MODEL --host --port
  --served-model-name --revision --tensor-parallel-size --max-model-len --max-logprobs --dtype
  --quantization --seed``; batch invariance ("Batch Invariance": identical output whatever the batch)
  by the environment variable ``VLLM_BATCH_INVARIANT=1`` (NVIDIA compute capability 8.0 or higher).
- SGLang (``python3 -m sglang.launch_server --help``; docs.sglang.io "Server Arguments",
  "Deterministic Inference"): ``--model-path --host --port --served-model-name --revision --tp-size
  --context-length --dtype --quantization --random-seed --enable-deterministic-inference``. SGLang has
  no cap on log-probabilities to set.
- llama.cpp: llama-cpp-python's server as the pipeline runs it for its embedded model
  (:mod:`workflow_scripts.llm.serving.chat_server`, whose answers are a cold evaluation's bit for bit; with
  ``deterministic: false`` the library's own prefix reuse, ``--library``): ``--model --host --port
  --model_alias --n_ctx --seed --n_batch --n_ubatch``; its booleans take a value (``--flag true``).
  It caps no log-probabilities and runs one GGUF file, with no tensor parallelism, data type or
  quantisation to choose (the file has them).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

VLLM, SGLANG, LLAMA_CPP = "vllm", "sglang", "llama.cpp"
HOST = "127.0.0.1"
"""Servers listen on loopback only: the query jobs run on the server's node (one SLURM job), and an
engine's API has no authentication."""

COMMON_ARGS = ("tensor_parallel_size", "max_model_len", "max_logprobs", "dtype", "quantization", "seed")
"""Arguments the config names the same way for every engine (``serve.args``), each translated to the
engine's flag, or refused where the engine has none."""

RESERVED_ARGS = ("host", "port", "model", "model_path", "served_model_name", "model_alias", "revision",
                 "api_key", "chat_format", "chat_template")
"""Arguments the pipeline sets itself (address, weights, the model's name, its revision, chat
template): refused in ``serve.args``."""


@dataclass(frozen=True)
class Engine:
    """How one engine is started.

    Attributes:
        name: ``vllm``, ``sglang`` or ``llama.cpp``.
        executable: the default program (None: the Python interpreter running the pipeline).
        program: what follows the executable (``serve`` for vLLM, ``-m <module>`` for the others).
        weights_flag: the flag before the weights, or None for a positional argument (``vllm serve MODEL``).
        name_flag: the flag of the name the model is served (and listed) under.
        flags: :data:`COMMON_ARGS` name -> the engine's flag (a missing name: the engine has none).
        dashes: other arguments as ``--with-dashes`` (else ``--with_underscores``).
        valued_booleans: booleans take a value (``--flag true``) instead of being bare switches.
        negatable: a bare switch set to false is sent as ``--no-<flag>`` (vLLM's argparse
            ``BooleanOptionalAction``); else it is left out (SGLang's switches are all off by default).
        deterministic_env / deterministic_args: what ``deterministic: true`` adds;
            nondeterministic_args: what ``deterministic: false`` adds.
        defaults: arguments the pipeline sets unless the config does (part of the cache identity).
        version_code: Python that prints the engine's release (None: ``<executable> --version``).
    """

    name: str
    executable: str | None
    program: tuple[str, ...]
    weights_flag: str | None
    name_flag: str
    flags: dict
    dashes: bool = True
    valued_booleans: bool = False
    negatable: bool = False
    deterministic_env: dict = field(default_factory=dict)
    deterministic_args: tuple[str, ...] = ()
    nondeterministic_args: tuple[str, ...] = ()
    defaults: dict = field(default_factory=dict)
    version_code: str | None = None

    def flag(self, name: str) -> str:
        """The engine's flag of argument ``name`` (a common name or the engine's own)."""
        if name in self.flags:
            return self.flags[name]
        return "--" + (name.replace("_", "-") if self.dashes else name)

    def arguments(self, args: dict) -> list[str]:
        """``args`` as command-line arguments: None left out, booleans as the engine reads them."""
        words: list[str] = []
        for name, value in args.items():
            if value is None:
                continue
            if isinstance(value, bool) and not self.valued_booleans:
                if value or self.negatable:
                    words.append(self.flag(name) if value else self.flag(name).replace("--", "--no-", 1))
                continue
            words += [self.flag(name), str(value).lower() if isinstance(value, bool) else str(value)]
        return words


ENGINES = {
    VLLM: Engine(
        name=VLLM, executable="vllm", program=("serve",), weights_flag=None, name_flag="--served-model-name",
        flags={"tensor_parallel_size": "--tensor-parallel-size", "max_model_len": "--max-model-len",
               "max_logprobs": "--max-logprobs", "dtype": "--dtype", "quantization": "--quantization", "seed": "--seed"},
        negatable=True, deterministic_env={"VLLM_BATCH_INVARIANT": "1"},
        defaults={"tensor_parallel_size": 1, "dtype": "auto", "seed": 0},
    ),
    SGLANG: Engine(
        name=SGLANG, executable="python3", program=("-m", "sglang.launch_server"), weights_flag="--model-path",
        name_flag="--served-model-name",
        flags={"tensor_parallel_size": "--tp-size", "max_model_len": "--context-length", "dtype": "--dtype",
               "quantization": "--quantization", "seed": "--random-seed"},
        deterministic_args=("--enable-deterministic-inference",),
        defaults={"tensor_parallel_size": 1, "dtype": "auto", "seed": 0},
        version_code="import sglang; print(sglang.__version__)",
    ),
    LLAMA_CPP: Engine(
        name=LLAMA_CPP, executable=None, program=("-m", "workflow_scripts.llm.serving.chat_server"), weights_flag="--model",
        name_flag="--model_alias", flags={"max_model_len": "--n_ctx", "seed": "--seed"}, dashes=False,
        valued_booleans=True, nondeterministic_args=("--library",),
        defaults={"seed": 0, "n_batch": 32, "n_ubatch": 32},
        version_code="import llama_cpp; print(llama_cpp.__version__)",
    ),
}
"""Engine name (``serve.engine``) -> how it is started."""


def engine_command(engine: Engine, executable: str | None, launcher: list[str], weights: str, served_name: str,
                   port: int, args: dict, deterministic: bool, revision: str | None = None,
                   chat_template: str | None = None) -> list[str]:
    """The command that starts ``engine`` serving ``weights`` as ``served_name`` on 127.0.0.1:``port``.

    Args:
        executable: the program (None: the engine's default, :attr:`Engine.executable`; for llama.cpp
            the Python interpreter running the pipeline).
        launcher: words put before everything (a container: ``apptainer exec --nv image.sif``).
        args: engine arguments by name (:data:`COMMON_ARGS` or the engine's own), defaults filled in.
        revision: the Hub revision of weights given by name (vLLM and SGLang ``--revision``).
        chat_template: llama.cpp only: a chat template of :mod:`workflow_scripts.llm.serving.chat_templates`.

    Returns:
        The command as a list of words (no shell).
    """
    program = [executable or engine.executable or sys.executable, *engine.program]
    if chat_template is not None:
        program += ["--chat_template", chat_template]
    program += list(engine.deterministic_args if deterministic else engine.nondeterministic_args)
    weights_words = [weights] if engine.weights_flag is None else [engine.weights_flag, weights]
    address = ["--host", HOST, "--port", str(port), engine.name_flag, served_name]
    pinned = [engine.flag("revision"), revision] if revision else []
    return [*launcher, *program, *weights_words, *address, *pinned, *engine.arguments(args)]


def engine_environment(engine: Engine, deterministic: bool) -> dict:
    """Environment variables the engine needs on top of the job's (``VLLM_BATCH_INVARIANT=1``)."""
    return dict(engine.deterministic_env) if deterministic else {}


def version_command(engine: Engine, executable: str | None, launcher: list[str]) -> list[str]:
    """A command that prints the engine's release on the node (``vllm --version``; for the others
    their package's ``__version__`` by the interpreter that runs them)."""
    program = executable or engine.executable or sys.executable
    if engine.version_code is None:
        return [*launcher, program, "--version"]
    return [*launcher, program, "-c", engine.version_code]
