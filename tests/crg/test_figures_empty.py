"""A run without mixed tables still draws Fig. 3 (a figure that says so), never a matplotlib crash."""

import pandas as pd

from workflow_scripts.crg.figures.mixed import pair_figure
from workflow_scripts.plotting import save


def test_pair_figure_without_models_says_there_are_no_mixed_tables(tmp_path):
    pairs = pd.DataFrame(columns=["row_model", "column_model", "kind", "value", "games"])
    fig = pair_figure(pairs, [])
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert any("No mixed tables" in t for t in texts)
    save(fig, [tmp_path / "fig3.png"])
    assert (tmp_path / "fig3.png").stat().st_size > 0
