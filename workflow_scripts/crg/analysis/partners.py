"""Table 5: units a model gives before and after the outcome is settled beside scripted partners
(the CRG paper's Table 5: "Units contributed per game before and after the outcome is settled,
alongside five partners who always contribute 0 or always contribute 4").

Games of design 3 (one model seat, five scripted seats). The partner is read from the other
seats' ``model`` column (``scripted:<rule>``), so conditions may be named freely; risks are
pooled, as in the paper. Settlement is defined in :mod:`workflow_scripts.gametheory.collective_risk`.
"""

from __future__ import annotations

import pandas as pd

from workflow_scripts.crg.query.games import SCRIPTED_PREFIX
from workflow_scripts.crg.analysis.seat_results import complete_seats

TABLE5_COLUMNS = ["model", "partner", "games", "incomplete", "before", "after", "total"]


def table5(seats: pd.DataFrame, models: list[str]) -> pd.DataFrame:
    """Mean units per model seat and game before / after settlement, per model and partner rule.

    Args:
        seats: seat rows (:mod:`workflow_scripts.crg.analysis.seat_results`); only design ``scripted`` is used.
        models: row order.

    Returns:
        Columns :data:`TABLE5_COLUMNS` (``partner`` is the rule name, e.g. ``always_0``; means over
        complete games; ``before + after = total``).
    """
    scripted = seats[seats["design"] == "scripted"]
    partners = (scripted[scripted["seat_kind"] == "scripted"].drop_duplicates("game_id")
                .set_index("game_id")["model"].str.removeprefix(SCRIPTED_PREFIX))
    focal = scripted[scripted["seat_kind"] == "llm"].assign(partner=lambda f: f["game_id"].map(partners))
    rows = []
    for model in models:
        for partner, part in focal[focal["model"] == model].groupby("partner", sort=True):
            done = complete_seats(part)
            rows.append({"model": model, "partner": partner, "games": part["game_id"].nunique(),
                         "incomplete": part["game_id"].nunique() - done["game_id"].nunique(),
                         "before": done["before_settlement"].mean(), "after": done["after_settlement"].mean(),
                         "total": done["total"].mean()})
    return pd.DataFrame(rows, columns=TABLE5_COLUMNS)


def table5_wide(table: pd.DataFrame) -> pd.DataFrame:
    """Model x (partner, before / after), the paper's layout."""
    wide = table.pivot(index="model", columns="partner", values=["before", "after"])
    wide = wide.swaplevel(axis=1).sort_index(axis=1, level=0, sort_remaining=False)
    wide = wide.reindex(index=pd.unique(table["model"]))
    wide.columns = [f"{partner} {when}" for partner, when in wide.columns]
    return wide
