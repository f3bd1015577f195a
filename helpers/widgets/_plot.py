"""The bar plot of discounted gain per position (lessons 02, 05): one figure, redrawn in place as a PNG."""

from __future__ import annotations

import html
import struct
import zlib
from collections.abc import Sequence

import ipywidgets as widgets
import numpy as np
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import PolyCollection
from matplotlib.figure import Figure
from matplotlib.patches import Patch

from helpers.widgets._arithmetic import Row

# visually hidden, still read by screen readers
OFF_SCREEN = "position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def png_chunk(kind: bytes, data: bytes) -> bytes:
    """One PNG chunk: length, kind, data and the CRC of kind + data."""
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png_bytes(pixels: np.ndarray, text: dict[str, str] | None = None, level: int = 1) -> bytes:
    """A PNG file of an RGBA pixel array (height x width x 4): the plot's picture (lessons 02, 05).

    ``text`` adds text chunks (keyword -> Latin-1 text), e.g. a description of
    the plot. The rows are stored unfiltered and compressed at a low ``level``:
    about half the time of a general encoder, which is what keeps a click fast.
    """
    if pixels.ndim != 3 or pixels.shape[2] != 4 or pixels.dtype != np.uint8:
        raise ValueError(f"expected RGBA uint8 pixels, got shape {pixels.shape} and dtype {pixels.dtype}")
    height, width, _ = pixels.shape
    header = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)  # 8 bits per channel, RGBA
    notes = [png_chunk(b"tEXt", f"{key}\0{value}".encode("latin-1")) for key, value in (text or {}).items()]
    rows = np.concatenate([np.zeros((height, 1), np.uint8), pixels.reshape(height, width * 4)], axis=1)
    return b"".join(
        [
            PNG_SIGNATURE,
            png_chunk(b"IHDR", header),
            *notes,
            png_chunk(b"IDAT", zlib.compress(rows.tobytes(), level)),
            png_chunk(b"IEND", b""),
        ]
    )


class DiscountedGainPlot:
    """A bar plot of the discounted gain per position that redraws in place (lessons 02, 05).

    One matplotlib Figure is made once, outside pyplot (so no figure ever piles
    up in a notebook), with its axes, labels and legend drawn once as a
    background. An update only redraws the bars on that background and puts the
    PNG bytes into the same :class:`ipywidgets.Image`: the picture changes, the
    widget stays, nothing flickers. The background is drawn once per gain form
    (each has its own y-axis) and reused.

    The picture is drawn at ``pixel_ratio`` times the size it is shown at
    (``css_width`` pixels wide on the page), so it stays crisp on a projector,
    and its smallest text is 18 pt, 20 px on the page (a projector's floor). ``box`` holds the
    image and, off screen, the plot in words (``text``) for screen readers.
    """

    TOP_K, BEYOND_K, IDEAL = "#1f77b4", "#c9c9c9", "#222222"
    HALF_WIDTH = 0.35
    CSS_DPI = 80  # CSS pixels per inch of the figure on the page
    TEXT_PT = 18  # the smallest text: 18 pt at 80 CSS px per inch is 20 px on the page
    TITLE_PT = 18

    def __init__(self, positions: int, width: float = 7.5, height: float = 4.4, pixel_ratio: int = 2):
        self.positions = positions
        # drawn at pixel_ratio times its size on the page: crisp on a projector or a HiDPI screen
        self.figure = Figure(figsize=(width, height), dpi=self.CSS_DPI * pixel_ratio)
        self.canvas = FigureCanvasAgg(self.figure)
        self.axes = self.figure.add_subplot()
        self.figure.subplots_adjust(left=0.11, right=0.98, bottom=0.17, top=0.78)
        self.title = self.figure.text(0.01, 0.98, "", va="top", fontsize=self.TITLE_PT)
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
        self.css_width = round(width * self.CSS_DPI)
        self.image = widgets.Image(format="png", layout=widgets.Layout(width=f"{self.css_width}px", height="auto"))
        self.image.add_class("dg-plot")
        # the plot in words for a screen reader: text kept off screen (an Image widget has no alt text)
        self.text = widgets.HTML(layout=widgets.Layout(height="0px", min_height="0px", margin="0px"))
        self.text.add_class("dg-plot-text")
        self.box = widgets.VBox([self.image, self.text])
        self.box.add_class("dg-plot-box")
        self.heights: list[float] = zeros
        self.ideal_heights: list[float] = zeros
        self.description = ""
        self._backgrounds: dict[tuple[float, str], object] = {}  # (y_max, gain) -> the pixels of the axes
        self._background_key: tuple[float, str] | None = None
        self._background: object = None

    @property
    def smallest_text_px(self) -> float:
        """The height of the smallest text in image pixels (on the page: times the shown width / the image width)."""
        return self.TEXT_PT * self.figure.dpi / 72

    def _draw_axes(self, positions: int) -> None:
        self.axes.set_xlim(0.4, positions + 0.6)
        self.axes.set_xticks(range(1, positions + 1))
        self.axes.set_xlabel("rank", fontsize=self.TEXT_PT)
        self.axes.set_ylabel("gain / log2(rank + 1)", fontsize=self.TEXT_PT)
        self.axes.tick_params(labelsize=self.TEXT_PT)
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
            fontsize=self.TEXT_PT,
            handlelength=1.2,
            columnspacing=1.0,
        )

    def _rectangles(self, heights: Sequence[float]) -> list[list[tuple[float, float]]]:
        w = self.HALF_WIDTH
        return [
            [(rank - w, 0.0), (rank - w, h), (rank + w, h), (rank + w, 0.0)] for rank, h in enumerate(heights, start=1)
        ]

    def _draw_background(self, y_max: float, gain: str) -> None:
        """Set the y-axis and title for a gain form; draw them once per form, then reuse the pixels."""
        key = (y_max, gain)
        if key == self._background_key:
            return
        self.axes.set_ylim(0, y_max * 1.08)
        self.title.set_text(f"Discounted gain per position ({gain} gain)")
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
        notes = {"Description": self.description, "Smallest-Text-Px": f"{self.smallest_text_px:.1f}"}
        self.image.value = png_bytes(np.asarray(self.canvas.buffer_rgba()), notes)
        self.text.value = f"<span style='{OFF_SCREEN}'>{html.escape(self.alt_text)}</span>"

    @property
    def alt_text(self) -> str:
        """The picture in words, as its text alternative."""
        return f"Bar plot of the discounted gain per position: {self.description}"

    def describe(self, k: int, gain: str) -> str:
        """The plot in words (stored in the PNG): the bar heights of both rankings, to 3 decimals."""
        bars = " ".join(f"{height:.3f}" for height in self.heights)
        ideal = " ".join(f"{height:.3f}" for height in self.ideal_heights)
        return f"{gain} gain, K = {k}; discounted gain by rank: {bars}; ideal: {ideal}"
