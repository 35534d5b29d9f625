"""profiles/slurm on a real SLURM cluster: every job goes through sbatch, the results equal a local run's.

A single-node cluster (munged, slurmctld, slurmd; tests/slurm_cluster.py, Debian's slurm-wlm and
munge installed with apt-get when missing) runs a small scripted-provider DAG with
``--workflow-profile profiles/slurm`` (the shipped profile, unchanged) and the test cluster's own site
profile tests/slurm_site_profile (status through squeue, no account, query rules sent to the
partition ``net`` as the README tells a site whose compute nodes lack network). The cluster's own
job list (``squeue --states=all``) must hold one completed job per Snakemake job, each rule in its
partition; a local run in another directory, sharing the response cache in replay mode (no call
possible), must produce byte-identical tables.

Where the cluster cannot run (not root, no apt-get, not Linux) the test skips with the reason; in
CI (CI=true) a reason that the machine could fix (a failed install, the plugin missing) fails it.
"""

from __future__ import annotations

import collections
import importlib.util
import os
import re
import sys

import pandas as pd
import pytest

from tests import slurm_cluster
from tests.conftest import REPO, Workflow, scripted_config

pytestmark = pytest.mark.slow

IN_CI = os.environ.get("CI", "").lower() == "true"
QUERY_RULES = {"ipd_elicit", "ipd_play", "crg_play"}
TARGETS = ("results/ipd/original/answers.parquet", "results/ipd/play/moves.parquet", "results/crg/games.parquet")
SITE_PROFILE = REPO / "tests" / "slurm_site_profile"
# Provider calls, by hand: IPD memory-1, 5 scenarios x 2 samples (TFT always answers validly) = 10;
# actual play, the self-pair tft+tft, 1 treatment x 1 game x 2 rounds x 2 players = 4; the CRG
# self-play game of `always_4`, 6 seats x 10 rounds = 60 (tests/crg/test_dag.py counts it the same).
EXPECTED_CALLS = 10 + 4 + 60


def dag_config(cache: str) -> dict:
    """The scripted DAG: one IPD player (TFT) eliciting and playing, one CRG giver in self-play."""
    config = scripted_config({"tft": "TFT"}, samples=2, framings=("none",))
    config["cache"] = {"dir": cache}
    config["custom_providers"]["crgscripted"] = "workflow_scripts.players.crg:CRGScriptedPlayer"
    config["models"]["giver"] = {"enabled": True, "litellm_model": "crgscripted/always_4"}
    config["ipd"]["models"] = ["tft"]
    config["ipd"]["experiments"]["play"] = {"kind": "play", "framings": ["none"], "rounds": 2, "games": 1,
                                            "treatments": {"exact": "The interaction lasts $rounds rounds."}}
    config["crg"] = {"games_per_cell": 1, "designs": {"selfplay": {"models": ["giver"], "conditions": {"base": {"p": [0.5]}}}}}
    return config


def unavailable(reason: str, fixable: bool):
    """Skip with the reason; in CI fail instead when the machine could have been made to run it."""
    if IN_CI and fixable:
        pytest.fail(f"CI must run the SLURM test, but: {reason}")
    pytest.skip(reason)


def start_or_skip(root, **settings) -> slurm_cluster.Cluster:
    """A running cluster (:func:`tests.slurm_cluster.start` with ``settings``), or the test skips (fails
    in CI where the machine could have run it) with the reason."""
    if not sys.platform.startswith("linux"):
        unavailable("the SLURM tests need Linux (Debian's slurm-wlm)", fixable=False)
    if importlib.util.find_spec("snakemake_executor_plugin_slurm") is None:
        unavailable("snakemake-executor-plugin-slurm is not installed: pip install -e '.[slurm]' (make test does)",
                    fixable=True)
    try:
        return slurm_cluster.start(root, **settings)
    except slurm_cluster.ClusterUnavailable as error:
        unavailable(str(error), error.fixable)


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    """A running single-node cluster; its daemons are stopped afterwards."""
    running = start_or_skip(tmp_path_factory.mktemp("slurm"))
    yield running
    running.stop()


