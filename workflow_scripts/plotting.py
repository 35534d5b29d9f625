"""Plotting helpers every figure of both studies shares: a headless backend with the project's style
(:mod:`workflow_scripts.figure_style`: journal sizes, type, colours), one legend below the panels, a
grid of panels, a check that no text collides with other text or leaves the canvas, and saving PNG +
PDF."""

from __future__ import annotations

import logging
import math
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from matplotlib.legend import Legend  # noqa: E402
from matplotlib.text import Text  # noqa: E402

from workflow_scripts.figure_style import DPI, TWO_COLUMNS, apply, figure_size, model_colors  # noqa: E402

apply()
__all__ = ["bottom_xlabel", "figure", "legend_below", "model_colors", "panel_columns", "panel_grid", "plt", "save",
           "suptitle", "text_problems", "tick_rotation"]
log = logging.getLogger(__name__)

CHARACTER = 0.6
"""Width of one character of DejaVu Sans, as a share of the font size (an upper bound for labels)."""


def text_width(text: str, points: float) -> float:
    """Inches a one-line text of ``points`` pt takes at most (:data:`CHARACTER` per character)."""
    return len(str(text)) * CHARACTER * points / 72


def suptitle(fig, text: str) -> None:
    """The figure's title, each line wrapped to the figure's width (at the title's type size)."""
    points = plt.rcParams["figure.titlesize"]
    chars = max(20, int(fig.get_figwidth() * 72 / (points * CHARACTER)) - 2)
    fig.suptitle("\n".join(part for line in text.split("\n") for part in textwrap.wrap(line, chars)))


def tick_rotation(labels, slot: float, points: float | None = None) -> int:
    """0 if every label fits its slot (``slot`` inches per tick) lying flat, else 90 (upright labels
    never overlap their neighbours)."""
    points = points or plt.rcParams["xtick.labelsize"]
    return 0 if max((text_width(label, points) for label in labels), default=0.0) < slot * 0.95 else 90


def bottom_xlabel(axes, text: str) -> None:
    """``text`` as the x-axis label of the lowest visible panel of each column of a grid (the panels
    below carry it; a label centred under the whole grid would share the legend's place)."""
    shown = [ax for ax in axes if ax.get_visible()]
    cells = {(ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start) for ax in shown}
    for ax in shown:
        row, column = ax.get_subplotspec().rowspan.start, ax.get_subplotspec().colspan.start
        if not any(r > row and c == column for r, c in cells):
            ax.set_xlabel(text)


def figure(height: float, width: float = TWO_COLUMNS) -> plt.Figure:
    """An empty figure of the style: ``width`` inches (a journal column width) and ``height`` inches
    (capped at the page height), constrained layout."""
    return plt.figure(figsize=figure_size(height, width), layout="constrained")


