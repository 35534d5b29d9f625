"""Models the pipeline serves itself: the embedded default model (llama.cpp on loopback) and open-weight
models of a model entry's ``serve`` (vLLM, SGLang or llama.cpp), started for the query jobs that need
them, found, checked and stopped.

The embedded model:

- :mod:`.embedded`: the embedded default model (Gemma 3 270M GGUF) and its llama.cpp server;
- :mod:`.chat_server`: the launcher of llama-cpp-python's server (chat templates, grammar, activity);
- :mod:`.chat_templates`: which chat template renders a GGUF model's prompts;
- :mod:`.grammar_filter`: the server's pre-filter of tokens under an answer grammar;
- :mod:`.sampling`: sampler settings that draw from the model's own distribution;
- :mod:`.run_servers`: the embedded servers of a local run, shared by its jobs;
- :mod:`.watchdog`: a job stops asking when the Snakemake process that started it has ended.

Served open-weight models (``serve``):

- :mod:`.engines`: each engine's command line, from the entry's arguments;
- :mod:`.weights`: which weights answer (a digest of a local file or folder, or a pinned revision);
- :mod:`.spec`: the ``serve`` entry as a :class:`~.spec.ServeSpec`, its checks, and what of it enters
  the answers' cache identity;
- :mod:`.server`: the server process (``python -m workflow_scripts.llm.serving.server``): starts the
  engine on a free port of its node when a query job first needs it, waits until the model is listed,
  writes the address where the jobs read it, and stops the engine when it is told to;
- :mod:`.client`: the query job's side: finds the server (Snakemake's service job on a cluster, the
  run's own server on this machine), waits until it is ready, and turns a server that died into one
  clear line.
"""