@pytest.fixture(scope="module")
def runs(cluster, tmp_path_factory):
    """The DAG through SLURM, then locally from the shared cache in replay mode."""
    cache = str(tmp_path_factory.mktemp("shared") / "cache")
    on_slurm = Workflow(tmp_path_factory.mktemp("on_slurm"), dag_config(cache))
    slurm = on_slurm.run(*TARGETS, "--profile", str(SITE_PROFILE), "--workflow-profile", str(REPO / "profiles" / "slurm"))
    local = Workflow(tmp_path_factory.mktemp("local"), dag_config(cache))
    here = local.run(*TARGETS, env={"LLM_DILEMMAS_REPLAY": "1"})
    return on_slurm, slurm.stdout + slurm.stderr, local, here.stdout + here.stderr


def test_every_job_went_through_sbatch(cluster, runs):
    """One completed SLURM job per Snakemake job (rules counted from the local run's job stats),
    the job ids Snakemake reported are the cluster's, and query rules ran in partition 'net'."""
    _, slurm_output, _, local_output = runs
    run_id = re.search(r"SLURM run ID: (\S+)", slurm_output).group(1)
    jobs = [job for job in cluster.jobs() if job["name"] == run_id]
    assert jobs and {job["state"] for job in jobs} == {"COMPLETED"}, jobs
    rules = collections.Counter(re.match(r"rule_(.+?)(?:_wildcards_.*)?$", job["comment"]).group(1) for job in jobs)
    assert rules == job_stats(local_output)
    reported = set(re.findall(r"has been submitted with SLURM jobid (\d+)", slurm_output))
    assert reported == {job["id"] for job in jobs}
    partitions = {re.match(r"rule_(.+?)(?:_wildcards_.*)?$", job["comment"]).group(1): job["partition"] for job in jobs}
    assert {rule for rule, partition in partitions.items() if partition == "net"} == QUERY_RULES
    assert set(partitions.values()) == set(slurm_cluster.PARTITIONS)


def test_results_equal_the_local_runs_byte_for_byte(runs):
    """Every table the cluster wrote equals the local replay's byte for byte, except two things a
    run records about itself: per-job call statistics (*stats*: calls there, cache hits here) and
    the answer tables' ``from_cache`` column (False for every answer asked on the cluster, True for
    every answer replayed here); without that column those tables are equal cell for cell."""
    on_slurm, _, local, _ = runs
    tables = result_files(on_slurm)
    assert tables == result_files(local)
    assert {"results/ipd/play/moves.parquet", "results/crg/games.parquet", "results/ipd/original/answers.parquet"} <= set(tables)
    with_provenance = []
    for table in tables:
        mine, theirs = on_slurm.root / table, local.root / table
        if mine.suffix == ".parquet" and "from_cache" in pd.read_parquet(mine).columns:
            with_provenance.append(table)
            asked, replayed = pd.read_parquet(mine), pd.read_parquet(theirs)
            assert not asked["from_cache"].any() and replayed["from_cache"].all(), table
            pd.testing.assert_frame_equal(asked.drop(columns="from_cache"), replayed.drop(columns="from_cache"),
                                          check_exact=True)
        else:
            assert mine.read_bytes() == theirs.read_bytes(), table
    assert "results/crg/games.parquet" not in with_provenance
    assert on_slurm.provider_calls() == EXPECTED_CALLS
    assert local.provider_calls() == 0


def test_the_daemons_stop(cluster, runs):
    """stop() ends munged (if it started it), slurmctld and slurmd and removes its slurm.conf."""
    started = dict(cluster.processes)
    assert {"slurmctld", "slurmd"} <= set(started)
    cluster.stop()
    assert all(process.poll() is not None for process in started.values())
    assert not slurm_cluster.SLURM_CONF.exists()


def result_files(flow: Workflow) -> list[str]:
    """Paths of every file under results/ except per-job call statistics."""
    return sorted(p.relative_to(flow.root).as_posix() for p in (flow.root / "results").rglob("*")
                  if p.is_file() and "stats" not in p.name)


def job_stats(output: str) -> collections.Counter:
    """Jobs per rule from the first 'Job stats' table Snakemake printed."""
    table = output.split("Job stats:", 1)[1].split("total", 1)[0]
    rows = [line.split() for line in table.splitlines()[3:] if line.strip()]
    return collections.Counter({name: int(count) for name, count in rows})