def legend_below(fig: plt.Figure, handles, labels, title: str | None = "model", columns: int | None = None) -> None:
    """One legend for the whole figure, outside and below the panels (constrained layout keeps the
    room for it); as many columns as fit the figure's width (at most ``columns``)."""
    if not labels:
        return
    points = plt.rcParams["legend.fontsize"]
    entry = max(text_width(label, points) for label in labels) + 0.45  # handle and spacing, inches
    fit = max(1, int(fig.get_figwidth() // entry))
    ncol = max(1, min(len(labels), fit, columns or len(labels)))
    fig.legend(handles, labels, title=title or None, loc="outside lower center", ncol=ncol)


def panel_grid(count: int, columns: int, height: float = 1.6, width: float = TWO_COLUMNS, sharey: bool = True,
               extra: float = 0.7, sharex: bool = False):
    """(figure, flat list of the first ``count`` axes) on a grid of ``columns`` columns, ``height``
    inches per row plus ``extra`` for titles and legend, ``width`` inches wide; spare axes hidden."""
    columns = max(1, min(count, columns))
    rows = math.ceil(count / columns)
    fig = figure(height * rows + extra, width)
    axes = fig.subplots(rows, columns, squeeze=False, sharey=sharey, sharex=sharex)
    flat = list(axes.flat)
    for ax in flat[count:]:
        ax.set_visible(False)
    return fig, flat[:count]


def _hidden_texts(fig: plt.Figure) -> set[int]:
    """Ids of the texts that are not drawn: those of hidden axes, and tick labels of ticks outside
    the view (matplotlib keeps a pool of ticks; only those ``Axis._update_ticks`` returns are drawn)."""
    hidden = set()
    for ax in fig.axes:
        if not ax.get_visible():
            hidden |= {id(t) for t in ax.findobj(Text)}
            continue
        for axis in ax._axis_map.values():
            shown = ax.axison and axis.get_visible()
            drawn = {id(t) for tick in axis._update_ticks() for t in (tick.label1, tick.label2)} if shown else set()
            if not shown:
                hidden |= {id(axis.label), id(axis.offsetText)}
            pool = [t for tick in axis.get_major_ticks() + axis.get_minor_ticks() for t in (tick.label1, tick.label2)]
            hidden |= {id(t) for t in pool if id(t) not in drawn or not t.get_visible()}
    return hidden


def _text_boxes(fig: plt.Figure, renderer) -> list[tuple[str, object]]:
    """(description, display-space box) of every drawn text element: each legend as one box (its
    entries are laid out by matplotlib), every other non-empty text (titles, axis and tick labels,
    annotations, panel texts, the suptitle) on its own."""
    hidden = _hidden_texts(fig)
    legends = [a for a in fig.findobj(Legend) if a.get_visible() and id(a) not in hidden]
    inside = {id(t) for legend in legends for t in legend.findobj(Text)}
    boxes = [(f"legend {legend.get_title().get_text() or ''}".strip(), legend.get_window_extent(renderer))
             for legend in legends]
    for text in fig.findobj(Text):
        label = text.get_text().strip()
        if id(text) in inside or id(text) in hidden or not label or not text.get_visible():
            continue
        boxes.append((f"text {label[:40]!r}", text.get_window_extent(renderer)))
    return boxes


def text_problems(fig: plt.Figure, tolerance: float = 1.0) -> list[str]:
    """Text elements that overlap each other or leave the canvas, as readable lines (empty: none).

    Every drawn text of the figure (titles, tick and axis labels, annotations, texts placed in
    panels, the suptitle) and every legend (as one box) gets its bounding box from matplotlib's
    renderer (``fig.canvas.get_renderer()``, ``artist.get_window_extent``) after a draw without
    rendering (``Figure.draw_without_rendering``: the layout of a saved figure, no pixels). Two
    boxes that intersect by more than ``tolerance`` pixels in both directions collide; a box that
    reaches more than ``tolerance`` pixels beyond the figure's edge leaves the canvas.

    Args:
        fig: a finished figure (as it would be saved).
        tolerance: pixels of overlap ignored (anti-aliasing, touching boxes).

    Returns:
        One line per problem, e.g. ``overlap: text 'RR' / text 'Round 1'``.
    """
    fig.draw_without_rendering()  # lays out every artist (tight_layout, tick placement) without pixels
    renderer = fig.canvas.get_renderer()
    boxes = _text_boxes(fig, renderer)
    width, height = fig.bbox.width, fig.bbox.height
    problems = []
    for name, box in boxes:
        if box.x0 < -tolerance or box.y0 < -tolerance or box.x1 > width + tolerance or box.y1 > height + tolerance:
            problems.append(f"off the canvas: {name}")
    for i, (first, a) in enumerate(boxes):
        for second, b in boxes[i + 1:]:
            dx = min(a.x1, b.x1) - max(a.x0, b.x0)
            dy = min(a.y1, b.y1) - max(a.y0, b.y0)
            if dx > tolerance and dy > tolerance:
                problems.append(f"overlap: {first} / {second}")
    return problems


def panel_columns(count: int, most: int = 4) -> int:
    """Columns of a grid of ``count`` panels: near square (ceil(sqrt(count))), at most ``most``,
    so that 12 panels fill 4 x 3 rather than leaving most of a 5-wide grid empty."""
    return max(1, min(most, math.ceil(math.sqrt(count))))


def save(fig: plt.Figure, paths) -> None:
    """Write the figure to every path (PNG and PDF) at :data:`~workflow_scripts.figure_style.DPI` and
    close it; each text problem of :func:`text_problems` is logged as a warning first (the rule's log
    names it)."""
    for problem in text_problems(fig):
        log.warning("figure text %s", problem)
    for path in paths:
        fig.savefig(path, dpi=DPI)
    plt.close(fig)
