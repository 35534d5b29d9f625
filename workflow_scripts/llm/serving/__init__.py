"""Open-weight models the pipeline serves itself (a model entry's ``serve``): vLLM, SGLang or llama.cpp
started for the query jobs that need it, found, checked and stopped.

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
