"""How sure each Nash / partner / rival verdict is, given the answers behind it.

Every posterior draw of a strategy (ipd.analysis.posterior: Jeffreys Beta per sampled scenario)
goes through the exact margins of the core (gametheory.margins: the numbers of
equilibria.classify, the IPD paper's SI §6.2): the Nash gap max_s' pi(s', s) - pi(s, s), the partner
shortfall aLL - pi(s, s) and the rival gap max_s' [pi(s', s) - pi(s, s')], in payoff units per
round. Reported per strategy and w:

* each margin at the point estimate, with its central posterior interval (level ``level``);
* the posterior probability of each epsilon-verdict: Nash gap <= epsilon; partner = Nash gap
  and shortfall <= epsilon; rival gap <= epsilon (epsilon in payoff units; the core's tolerance
  is added). An exact verdict (epsilon = 0) that rests on an equality (a partner's shortfall 0,
  a tie at w = 0) has probability 0 under any continuous posterior, which is why the margins
  and the epsilon-verdicts are the result;
* the share of random memory-1 opponents that beat pi(s, s): at the point and its interval over
  the first ``share_draws`` draws (the same ``opponents`` random opponents for every draw, so the
  interval also holds the binomial error of that many opponents, at most 0.5 / sqrt(opponents)).

A strategy without sampled entries (log-probability estimates) is *exact*: its margins have no
sampling error, its intervals are left empty (never invented) and its probabilities are 0 or 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pandas as pd

from workflow_scripts.gametheory.margins import MARGINS, beating_share, verdict_margins
from workflow_scripts.gametheory.payoffs import is_prisoners_dilemma
from workflow_scripts.gametheory.io import STAGE_PAYOFF_COLUMNS
from workflow_scripts.ipd.analysis.posterior import KEY, StrategyPosterior

VERDICTS = ("nash", "partner", "rival")


@dataclass(frozen=True)
class Settings:
    """Posterior settings (config ``ipd.analysis.confidence``).

    Attributes:
        draws: posterior draws per strategy (>= 1).
        seed: seed of the draws and of the random opponents.
        epsilon: slack of the epsilon-verdicts, payoff units per round (>= 0).
        level: level of the central posterior intervals, in (0, 1).
        opponents: random memory-1 opponents per draw for the beating share (0 skips it).
        share_draws: posterior draws (the first ones) whose beating share gives its interval.
        memory2_draws: posterior draws of a memory-2 strategy for its margins (each draw is two
            best-response MDPs, about 5 ms, where a memory-1 draw is a share of one vectorised call).
    """

    draws: int = 1000
    seed: int = 0
    epsilon: float = 0.01
    level: float = 0.95
    opponents: int = 100
    share_draws: int = 200
    memory2_draws: int = 200

    def __post_init__(self):
        if int(self.draws) < 1:
            raise ValueError(f"ipd.analysis.confidence.draws must be >= 1, got {self.draws!r}")
        if not 0.0 < float(self.level) < 1.0:
            raise ValueError(f"ipd.analysis.confidence.level must be in (0, 1), got {self.level!r}")
        if float(self.epsilon) < 0 or int(self.opponents) < 0 or min(int(self.share_draws), int(self.memory2_draws)) < 1:
            raise ValueError("ipd.analysis.confidence: epsilon and opponents must be >= 0, share_draws and memory2_draws >= 1")

    @classmethod
    def of(cls, mapping: dict) -> "Settings":
        return cls(**{k: mapping[k] for k in ("draws", "seed", "epsilon", "level", "opponents", "share_draws", "memory2_draws")
                      if k in mapping})

    def draws_for(self, kind: str) -> int:
        """Posterior draws of the margins of a strategy of ``kind`` (memory2_draws for memory-2)."""
        return int(self.memory2_draws if kind == "memory2" else self.draws)

    def random_opponents(self) -> np.ndarray:
        """The random memory-1 opponents, shape (opponents, 5), uniform on [0, 1]^5."""
        return np.random.default_rng([int(self.seed), 1]).random((int(self.opponents), 5))


def interval(values: np.ndarray, level: float) -> tuple[float, float]:
    """Central posterior interval (equal tails) of draws; a constant sample gives [v, v], never NaN."""
    tail = (1.0 - float(level)) / 2.0
    low, high = np.quantile(np.asarray(values, dtype=float), [tail, 1.0 - tail])
    return float(low), float(high)


def monte_carlo_error(probability: float, draws: int) -> float:
    """Standard error sqrt(p (1 - p) / D) of a probability estimated from D independent draws."""
    return math.sqrt(max(probability * (1.0 - probability), 0.0) / int(draws))


def verdict_confidence(posterior: StrategyPosterior, payoffs, w: float, settings: Settings,
                       draws: np.ndarray | None = None) -> dict:
    """One row of the confidence table: margins, intervals and verdict probabilities of one strategy at w.

    Args:
        posterior: the strategy's posterior (memory-1 or memory-2).
        payoffs: stage payoffs (aLL, aLR, aRL, aRR); w: stopping probability in [0, 1).
        settings: Settings.
        draws: the posterior draws to use (default: ``posterior.draws(settings.draws_for(kind), settings.seed)``).

    Returns:
        dict with w, exact, draws, for each margin m in MARGINS: m (point), m_low, m_high (NaN if
        exact); for each verdict v: v (point verdict within epsilon), p_v (posterior probability),
        p_v_mc_se (its Monte Carlo standard error); share (point), share_low, share_high. Partner
        and rival are NA when the stage game is not a prisoner's dilemma.
    """
    sample = posterior.draws(settings.draws_for(posterior.kind), settings.seed) if draws is None else draws
    point = verdict_margins(posterior.point[None, :], payoffs, w)
    spread = verdict_margins(sample, payoffs, w)
    row = {"w": float(w), "exact": posterior.exact, "draws": len(sample), "epsilon": float(settings.epsilon)}
    for name in MARGINS:
        low, high = (math.nan, math.nan) if posterior.exact else interval(getattr(spread, name), settings.level)
        row |= {name: float(getattr(point, name)[0]), f"{name}_low": low, f"{name}_high": high}
    dilemma = is_prisoners_dilemma(payoffs)
    at_point, drawn = point.verdicts(settings.epsilon), spread.verdicts(settings.epsilon)
    for verdict in VERDICTS:
        defined = dilemma or verdict == "nash"
        probability = float(np.mean(drawn[verdict])) if defined else math.nan
        row |= {verdict: bool(at_point[verdict][0]) if defined else pd.NA, f"p_{verdict}": probability,
                f"p_{verdict}_mc_se": monte_carlo_error(probability, len(sample)) if defined else math.nan}
    return row | _shares(posterior, sample, payoffs, w, settings)


def _shares(posterior: StrategyPosterior, sample: np.ndarray, payoffs, w: float, settings: Settings) -> dict:
    """Share of random opponents beating pi(s, s): at the point and its interval over the draws."""
    if not settings.opponents:
        return {"share": math.nan, "share_low": math.nan, "share_high": math.nan, "opponents": 0}
    opponents = settings.random_opponents()
    share = float(beating_share(posterior.point[None, :], opponents, payoffs, w)[0])
    low, high = (math.nan, math.nan) if posterior.exact else interval(
        beating_share(sample[:int(settings.share_draws)], opponents, payoffs, w), settings.level)
    return {"share": share, "share_low": low, "share_high": high, "opponents": int(settings.opponents)}


def confidence_table(posteriors: list[StrategyPosterior], strategies: pd.DataFrame, ws, settings: Settings
                     ) -> pd.DataFrame:
    """The confidence table of an experiment: one row per strategy and w (the classification's rows).

    Args:
        posteriors: ipd.analysis.posterior.strategy_posteriors of the memory-1 / memory-2 table.
        strategies: that strategy table (KEY, aLL..aRR, w: the prompt's own w or NaN).
        ws: stopping probabilities to evaluate at (``ipd.analysis.classify_w``), besides each own w.
        settings: Settings.

    Returns:
        KEY, then the columns of :func:`verdict_confidence`, then own_w (True at the prompt's w).
    """
    rows = []
    table = strategies.assign(**{c: strategies[c].astype(str) for c in KEY}).set_index(list(KEY))
    for posterior in posteriors:
        row = table.loc[posterior.key]
        payoffs = tuple(float(row[c]) for c in STAGE_PAYOFF_COLUMNS)
        own = float(row["w"]) if pd.notna(row["w"]) else None
        sample = posterior.draws(settings.draws_for(posterior.kind), settings.seed)
        for w in dict.fromkeys([float(v) for v in ws] + ([own] if own is not None else [])):
            record = verdict_confidence(posterior, payoffs, w, settings, sample)
            rows.append(dict(zip(KEY, posterior.key)) | record | {"own_w": own is not None and math.isclose(w, own)})
    return pd.DataFrame(rows, columns=_columns())


def _columns() -> list[str]:
    margins = [c for m in MARGINS for c in (m, f"{m}_low", f"{m}_high")]
    verdicts = [c for v in VERDICTS for c in (v, f"p_{v}", f"p_{v}_mc_se")]
    return [*KEY, "w", "exact", "draws", "epsilon", *margins, *verdicts,
            "share", "share_low", "share_high", "opponents", "own_w"]
