"""Does a model play as it says? Its moves in actual play (the IPD paper's SI §4.6) against the memory-1
strategy elicited from it with the same framing and payoffs (SI §4.1).

From the play moves of one model under one treatment ("lasts 10 rounds" / "lasts at least 10
rounds") come its observed transitions: the first move of each game (state ``round1``) and, in
every later round, its move after the previous round's outcome (``LL``, ``LR``, ``RL``, ``RR``, own
move first, the IPD paper's order). Per state s: n_s moves, k_s of them L. Only valid answers are moves;
a round without a valid move of either player gives no transition into or out of it.

- **Played strategy**: the maximum-likelihood memory-1 strategy of the play, k_s / n_s per state,
  with its 95% Wilson interval. A state that never occurs in play (n_s = 0) is *not observed*: no
  entry is estimated and it enters no likelihood or test.
- **Likelihood of the moves** under a memory-1 strategy q: log L(q) = sum_s [k_s ln q_s +
  (n_s - k_s) ln(1 - q_s)] (natural log; -inf where q gives probability 0 to a move made), and the
  geometric mean probability per move exp(log L / moves). Computed for the elicited strategy (its
  point estimate), the played strategy (the maximum) and every reference strategy
  (:func:`workflow_scripts.gametheory.known.known_memory1`).
- **Test of "plays as it says"**, a *two-sample* likelihood-ratio test (H0: in every state
  observed both in play and in the elicitation, the play's P(L) equals the elicitation's; neither is
  known exactly, both are samples) where the elicitation sampled answers, a one-sample test against
  q_s where it gave a probability from log-probabilities
  (:mod:`workflow_scripts.ipd.analysis.likelihood_ratio`): G = sum of the per-state G_s over the
  states tested; df = the *informative* states among them (a state whose pooled moves are all L or
  all R adds G_s = 0 and no degree of freedom), P = chi2.sf(G, df) (Wilks), beside a
  parametric-bootstrap P that needs no large-sample approximation. A state elicited with q_s in
  {0, 1} against a move of the other kind gives G = inf, P = 0.
- **Power**: the smallest difference of P(L) in every tested state that the test detects with the
  configured power at level alpha (``detectable``), given these numbers of moves and answers: a
  large value says a P above alpha is no evidence of "plays as it says".
"""

from __future__ import annotations

import math
from typing import Iterable, Mapping

import numpy as np
import pandas as pd
from scipy.special import xlogy

from workflow_scripts.ipd.analysis.actual_play import valid_moves
from workflow_scripts.ipd.analysis.likelihood_ratio import (
    TestSettings, bootstrap_p, chi2_p, detectable_difference, g_per_state, informative,
)
from workflow_scripts.ipd.design.conditions import Condition
from workflow_scripts.ipd.design.labels import STANDARD
from workflow_scripts.ipd.design.scenarios import scenarios
from workflow_scripts.stats import wilson_interval

STATES = scenarios("memory1")
"""round1, LL, LR, RL, RR (outcome of the previous round, own move first)."""
KEYS = ["model", "condition", "treatment"]
STATE_COLUMNS = KEYS + ["state", "play_n", "play_L", "play_p", "play_low", "play_high", "elicited_n",
                        "elicited_L", "elicited_p", "elicited_low", "elicited_high", "observed", "tested", "informative",
                        "G"]
SUMMARY_COLUMNS = KEYS + ["elicited_experiment", "elicited_condition", "moves", "states_observed",
                          "not_observed", "loglik_elicited", "per_move_elicited", "loglik_played",
                          "per_move_played", "best_reference", "loglik_best_reference", "per_move_best_reference",
                          "test", "states_tested", "G", "df", "p_value", "p_bootstrap", "detectable"]


def elicited_condition(play: Condition, candidates: Iterable[Condition]) -> Condition | None:
    """The memory-1 condition that elicited the strategy a play condition is compared with.

    The first candidate (config order) of kind ``memory1`` with the play condition's framing and
    stage payoffs, standard labels and no stated w or x (SI §4.1 against §4.6: "same framing, same
    payoffs"); None when there is none.
    """
    for c in candidates:
        if (c.kind == "memory1" and c.framing == play.framing and tuple(c.payoffs) == tuple(play.payoffs)
                and c.w is None and c.x is None and c.labels == STANDARD):
            return c
    return None


