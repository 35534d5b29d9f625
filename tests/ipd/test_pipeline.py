"""The whole IPD DAG of the IPD paper on scripted players whose strategies are known.

Players (workflow_scripts.players.ipd): ``tf2t`` plays tit-for-two-tats, a memory-2 strategy
(Axelrod 1984: R only after two R of the co-player in a row); ``grim_end`` plays GRIM but
defects in the announced last round of a game of known length (like GPT-5 in SI §5.6).
Every expected value is worked out by hand in the docstrings.
"""

import re
import shutil

import pandas as pd
import pytest

from tests.conftest import REPO, scripted_config
from workflow_scripts.gametheory.known import known_memory2
from workflow_scripts.ipd.design.scenarios import strategy_columns
from workflow_scripts.tools.plan import merged_config

MEMORY1 = ["p0", "pLL", "pLR", "pRL", "pRR"]
TREATMENTS = {"exact": "The interaction lasts $rounds rounds.", "at_least": "The interaction lasts at least $rounds rounds."}


def study_config(samples: int = 2) -> dict:
    """Stopping probability 0.2 (memory-1), memory-2 and 4-round actual play."""
    return {
        "custom_providers": {"ipdscripted": "workflow_scripts.players.ipd:ScriptedPlayer"},
        "models": {
            "tf2t": {"enabled": True, "litellm_model": "ipdscripted/TF2T", "decoding": {"seed": 7}},
            "grim_end": {"enabled": True, "litellm_model": "ipdscripted/lastround:GRIM", "decoding": {"seed": 7}},
        },
        "ipd": {
            "samples": samples, "max_reasks": 1,
            "framings": {"none": ""}, "framing_groups": {"neutral": ["none"]},
            "experiments": {
                "stopping": {"kind": "memory1", "framings": ["none"], "stopping_probabilities": [0.2]},
                "memory2": {"kind": "memory2", "framings": ["none"]},
                "play": {"kind": "play", "framings": ["none"], "rounds": 4, "treatments": dict(TREATMENTS)},
            },
            "analysis": {"random_opponents": 200, "tournament_references": ["ALLD"]},
        },
    }


def read(flow, path: str) -> pd.DataFrame:
    return pd.read_csv(flow.root / "results/ipd" / path, keep_default_na=False, na_values=[""])


def check_strategies(flow):
    """tf2t answers a one-outcome prompt with its round-two entry (always L): memory-1 ALLC;
    grim_end in elicitation prompts (no known end) is GRIM (1;1,0,0,0). Memory-2: tf2t is TF2T
    entry for entry; grim_end is GRIM written as memory-2 (L only after LL). Each is its own nearest
    reference at distance 0; with n = 2 answers per scenario no entry is determined by the Wilson rule
    (2/2 has the interval [0.34, 1], 0/2 [0, 0.66], both contain 0.5), so the readings list every
    pure reference: two answers cannot name a strategy."""
    strategies = read(flow, "stopping/strategies.csv").set_index("model")
    assert strategies.loc["tf2t", MEMORY1].tolist() == [1, 1, 1, 1, 1]
    assert strategies.loc["grim_end", MEMORY1].tolist() == [1, 1, 0, 0, 0]
    assert strategies["nearest"].to_dict() == {"tf2t": "ALLC", "grim_end": "GRIM"}
    assert set(strategies["distance"]) == {0.0} and set(strategies["pattern"]) == {"?;?,?,?,?"}
    memory2 = read(flow, "memory2/strategies.csv").set_index("model")
    known = known_memory2((3, 0, 5, 1))
    columns = strategy_columns("memory2")
    assert len(columns) == 21 and set(columns) <= set(memory2.columns)
    assert memory2.loc["tf2t", columns].tolist() == list(known["TF2T"])
    assert memory2.loc["grim_end", columns].tolist() == list(known["GRIM"])
    assert memory2["nearest"].to_dict() == {"tf2t": "TF2T", "grim_end": "GRIM"}
    assert memory2["reading"].str.startswith("between ALLC, ALLD").all()


