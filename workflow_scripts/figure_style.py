"""The one visual style of every figure of both studies: journal page sizes, type, the colour of
each model, and where legends go.

- **Sizes** (Nature's and Science's artwork guides): one column 89 mm, two columns 183 mm wide, at
  most 247 mm high; figures are drawn at their print size and saved at 300 dpi, so 1 pt of type is
  1 pt on paper.
- **Type**: DejaVu Sans (it ships with matplotlib, so a figure is laid out alike on every machine),
  7 pt text and labels, 6.5 pt ticks and legends, 8 pt titles: readable at print size; TrueType in
  PDFs (editable text, as journals ask).
- **Colours**: the Okabe-Ito palette (Okabe & Ito 2008, "Color Universal Design"; distinguishable
  with every common colour-vision deficiency) without its black, then Paul Tol's "muted" scheme
  (Tol 2021, "Colour schemes", SRON/EPS/TN/09-002) for more than seven models. A model's colour is
  its position in the run's model list (config order, handed to every figure job as ``params``),
  so it keeps its colour in every figure of a run; names outside that list (reference strategies,
  the optimum row) follow the run's models in the order they appear.
- **Legends** sit outside the data: below the panels (``outside lower center``) under matplotlib's
  constrained layout, which also keeps titles, labels and legends apart.
- **No blocks of text** in figures: long readings go to the tables, figures carry short annotations.
"""

from __future__ import annotations

import matplotlib

MM = 1 / 25.4
"""Inches per millimetre."""
ONE_COLUMN, TWO_COLUMNS, PAGE_HEIGHT = 89 * MM, 183 * MM, 247 * MM
"""Figure widths of one and two journal columns and the most a figure may be high, in inches."""
DPI = 300
"""Resolution of saved raster figures (dots per inch at print size)."""

OKABE_ITO = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442")
"""Okabe-Ito without black: blue, vermillion, bluish green, reddish purple, orange, sky blue, yellow."""
TOL_MUTED = ("#332288", "#117733", "#44AA99", "#88CCEE", "#DDCC77", "#CC6677", "#AA4499", "#882255", "#999933")
"""Paul Tol's muted scheme: indigo, green, teal, cyan, sand, rose, purple, wine, olive."""
PALETTE = OKABE_ITO + TOL_MUTED
"""Colours in the order they are given to the run's models (16; more models reuse them)."""
NEUTRAL = "#777777"
"""Grey of reference lines (the optimum, the fair share, neutral drift)."""

RC = {
    "font.family": "sans-serif",
    "font.sans-serif": ["DejaVu Sans"],
    "font.size": 7,
    "axes.titlesize": 7.5,
    "axes.labelsize": 7,
    "xtick.labelsize": 6.5,
    "ytick.labelsize": 6.5,
    "legend.fontsize": 6.5,
    "legend.title_fontsize": 7,
    "figure.titlesize": 8,
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "figure.constrained_layout.use": True,
    "figure.constrained_layout.h_pad": 0.03,
    "figure.constrained_layout.w_pad": 0.03,
    "axes.linewidth": 0.6,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": matplotlib.cycler(color=list(PALETTE)),
    "axes.titlepad": 4,
    "xtick.major.width": 0.6,
    "ytick.major.width": 0.6,
    "xtick.major.size": 2.5,
    "ytick.major.size": 2.5,
    "lines.linewidth": 1.0,
    "lines.markersize": 3.5,
    "errorbar.capsize": 1.5,
    "legend.frameon": False,
    "legend.handlelength": 1.5,
    "legend.columnspacing": 1.2,
    "hatch.linewidth": 0.5,
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "image.cmap": "viridis",
}
"""matplotlib rcParams of the style (applied by :func:`apply`)."""


def apply() -> None:
    """Make :data:`RC` matplotlib's defaults (``workflow_scripts.plotting`` does so on import)."""
    matplotlib.rcParams.update(RC)


def model_colors(shown, run_models=()) -> dict[str, str]:
    """A colour for every name in ``shown``: a run model's by its position in ``run_models``, any other
    name the next colours after the run's models, in order of appearance (module docstring).

    Args:
        shown: the names a figure draws (models, reference strategies, ...).
        run_models: the run's models in config order (a figure job's ``params.models``); empty: the
            order of ``shown``.

    Returns:
        {name: hex colour}.
    """
    order = list(dict.fromkeys(run_models))
    order += [name for name in dict.fromkeys(shown) if name not in order]
    return {name: PALETTE[order.index(name) % len(PALETTE)] for name in dict.fromkeys(shown)}


def figure_size(height: float, width: float = TWO_COLUMNS) -> tuple[float, float]:
    """(width, height) in inches, the height capped at :data:`PAGE_HEIGHT`."""
    return (width, min(float(height), PAGE_HEIGHT))
