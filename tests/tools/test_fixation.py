"""The command ``python -m workflow_scripts.tools.fixation`` (payoff CSV -> fixation probabilities and
stationary distribution) on payoff tables whose answers are computed by hand."""

import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from workflow_scripts.tools.fixation import main

ROOT = Path(__file__).resolve().parents[2]


def constant_gap_table(gap=2.0, self_play=True):
    """A seat of A earns 3 + gap, a seat of B 3, at every split 1..5; self-play A 10, B 1."""
    rows = [{"model_a": "A", "model_b": "B", "seats_a": k, "payoff_a": 3 + gap, "payoff_b": 3.0} for k in range(1, 6)]
    if self_play:
        rows += [{"model_a": "A", "model_b": "B", "seats_a": 6, "payoff_a": 10.0, "payoff_b": None},
                 {"model_a": "A", "model_b": "B", "seats_a": 0, "payoff_a": None, "payoff_b": 1.0}]
    return pd.DataFrame(rows)


def run(tmp_path, table, *arguments):
    path = tmp_path / "payoffs.csv"
    table.to_csv(path, index=False)
    fixation, stationary = tmp_path / "fixation.csv", tmp_path / "stationary.csv"
    status = main([str(path), *arguments, "--fixation", str(fixation), "--stationary", str(stationary)])
    return status, (pd.read_csv(fixation) if status == 0 else None), (pd.read_csv(stationary) if status == 0 else None)


def test_one_table_constant_gap(tmp_path):
    """N = n = 6, A earns 2 more than B at every split: rho_A = (1 - e^-2) / (1 - e^-12) = 0.864665,
    rho_B = (e^2 - 1) / (e^12 - 1) = 3.9256e-5 (Nowak 2006, eq. 6.13); two states, so
    pi_A = rho_A / (rho_A + rho_B) = 0.999955."""
    status, fixation, stationary = run(tmp_path, constant_gap_table(self_play=False), "--population", "6")
    assert status == 0
    rho = {(r.resident, r.mutant): r.rho for r in fixation.itertuples()}
    rho_a, rho_b = (1 - math.exp(-2)) / (1 - math.exp(-12)), (math.exp(2) - 1) / (math.exp(12) - 1)
    assert rho[("B", "A")] == pytest.approx(rho_a, rel=1e-12) and rho[("A", "B")] == pytest.approx(rho_b, rel=1e-12)
    assert dict(zip(stationary.model, stationary.mass))["A"] == pytest.approx(rho_a / (rho_a + rho_b))
    assert fixation.set_index("mutant").loc["A", "invades"]  # 0.86 > 1/6


def test_well_mixed_needs_the_self_plays_and_names_what_is_missing(tmp_path, capsys):
    """N = 30 draws tables with 0 or 6 A seats too: without those rows the command exits 2 and names them."""
    status, _, _ = run(tmp_path, constant_gap_table(self_play=False), "--population", "30")
    assert status == 2
    assert "A+B: no payoffs for 0, 6 seat(s) of A" in capsys.readouterr().err
    table = constant_gap_table().drop(index=2)  # the 3-seat split
    status, _, _ = run(tmp_path, table, "--population", "6")
    assert status == 2 and "A+B: no payoffs for 3 seat(s) of A" in capsys.readouterr().err


def test_well_mixed_with_self_play(tmp_path):
    """N = 30: f_A(j) = 5 + 5 P(all five co-players A) (10 in self-play), f_B(j) = 3 - 2 P(no A co-player)
    (1 in self-play), with P from math.comb; rho from the closed form 1 / sum_k prod_j exp(-(f_A - f_B))."""
    status, fixation, _ = run(tmp_path, constant_gap_table(), "--population", "30")
    assert status == 0
    total = math.comb(29, 5)
    gap = [5 + 5 * math.comb(j - 1, 5) / total - (3 - 2 * math.comb(29 - j, 5) / total) for j in range(1, 30)]
    closed = 1 / sum(math.prod(math.exp(-g) for g in gap[:k]) for k in range(30))
    assert fixation.set_index("mutant").loc["A", "rho"] == pytest.approx(closed, rel=1e-9)


def test_one_selection_per_risk(tmp_path):
    """A 'p' column: each risk separately; at p = 0.9 B earns the 2 more, so the roles swap."""
    table = pd.concat([constant_gap_table(2.0).assign(p=0.5), constant_gap_table(-2.0).assign(p=0.9)])
    status, fixation, stationary = run(tmp_path, table, "--population", "6")
    assert status == 0
    winner = stationary.loc[stationary.groupby("p")["mass"].idxmax()].set_index("p")["model"].to_dict()
    assert winner == {0.5: "A", 0.9: "B"}


def test_bad_tables_exit_2(tmp_path, capsys):
    table = constant_gap_table().drop(columns=["payoff_b"])
    assert run(tmp_path, table)[0] == 2 and "lacks column(s) ['payoff_b']" in capsys.readouterr().err
    doubled = pd.concat([constant_gap_table(), constant_gap_table().iloc[:1]])
    assert run(tmp_path, doubled)[0] == 2 and "appear twice" in capsys.readouterr().err
    reverse = pd.concat([constant_gap_table(), constant_gap_table().iloc[:1].assign(model_a="B", model_b="A")])
    assert run(tmp_path, reverse)[0] == 2 and "both orders" in capsys.readouterr().err


def test_command_line(tmp_path):
    """The documented command runs as a module and prints both tables."""
    path = tmp_path / "payoffs.csv"
    constant_gap_table().to_csv(path, index=False)
    done = subprocess.run([sys.executable, "-m", "workflow_scripts.tools.fixation", str(path), "--population", "6"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "## Fixation probabilities" in done.stdout and "## Stationary distribution" in done.stdout