def check_classification(flow):
    """TF2T is exploited by an alternating co-player (R, L, R, L, ...: never two R in a row, so TF2T
    always plays L), who earns (T + R)/2 = 4 > 3 = pi(TF2T, TF2T) and more than TF2T's (S + R)/2:
    not Nash, not partner, not rival, at w = 0 and (5 + 3(1-w))/(2-w) > 3 at w = 0.01.
    GRIM: Nash, partner and rival at w = 0; at w > 0 Nash and partner (ALLD earns wT + (1-w)P < 3)
    but not rival (ALLD earns w(T - S) more). ALLC: ALLD earns 5 > 3 against it, no class at all."""
    def verdicts(path):
        table = read(flow, path).set_index(["model", "w"])
        return {key: tuple(table.loc[key, ["nash", "partner", "rival"]]) for key in table.index}

    memory2 = verdicts("memory2/classification.csv")
    assert memory2[("tf2t", 0.0)] == memory2[("tf2t", 0.01)] == (False, False, False)
    assert memory2[("grim_end", 0.0)] == (True, True, True)
    assert memory2[("grim_end", 0.01)] == (True, True, False)
    stopping = verdicts("stopping/classification.csv")
    assert set(stopping) == {(m, w) for m in ("tf2t", "grim_end") for w in (0.0, 0.01, 0.2)}
    assert stopping[("grim_end", 0.2)] == (True, True, False) and stopping[("tf2t", 0.2)] == (False, False, False)
    assert read(flow, "stopping/classification.csv").query("w == 0.2")["own_w"].all()
    assert "## w = 0.01" in (flow.root / "results/ipd/stopping/tables/classification.md").read_text()


def check_tournaments(flow):
    """One discipline, stopping w = 0.2, with GRIM (grim_end), ALLC (tf2t) and the reference ALLD;
    totals as worked out in tests/ipd/test_analyses.py: with self-play GRIM 3+3+0.8 = 6.8,
    ALLC 3+3+0 = 6, ALLD 1.8+5+1 = 7.8; without GRIM 3.8, ALLC 3, ALLD 6.8: ALLD wins both types."""
    standings = read(flow, "tournaments/standings.csv").set_index(["discipline", "strategy"])
    assert standings.loc["stopping/none-w=0.2", "total_with_self"].to_dict() == pytest.approx(
        {"tf2t": 6.0, "grim_end": 6.8, "ALLD (ref.)": 7.8})
    assert standings.loc["stopping/none-w=0.2", "total_without_self"].to_dict() == pytest.approx(
        {"tf2t": 3.0, "grim_end": 3.8, "ALLD (ref.)": 6.8})
    wins = read(flow, "tournaments/wins.csv").set_index("strategy")
    assert wins.loc[["tf2t", "grim_end", "ALLD (ref.)"], "wins_with_self"].tolist() == [0, 0, 1]  # no tie
    assert wins.loc[["tf2t", "grim_end", "ALLD (ref.)"], "wins_without_self"].tolist() == [0, 0, 1]


def check_play(flow):
    """4 rounds. 'lasts 4 rounds': grim_end plays L, L, L, R in each of its 3 seats (one against
    tf2t, two in its self-pair); tf2t never sees two R in a row and plays L throughout.
    'at least 4 rounds': nobody knows the end, everybody plays L, L, L, L."""
    games = read(flow, "play/sequences.csv")
    exact = games[games["treatment"] == "exact"].groupby("model")["moves"].agg(sorted).to_dict()
    assert exact == {"grim_end": ["LLLR"] * 3, "tf2t": ["LLLL"] * 3}
    assert set(games.loc[games["treatment"] == "at_least", "moves"]) == {"LLLL"}
    assert games["complete"].all() and len(games) == 2 * 3 * 2
    last = read(flow, "play/last_round.csv").set_index(["treatment", "model"])
    assert last.loc[("exact", "grim_end"), ["games", "last_round_R", "only_last_round_R", "earlier_R"]].tolist() == [3, 3, 3, 0]
    assert last.loc[("exact", "tf2t"), "last_round_R"] == 0 and last.loc[("at_least", "grim_end"), "last_round_R"] == 0


