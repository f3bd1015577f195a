"""The bar plot of discounted gain per position (lessons 02, 05): one figure, redrawn in place as a PNG."""

from __future__ import annotations

import io
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from PIL import Image
from PIL.PngImagePlugin import PngInfo

from helpers.widgets._arithmetic import Row


def png_bytes(pixels: np.ndarray, text: dict[str, str] | None = None, level: int = 1) -> bytes:
    """A PNG file of an RGBA pixel array (height x width x 4), encoded by Pillow.

    ``text`` adds text chunks (keyword -> text), e.g. a description of the plot;
    a low compression ``level`` keeps a click fast.
    """
    height, width, channels = pixels.shape
    if channels != 4 or pixels.dtype != np.uint8:
        raise ValueError(f"expected RGBA uint8 pixels, got shape {pixels.shape} and dtype {pixels.dtype}")
    notes = PngInfo()
    for keyword, value in (text or {}).items():
        notes.add_text(keyword, value)
    buffer = io.BytesIO()
    Image.fromarray(pixels, "RGBA").save(buffer, format="PNG", pnginfo=notes, compress_level=level)
    return buffer.getvalue()


class DiscountedGainPlot:
    """A bar plot of the discounted gain per position that redraws in place (lessons 02, 05).

    One matplotlib Figure is made once, outside pyplot (so no figure ever piles
    up in a notebook), with its axes, labels and legend drawn once as a
    background. An update only redraws the bars on that background and puts the
    PNG bytes into the same :class:`ipywidgets.Image`: the picture changes, the
    widget stays, nothing flickers. The background is drawn once per gain form
    (each has its own y-axis) and reused.
    """

    TOP_K, BEYOND_K, IDEAL = "#1f77b4", "#c9c9c9", "#222222"
    HALF_WIDTH = 0.35

    def __init__(self, positions: int, width: float = 6.0, height: float = 2.9, dpi: int = 80):
        self.positions = positions
        self.figure = Figure(figsize=(width, height), dpi=dpi)
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_subplot()
        self.figure.subplots_adjust(left=0.1, right=0.98, bottom=0.16, top=0.78)
        self.title = self.figure.text(0.01, 0.98, "", va="top", fontsize=9)
        zeros = [0.0] * positions
        # two collections of rectangles (not one patch per bar): drawing them is what a click costs
        self.bars = PolyCollection(self._rectangles(zeros), facecolors=self.TOP_K, animated=True)
        self.ideal_bars = PolyCollection(
            self._rectangles(zeros), facecolors="none", edgecolors=self.IDEAL, linestyles="--", animated=True
        )
        self.axes.add_collection(self.bars)
        self.axes.add_collection(self.ideal_bars)
        self.cutoff = self.axes.axvline(0.5, color="#d62728", linestyle=":", linewidth=2, animated=True)
        self._draw_axes(positions)
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{int(width * dpi)}px"))
        self.image.add_class("dg-plot")
        self.heights: list[float] = zeros
        self.ideal_heights: list[float] = zeros
        self.description = ""
        self._backgrounds: dict[tuple[float, str], object] = {}  # (y_max, gain) -> the pixels of the axes
        self._background_key: tuple[float, str] | None = None
        self._background: object = None

    def _draw_axes(self, positions: int) -> None:
        self.axes.set_xlim(0.4, positions + 0.6)
        self.axes.set_xticks(range(1, positions + 1))
        self.axes.set_xlabel("rank", fontsize=9)
        self.axes.set_ylabel("gain / log2(rank + 1)", fontsize=9)
        self.axes.tick_params(labelsize=8)
        self.axes.legend(
            handles=[
                Patch(color=self.TOP_K, label="counted (rank ≤ K)"),
                Patch(color=self.BEYOND_K, label="beyond K"),
                Patch(fill=False, edgecolor=self.IDEAL, linestyle="--", label="ideal"),
            ],
            loc="lower right",
            bbox_to_anchor=(1.0, 1.0),
            ncol=3,
            frameon=False,
            fontsize=8,
        )

    def _rectangles(self, heights: Sequence[float]) -> list[list[tuple[float, float]]]:
        w = self.HALF_WIDTH
        return [
            [(rank - w, 0.0), (rank - w, h), (rank + w, h), (rank + w, 0.0)]
            for rank, h in enumerate(heights, start=1)
        ]

    def _draw_background(self, y_max: float, gain: str) -> None:
        """Set the y-axis and title for a gain form; draw them once per form, then reuse the pixels."""
        key = (y_max, gain)
        if key == self._background_key:
            return
        self.axes.set_ylim(0, y_max * 1.08)
        self.title.set_text(f"Discounted gain per position ({gain} gain; dashed: the ideal ranking)")
        if key not in self._backgrounds:
            self.canvas.draw()
            self._backgrounds[key] = self.canvas.copy_from_bbox(self.figure.bbox)
        self._background = self._backgrounds[key]
        self._background_key = key

    def update(self, rows: Sequence[Row], k: int, gain: str, y_max: float) -> None:
        """Draw the discounted gains of the rows of an arithmetic table, greying the ranks past K.

        Positions without a row are drawn as 0; ``y_max`` is the largest gain a grade can have.
        """
        self._draw_background(y_max, gain)
        heights, ideal = [0.0] * self.positions, [0.0] * self.positions
        for row in rows:
            if row.rank <= self.positions:
                heights[row.rank - 1] = row.discounted_gain
                ideal[row.rank - 1] = row.ideal_discounted_gain
        self.heights, self.ideal_heights = heights, ideal
        in_top = [rank <= k for rank in range(1, self.positions + 1)]
        self.bars.set_verts(self._rectangles(heights))
        self.bars.set_facecolor([self.TOP_K if top else self.BEYOND_K for top in in_top])
        self.ideal_bars.set_verts(self._rectangles(ideal))
        self.ideal_bars.set_edgecolor([self.IDEAL if top else self.BEYOND_K for top in in_top])
        self.cutoff.set_xdata([k + 0.5, k + 0.5])
        self.canvas.restore_region(self._background)
        for artist in (self.bars, self.ideal_bars, self.cutoff):
            self.axes.draw_artist(artist)
        self.description = self.describe(k, gain)
        # the description travels inside the PNG (a tEXt chunk), so it can never lag behind the picture
        self.image.value = png_bytes(np.asarray(self.canvas.buffer_rgba()), {"Description": self.description})

    def describe(self, k: int, gain: str) -> str:
        """The plot in words (stored in the PNG): the bar heights of both rankings, to 3 decimals."""
        bars = " ".join(f"{height:.3f}" for height in self.heights)
        ideal = " ".join(f"{height:.3f}" for height in self.ideal_heights)
        return f"{gain} gain, K = {k}; discounted gain by rank: {bars}; ideal: {ideal}"
