"""Tests of the command workflow_scripts/tools/classify.py (it classifies the five
strategies of the IPD paper as the paper states)."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from workflow_scripts.tools.classify import main
from workflow_scripts.gametheory.memory import column_names
from workflow_scripts.gametheory.strategies import TF2T

ROOT = Path(__file__).resolve().parents[2]
SEED_001 = """name,p0,pLL,pLR,pRL,pRR
Claude,1,1,0,1,1
Gemini,0.82,1,0,0.02,0.42
GPT-4o,1,1,0,0,0
GPT-5,1,1,0,0.54,1
Llama,1,1,0.26,0.98,0.56
"""


def test_seed_001_strategies(tmp_path, capsys):
    """the IPD paper's main text: at w = 0 all five are partners; at w = 0.01 four of five cooperate
    fully with themselves (not Gemini) and only GPT-4o's and Llama's are Nash."""
    table, out = tmp_path / "seed001.csv", tmp_path / "out.csv"
    table.write_text(SEED_001)
    status = main([str(table), "--payoffs", "3", "0", "5", "1", "--w", "0", "0.01",
                   "--out", str(out), "--random-opponents", "2000"])
    assert status == 0
    result = pd.read_csv(out)
    at_zero, at_001 = result[result.w == 0.0], result[result.w == 0.01]
    assert at_zero.partner.all()
    cooperative = set(at_001.name[(at_001.pi_self - 3).abs() < 1e-9])
    assert cooperative == {"Claude", "GPT-4o", "GPT-5", "Llama"}
    assert set(at_001.name[at_001.nash]) == {"GPT-4o", "Llama"}
    printed = capsys.readouterr().out
    assert printed.startswith("| name | w | pi_self | nash |")
    assert printed.count("\n") == 12  # header, rule, 10 rows


def test_memory_two_csv(tmp_path, capsys):
    """A 21-column memory-2 CSV is read by its documented column names."""
    table = tmp_path / "m2.csv"
    values = ",".join(f"{p:g}" for p in TF2T)
    table.write_text("name," + ",".join(column_names(2)) + "\nTF2T," + values + "\n")
    arguments = [str(table), "--payoffs", "3", "0", "5", "1", "--w", "0", "--random-opponents", "0"]
    assert main(arguments) == 0
    assert "| TF2T | 0 | 3 | no |" in capsys.readouterr().out


def run_command(*arguments):
    return subprocess.run([sys.executable, "-m", "workflow_scripts.tools.classify", *arguments],
                          cwd=ROOT, capture_output=True, text=True, check=False)


@pytest.mark.slow  # over 5 s (a Snakemake or Python subprocess, or a long simulation): not in the fast subset
def test_bad_probability_exit_code_and_message(tmp_path):
    """A probability of 1.2 on line 3 column pRL: exit status 2, message naming line and column,
    no traceback."""
    table = tmp_path / "bad.csv"
    table.write_text("name,p0,pLL,pLR,pRL,pRR\nA,1,1,0,1,1\nB,1,1,0,1.2,1\n")
    completed = run_command(str(table), "--payoffs", "3", "0", "5", "1")
    assert completed.returncode == 2
    assert "line 3 (name=B), column pRL: 1.2 is not a probability in [0, 1]" in completed.stderr
    assert "Traceback" not in completed.stderr


def test_wrong_column_count_and_non_numeric(tmp_path):
    """A short line and a non-numeric cell are reported with exit status 2."""
    short, text = tmp_path / "short.csv", tmp_path / "text.csv"
    short.write_text("name,p0,pLL,pLR,pRL,pRR\nA,1,1,0,1\n")
    text.write_text("name,p0,pLL,pLR,pRL,pRR\nA,1,1,zero,1,1\n")
    first = run_command(str(short), "--payoffs", "3", "0", "5", "1")
    second = run_command(str(text), "--payoffs", "3", "0", "5", "1")
    assert first.returncode == second.returncode == 2
    assert "line 2: 5 fields, the header has 6" in first.stderr
    assert "line 2 (name=A), column pLR: 'zero' is not a number" in second.stderr


def test_not_a_dilemma(tmp_path):
    """(10, 0, 10, 0) is not a prisoner's dilemma: exit status 2 unless --allow-non-dilemma."""
    table = tmp_path / "s.csv"
    table.write_text(SEED_001)
    refused = run_command(str(table), "--payoffs", "10", "0", "10", "0", "--random-opponents", "0")
    assert refused.returncode == 2 and "not a prisoner's dilemma" in refused.stderr
    allowed = run_command(str(table), "--payoffs", "10", "0", "10", "0", "--random-opponents", "0",
                          "--allow-non-dilemma")
    assert allowed.returncode == 0