def stable_moves(flow) -> bytes:
    """The moves table as written (nothing in it depends on whether an answer came from the cache)."""
    return (flow.root / "results/ipd/play/moves.parquet").read_bytes()


@pytest.mark.slow
def test_the_study_recovers_known_strategies_classes_and_last_round_defection(workflow):
    """One run of every stage on the scripted players; then actual play is replayed from the cache.

    Provider calls, counted by the scripted provider itself: elicitation 2 models x (5 + 21)
    scenarios x 2 samples = 104 and play 2 treatments x 3 pairs x 4 rounds x 2 seats = 48, 152 in
    all (every answer valid, so no re-asks; no two experiments share a prompt).
    """
    flow = workflow(study_config())
    flow.run()
    calls = flow.provider_calls()
    assert calls == 152
    check_strategies(flow)
    check_classification(flow)
    check_tournaments(flow)
    check_play(flow)
    for name in ("memory2/figures/memory2.pdf", "play/figures/play.png", "tournaments/figures/wins.pdf",
                 "tournaments/figures/totals.png", "stopping/figures/cooperation.png", "../plan.md"):
        assert (flow.root / "results/ipd" / name).stat().st_size > 0

    sequences_before = (flow.root / "results/ipd/play/sequences.csv").read_bytes()
    moves_before = stable_moves(flow)
    shutil.rmtree(flow.root / "results/ipd/play")
    flow.run("results/ipd/play/sequences.csv", "results/ipd/play/moves.parquet")
    assert flow.provider_calls() == calls, "replaying the games must make zero provider calls"
    assert (flow.root / "results/ipd/play/sequences.csv").read_bytes() == sequences_before
    assert stable_moves(flow) == moves_before


def declared_api_calls(dry_run_output: str) -> dict[tuple[str, str], int]:
    """{(rule, wildcards): api_calls} of the query jobs a dry run lists (their resources line)."""
    jobs = re.findall(r"^rule (ipd_\w+):\n(?:\s+\w+: .*\n)*?\s+wildcards: (.*)\n\s+resources: .*api_calls=(\d+)",
                      dry_run_output, flags=re.M)
    return {(rule, wildcards): int(calls) for rule, wildcards, calls in jobs}


@pytest.mark.slow
def test_paper_config_dry_runs_with_dummy_keys(workflow):
    """config/paper_ipd.yaml over config/config.yaml: 5 models x 5 elicitation experiments (original,
    stopping, equal_gains, memory2, one_shot; each job asks all of its experiment's 10, 4, 11, 1, 1
    conditions) = 25 elicitation jobs and 15 pairs x 1 play experiment (both treatments) = 15 play jobs;
    no estimation check (the overlay's is empty); nothing is called."""
    flow = workflow(merged_config([REPO / "config/config.yaml", REPO / "config/paper_ipd.yaml"]))
    keys = {k: "dummy" for k in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_KEY", "TOGETHERAI_API_KEY")}
    done = flow.run("-n", env=keys)
    jobs = {line.split()[0]: int(line.split()[1]) for line in done.stdout.splitlines()
            if len(line.split()) == 2 and line.split()[1].isdigit()}
    assert jobs["ipd_elicit"] == 25 and jobs["ipd_play"] == 15 and "ipd_logprobs" not in jobs
    # api_calls: max_concurrency (4, the default) per condition the job asks, lowered to the profile's cap 16
    calls = declared_api_calls(done.stdout)
    assert calls[("ipd_elicit", "experiment=memory2, model=gpt-4o")] == 4 * 1
    assert calls[("ipd_elicit", "experiment=stopping, model=gpt-4o")] == 4 * 4
    assert calls[("ipd_elicit", "experiment=original, model=gpt-4o")] == 16, "4 x 10 = 40, lowered to the cap"
    assert calls[("ipd_play", "experiment=play, pair=gpt-4o+gpt-4o")] == 4 * 2, "one model, 2 treatments"
    assert calls[("ipd_play", "experiment=play, pair=gpt-4o+gpt-5")] == 16, "(4 + 4) x 2 = 16"
    assert flow.provider_calls() == 0 and not (flow.root / "results").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    "edit, field",
    [
        (lambda ipd: ipd["experiments"]["stopping"].update(equal_gains_x=[1]), "ipd.experiments.stopping.equal_gains_x"),
        (lambda ipd: ipd["analysis"].update(tournament_references=["Nobody"]), "ipd.analysis.tournament_references"),
    ],
    ids=["w-and-x", "unknown-reference"],
)
def test_bad_study_config_fails_before_any_call_naming_the_field(workflow, edit, field):
    """A value that cannot work stops the run at start-up, names the field, makes no call."""
    config = study_config()
    edit(config["ipd"])
    flow = workflow(config)
    done = flow.run("--dry-run", check=False)
    output = done.stdout + done.stderr
    assert done.returncode != 0 and field in output and "Traceback" not in output, output[-3000:]
    assert flow.provider_calls() == 0 and not (flow.root / "results").exists()


