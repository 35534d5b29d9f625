# Served open-weight models (models.<name>.serve, workflow_scripts/llm/serving/). On a SLURM cluster each
# served model gets one server job, a Snakemake service job: the model's query jobs name its output as
# input (servers=served_inputs(...) in rules/ipd/query.smk and rules/crg/query.smk), so Snakemake runs the
# server and all of them as one group job, one SLURM job on one node (its resources are the sum of theirs,
# the GPUs the server's), and sends the server SIGTERM once the last of them has ended. The server loads
# the weights only when a query job misses the cache (--on-demand): a group whose answers are all cached
# loads none. Its address (a free port on the node's loopback) is written to its output, where the query
# jobs read it. On this machine no such job runs: the run's first query job that needs the model starts
# its server, which the run stops at its end (as the embedded model's). Needs from rules/common.smk:
# served_inputs, serve_spec_json, serve_resources, served_partition.


rule serve_model:
    output:
        service("results/servers/{model}.json"),
    log:
        "logs/servers/{model}.log",
    params:
        spec=lambda w: serve_spec_json(w.model),
        python=sys.executable,
        root=workflow.basedir,
    conda:
        "../envs/query.yaml"  # the server process and llama.cpp; vLLM and SGLang come from the nodes (serve.executable)
    threads: lambda w: serve_resources(w.model)["cpus"]
    resources:
        gpu=lambda w: serve_resources(w.model)["gpus"],
        gpu_model=lambda w: serve_resources(w.model)["gpu_model"],
        cpus_per_task=lambda w: serve_resources(w.model)["cpus"],
        mem_mb=lambda w: serve_resources(w.model)["mem_mb"],
        runtime=lambda w: serve_resources(w.model)["runtime"],
        slurm_partition=lambda w: served_partition([w.model]),
        slurm_extra=lambda w: serve_resources(w.model)["slurm_extra"],
        embedded_llm=0,
        api_calls=0,
    shell:
        "exec env PYTHONPATH={params.root:q}${{PYTHONPATH:+:$PYTHONPATH}} {params.python:q} "
        "-m workflow_scripts.llm.serving.server --spec {params.spec:q} --address {output:q} --log {log:q} --on-demand"
