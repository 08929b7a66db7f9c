"""Figures for `translate compare`: BLEU with intervals, dev BLEU over time, attention heatmaps.

Chinese labels need a font with Han glyphs (JoeyNMT's heatmaps show empty boxes without one): an
installed CJK font is used if matplotlib knows one, else the Noto Sans CJK SC shipped by `mplfonts`.
"""

from __future__ import annotations

import logging
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from typing import Any

logger = logging.getLogger(__name__)
KNOWN_CJK_FAMILIES = ("Noto Sans CJK SC", "Noto Sans SC", "Source Han Sans SC", "WenQuanYi Micro Hei",
                      "WenQuanYi Zen Hei", "SimHei", "Microsoft YaHei", "PingFang SC")


def _pyplot() -> Any:
    """pyplot on the file-only Agg backend, chosen when a figure is first drawn (not at import)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def cjk_font() -> str | None:
    """The family name of a font that draws Han characters, registering mplfonts' copy if needed."""
    from matplotlib import font_manager

    installed = {f.name for f in font_manager.fontManager.ttflist}
    for family in KNOWN_CJK_FAMILIES:
        if family in installed:
            return family
    try:
        import mplfonts
    except ImportError:
        logger.warning("no CJK font found: Chinese labels will show as boxes (pip install mplfonts)")
        return None
    path = Path(mplfonts.__file__).parent / "fonts" / "NotoSansCJKsc-Regular.otf"
    if not path.is_file():
        return None
    font_manager.fontManager.addfont(str(path))
    return str(font_manager.FontProperties(fname=str(path)).get_name())


def _style() -> Any:
    plt = _pyplot()
    family = cjk_font()
    plt.rcParams["font.family"] = ["DejaVu Sans"] + ([family] if family else [])
    plt.rcParams["axes.unicode_minus"] = False
    return plt


def _line_style(index: int) -> str:
    """Solid, dashed, dotted, dash-dot: with more lines than the 10 colours of the cycle, each line stays distinct."""
    return ("-", "--", ":", "-.")[index // 10 % 4]


@dataclass
class BarRow:
    name: str
    bleu: float
    ci: float


def plot_bleu(rows: list[BarRow], path: Path, title: str) -> None:
    plt = _style()  # horizontal bars: two dozen mechanism names stay readable
    fig, ax = plt.subplots(figsize=(8, max(3.0, 0.32 * len(rows) + 1.2)))
    ax.barh([r.name for r in rows], [r.bleu for r in rows], xerr=[r.ci for r in rows], capsize=3, color="#4C72B0")
    ax.invert_yaxis()  # the first row on top, as in the tables
    ax.set_xlabel("test BLEU")
    ax.set_title(title.replace(" (", "\n(", 1), fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _lines(series: dict[str, tuple[list[Any], list[float]]], path: Path, xlabel: str, ylabel: str) -> None:
    """One line per name, legend beside the plot (two dozen mechanisms stay readable)."""
    plt = _style()
    fig, ax = plt.subplots(figsize=(9, 4.5))
    for i, (name, (xs, ys)) in enumerate(series.items()):
        ax.plot(xs, ys, marker="o", markersize=3, label=name, linestyle=_line_style(i))
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.01, 0.5))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def plot_curves(curves: dict[str, list[tuple[float, float]]], path: Path) -> None:
    """curves: name -> [(update, dev BLEU)]."""
    _lines({name: ([p[0] for p in points], [p[1] for p in points]) for name, points in curves.items()}, path,
           "updates", "dev BLEU (greedy)")


def plot_by_length(labels: list[str], bleu: dict[str, list[float]], path: Path, unit: str) -> None:
    """bleu: name -> test BLEU per source-length group (labels)."""
    _lines({name: (labels, values) for name, values in bleu.items()}, path,
           f"source length ({unit}; groups of about equal size)", "test BLEU")


@dataclass
class Heatmap:
    """weights (tgt_len, src_len) with the pieces that label each axis."""

    title: str
    weights: list[list[float]]
    src_pieces: list[str]
    tgt_pieces: list[str]


def plot_heatmaps(grid: list[list[Heatmap]], path: Path) -> None:
    """grid[row][col]: one heatmap each (a study draws sentences x mechanisms, or the transpose)."""
    plt = _style()
    rows, cols = len(grid), max(len(r) for r in grid)
    fig, axes = plt.subplots(rows, cols, figsize=(2.6 * cols, 2.6 * rows), squeeze=False)
    for r, row in enumerate(grid):
        for c in range(cols):
            ax = axes[r][c]
            if c >= len(row):
                ax.axis("off")
                continue
            cell = row[c]
            ax.imshow(cell.weights, cmap="viridis", vmin=0.0, vmax=1.0, aspect="auto")
            ax.set_xticks(range(len(cell.src_pieces)), cell.src_pieces, rotation=90, fontsize=6)
            ax.set_yticks(range(len(cell.tgt_pieces)), cell.tgt_pieces, fontsize=7)
            ax.set_title(cell.title, fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _columns(text: str) -> int:
    """Terminal columns: East Asian wide and full-width characters take two."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def alignment_text(src_pieces: list[str], tgt_pieces: list[str], weights: list[list[float]]) -> str:
    """A terminal view of an attention matrix: each target piece with the source pieces it attended
    to most (at least half of its strongest weight; three at most), strongest first."""
    width = max([_columns(p) for p in tgt_pieces] + [6])
    lines = ["target" + " " * (width - 6) + "  <- source pieces it attended to (weight)"]
    for piece, row in zip(tgt_pieces, weights):
        top = max(row, default=0.0)
        links = sorted(((w, s) for s, w in enumerate(row) if top > 0 and w >= top / 2), reverse=True)[:3]
        lines.append(piece + " " * (width - _columns(piece)) + "  <- "
                     + (", ".join(f"{src_pieces[s]} ({w:.2f})" for w, s in links) or "(no attention)"))
    return "\n".join(lines)