@pytest.mark.slow
def test_no_discipline_and_the_label_swap_control_on_a_scripted_tft(workflow):
    """Only the framing 'Be a saint' (not neutral): no tournament discipline, yet the run completes,
    with empty tournament tables that say why. The same config runs the label-swap control on a
    scripted TFT, which reads the letters as the standard prompt means them (a letter player):
    - reversed order: nothing changes, TFT (1;1,0,1,0);
    - swapped letters: in canonical scenario XY it sees the letters of the exchanged outcome and
      answers by letter, so P(cooperate | XY) = 1 - p_TFT(exchanged XY): round 1: 1 - 1 = 0;
      LL: 1 - p_RR = 1; LR: 1 - p_RL = 0; RL: 1 - p_LR = 1; RR: 1 - p_LL = 0, i.e. STFT (0;1,0,1,0).
      Only round 1 differs from the standard TFT: 4/4 against 0/4 cooperations, Fisher p = 2/70,
      flagged 'letter L'. Calls: 3 conditions x 5 scenarios x 4 samples = 60."""
    config = scripted_config({"tft": "TFT"}, samples=4, max_reasks=1, framings=("saint",))
    config["ipd"]["experiments"]["original"]["label_swap"] = {"framings": ["saint"]}
    config["ipd"]["analysis"] = {"random_opponents": 50}
    flow = workflow(config)
    flow.run()
    assert flow.provider_calls() == 60
    strategies = read(flow, "original/strategies.csv").set_index("condition")
    assert strategies.loc["saint-labels=reversed", MEMORY1].tolist() == [1, 1, 0, 1, 0]
    assert strategies.loc["saint-labels=swapped", MEMORY1].tolist() == [0, 1, 0, 1, 0]
    assert strategies.loc["saint-labels=swapped", "reading"] == "STFT"
    swap = read(flow, "original/label_swap.csv").set_index(["labels", "scenario"])
    flagged = swap[swap["preference"].fillna("") != ""]
    assert flagged.index.tolist() == [("swapped", "round1")] and flagged["preference"].tolist() == ["letter L"]
    assert flagged["p_value"].item() == pytest.approx(2 / 70)
    assert read(flow, "tournaments/summary.csv").empty and read(flow, "tournaments/wins.csv").empty
    report = (flow.root / "results/ipd/tournaments/tables/tournaments.md").read_text()
    assert "No discipline" in report and "framing 'saint' is not neutral" in report
    decoding = read(flow, "decoding.csv").set_index("parameter")
    assert decoding.loc["seed", "requests"] == 60 and decoding.loc["seed", "distinct"] == 60
    for name in ("tournaments/figures/propensities.png", "original/figures/payoff_range.pdf",
                 "reference_strategies.md", "original/tables/label_swap.md"):
        assert (flow.root / "results/ipd" / name).stat().st_size > 0