def transitions(moves: pd.DataFrame) -> pd.DataFrame:
    """Observed transitions per model, condition, treatment and state (module docstring).

    Args:
        moves: the moves table of :mod:`workflow_scripts.ipd.query.play` (columns experiment,
            condition, treatment, framing, pair, game, round, player, model, status, action).

    Returns:
        Columns KEYS + state, n, n_L: one row per state of :data:`STATES` for each
        (model, condition, treatment) that played (n = 0 where the state never occurred).
    """
    game = ["condition", "treatment", "pair", "game"]
    valid = valid_moves(moves)[game + ["round", "player", "model", "action"]]
    before = valid[game + ["round", "player", "action"]].assign(round=lambda f: f["round"] + 1)
    own = before.rename(columns={"action": "own_before"})
    theirs = before.assign(player=1 - before["player"]).rename(columns={"action": "theirs_before"})
    frame = valid.merge(own, on=game + ["round", "player"], how="left").merge(
        theirs, on=game + ["round", "player"], how="left")
    frame["state"] = np.where(frame["round"] == 1, STATES[0], frame["own_before"] + frame["theirs_before"])
    frame = frame[frame["state"].notna()].assign(is_L=lambda f: f["action"].eq("L"))
    counts = frame.groupby(KEYS + ["state"], sort=False)["is_L"].agg(n="size", n_L="sum")
    cells = pd.MultiIndex.from_tuples([(*k, s) for k in dict.fromkeys(map(tuple, frame[KEYS].to_numpy())) for s in STATES],
                                      names=KEYS + ["state"])
    return counts.reindex(cells, fill_value=0).astype(int).reset_index()


def log_likelihood(n: np.ndarray, k: np.ndarray, q: np.ndarray) -> float:
    """sum_s [k_s ln q_s + (n_s - k_s) ln(1 - q_s)] over states with n_s > 0 (0 ln 0 = 0; -inf
    where q gives probability 0 to a move made). Raises ValueError for q outside [0, 1]."""
    n, k, q = (np.asarray(a, float) for a in (n, k, q))
    seen = n > 0
    if np.any((q[seen] < 0) | (q[seen] > 1) | np.isnan(q[seen])):
        raise ValueError(f"strategy entries must be probabilities in [0, 1], got {q[seen].tolist()}")
    with np.errstate(divide="ignore"):
        return float(np.sum(xlogy(k[seen], q[seen]) + xlogy(n[seen] - k[seen], 1 - q[seen])))


def per_move(loglik: float, moves: int) -> float:
    """exp(log L / moves): geometric mean probability given to each move (0 if log L = -inf)."""
    return math.exp(loglik / moves) if moves else math.nan


def compare(counts: pd.DataFrame, elicited: Mapping[str, tuple[float, float | None, float | None]],
            references: Mapping[str, np.ndarray], confidence: float = 0.95,
            settings: TestSettings = TestSettings()) -> tuple[list[dict], dict]:
    """State rows and the summary of one model x condition (module docstring).

    Args:
        counts: its rows of :func:`transitions` (one per state, :data:`STATES` order).
        elicited: {state: (P(L), valid answers m or None, L answers j or None)}; counts None for a
            probability estimated from log-probabilities, P(L) NaN for a scenario with no estimate.
        references: {name: memory-1 vector (p0, pLL, pLR, pRL, pRR)}.
        confidence: of the Wilson intervals.
        settings: of the bootstrap and the power (:class:`TestSettings`).

    Returns:
        (state rows with :data:`STATE_COLUMNS` minus KEYS, summary fields moves .. detectable).
    """
    by_state = counts.set_index("state").reindex(list(STATES))
    n, k = by_state["n"].to_numpy(float), by_state["n_L"].to_numpy(float)
    entries = [elicited.get(s, (math.nan, None, None)) for s in STATES]
    q = np.array([e[0] for e in entries], float)
    m = np.array([e[1] if e[1] else math.nan for e in entries], float)
    j = np.array([e[2] if e[1] else math.nan for e in entries], float)
    tested = (n > 0) & ~np.isnan(q)
    g = np.where(tested, g_per_state(n, k, m, j, q), math.nan)
    useful = tested & informative(n, k, m, j, q)
    rows = [_state_row(state, n[i], k[i], q[i], entries[i], bool(tested[i]), bool(useful[i]), g[i], confidence)
            for i, state in enumerate(STATES)]
    moves, seen = int(n.sum()), n > 0
    played = np.where(seen, k / np.where(seen, n, 1), math.nan)
    ll_elicited = log_likelihood(n, k, q) if not np.isnan(q[seen]).any() else math.nan
    ll_played = log_likelihood(n, k, played)
    ll_refs = {name: log_likelihood(n, k, np.asarray(v, float)) for name, v in references.items()}
    best = max(ll_refs, key=ll_refs.get) if ll_refs else None
    summary = {"moves": moves, "states_observed": int(seen.sum()),
               "not_observed": ", ".join(s for s, o in zip(STATES, seen) if not o),
               "loglik_elicited": ll_elicited, "per_move_elicited": per_move(ll_elicited, moves),
               "loglik_played": ll_played, "per_move_played": per_move(ll_played, moves),
               "best_reference": best, "loglik_best_reference": ll_refs.get(best, math.nan),
               "per_move_best_reference": per_move(ll_refs.get(best, math.nan), moves)}
    return rows, summary | _test(n[tested], k[tested], m[tested], j[tested], q[tested], int(useful.sum()), settings)


