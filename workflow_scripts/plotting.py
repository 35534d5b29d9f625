"""Plotting helpers every figure of both studies shares: a headless backend, a fixed colour per
model, one legend below the panels, a grid of panels, and saving PNG + PDF."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

__all__ = ["legend_below", "model_colors", "panel_grid", "plt", "save"]


def model_colors(models) -> dict[str, tuple]:
    """A fixed colour per model (tab10 in the given order; tab20 beyond ten models)."""
    cmap = plt.get_cmap("tab10" if len(models) <= 10 else "tab20")
    return {model: cmap(i % cmap.N) for i, model in enumerate(models)}


def legend_below(fig: plt.Figure, handles, labels, title: str = "model", columns: int = 5) -> None:
    """One legend for the whole figure, below the panels."""
    fig.legend(handles, labels, title=title, loc="lower center", ncol=min(max(len(labels), 1), columns), frameon=False)


def panel_grid(count: int, columns: int, width: float = 3.2, height: float = 2.8, sharey: bool = True):
    """(figure, flat list of the first ``count`` axes) on a grid; spare axes hidden."""
    columns = max(1, min(count, columns))
    rows = math.ceil(count / columns)
    figure_width = max(width * columns + 1, 7.5)  # room for the suptitle on single-panel figures
    fig, axes = plt.subplots(rows, columns, figsize=(figure_width, height * rows + 1.2), squeeze=False, sharey=sharey)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def save(fig: plt.Figure, paths) -> None:
    """Write the figure to every path (PNG and PDF), 150 dpi, and close it."""
    for path in paths:
        fig.savefig(path, dpi=150)
    plt.close(fig)