def _test(n, k, m, j, q, df: int, settings: TestSettings) -> dict:
    """The test fields of a summary over the tested states (module docstring)."""
    if not len(n):
        return {"test": "none", "states_tested": 0, "G": math.nan, "df": 0, "p_value": math.nan,
                "p_bootstrap": math.nan, "detectable": math.nan}
    sampled = ~np.isnan(m)
    kind = "two-sample" if sampled.all() else ("one-sample" if not sampled.any() else "two-sample and one-sample")
    g = float(np.sum(g_per_state(n, k, m, j, q)))
    return {"test": kind, "states_tested": len(n), "G": g, "df": df, "p_value": float(chi2_p(g, df)),
            "p_bootstrap": bootstrap_p(n, k, m, j, q, settings.bootstrap, settings.seed),
            "detectable": detectable_difference(n, m, j, q, settings)}


def _state_row(state: str, n: float, k: float, q: float, entry: tuple, tested: bool, useful: bool, g: float,
               confidence: float) -> dict:
    p_hat, m, j = entry
    e_low, e_high = wilson_interval(j, m, confidence) if m else (p_hat, p_hat)
    p_low, p_high = wilson_interval(int(k), int(n), confidence)
    return {"state": state, "play_n": int(n), "play_L": int(k), "play_p": k / n if n > 0 else math.nan,
            "play_low": p_low, "play_high": p_high, "elicited_n": m, "elicited_L": j, "elicited_p": p_hat,
            "elicited_low": e_low, "elicited_high": e_high, "observed": bool(n > 0), "tested": tested,
            "informative": useful, "G": g}


def elicited_entries(estimates: pd.DataFrame, model: str, experiment: str, condition: str) -> dict:
    """{state: (P(L), n_valid or None, n_L or None)} of one model's elicited memory-1 strategy,
    from the estimates table (results/ipd/<experiment>/estimates.csv); a sampled estimate wins
    over a probability one of the same scenario."""
    mine = estimates[(estimates["model"] == model) & (estimates["experiment"] == experiment)
                     & (estimates["condition"] == condition)]
    entries = {}
    for row in mine.sort_values("method", key=lambda m: m.ne("sampled")).itertuples():
        if row.scenario in entries:
            continue
        sampled = row.method == "sampled"
        entries[row.scenario] = (float(row.p_L), int(row.n_valid) if sampled else None,
                                 int(row.n_L) if sampled else None)
    return entries


def elicited_vs_played(moves: pd.DataFrame, estimates: pd.DataFrame, matched: Mapping[str, tuple[str, str]],
                       references: Mapping[str, np.ndarray], confidence: float = 0.95,
                       settings: TestSettings = TestSettings()) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Both tables for one play experiment.

    Args:
        moves: its moves table.
        estimates: the estimates tables of the elicitation experiments, concatenated.
        matched: {play condition id: (elicitation experiment, its condition id)} (:func:`elicited_condition`);
            play conditions without one are left out.
        references: reference memory-1 strategies.
        settings: of the test's bootstrap and power (:class:`TestSettings`).

    Returns:
        (summary with :data:`SUMMARY_COLUMNS`, states with :data:`STATE_COLUMNS`).
    """
    counts = transitions(moves)
    summaries, states = [], []
    for keys, part in counts.groupby(KEYS, sort=False):
        if keys[1] not in matched:
            continue
        experiment, condition = matched[keys[1]]
        rows, summary = compare(part, elicited_entries(estimates, keys[0], experiment, condition), references,
                                confidence, settings)
        head = dict(zip(KEYS, keys))
        states += [{**head, **row} for row in rows]
        summaries.append({**head, "elicited_experiment": experiment, "elicited_condition": condition, **summary})
    return pd.DataFrame(summaries, columns=SUMMARY_COLUMNS), pd.DataFrame(states, columns=STATE_COLUMNS)

