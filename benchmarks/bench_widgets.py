"""How long a click takes in the interactive controls: click -> recompute -> update, on the kernel side.

Run: ``.venv/bin/python benchmarks/bench_widgets.py [--clicks 200] [--in-process-only]``

Each scenario performs one kind of interaction many times and times each one
from the call (``button.click()`` or setting ``.value``) until every widget of
the control holds its new value (the handlers run synchronously). Two settings:

- **kernel**: inside a real IPython kernel started with jupyter_client, where
  every widget change is serialised and sent on the kernel's IOPub channel,
  as in JupyterLab or Voilà (the browser's rendering is not included);
- **in-process**: the same code in this Python process, where widget
  messages go nowhere (the recompute and redraw alone).

"lab model only" times the pure half of a click (the next state and
``compute``, no widget, no table HTML, no plot), to show what the view adds.

Prints a table of median, 95th percentile and maximum in milliseconds. The
goal for a grade click in the metrics lab is a median under 20 ms. Timings
are reported, never asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import textwrap
import time

# The scenarios, as code run where the controls live. ``CLICKS`` is set before it runs.
SCENARIOS = textwrap.dedent(
    """
    import json as _json
    import time as _time

    from helpers.widgets import lab_model as _model
    from helpers.widgets import metrics_lab, mrr_control, ndcg_control, worksheet_control


    def _timed(actions):
        times = []
        for action in actions:
            start = _time.perf_counter()
            action()
            times.append((_time.perf_counter() - start) * 1000)
        return times


    _lab = metrics_lab()
    _mrr, _ndcg, _sheet = mrr_control(), ndcg_control(), worksheet_control()
    _rank_options = [1, 2, 3, 4, 5, 0]
    _setup = _lab.setup
    _results = {
        "lab model only: click + compute": _timed(
            [
                lambda i=i: _model.compute(_setup, _model.click_grade(_setup, _lab.state, 1 + i % 6))
                for i in range(CLICKS)
            ]
        ),
        "lab: grade click": _timed(
            [_lab.grade_buttons[i % 6].click for i in range(CLICKS)]
        ),
        "lab: K slider": _timed(
            [lambda i=i: setattr(_lab.k_slider, "value", 1 + i % 6) for i in range(CLICKS)]
        ),
        "lab: threshold switch": _timed(
            [lambda i=i: setattr(_lab.threshold_toggle, "value", 1 + i % 2) for i in range(CLICKS)]
        ),
        "lab: gain switch": _timed(
            [
                lambda i=i: setattr(_lab.gain_toggle, "value", ("linear", "exponential")[i % 2])
                for i in range(CLICKS // 4)
            ]
        ),
        "lesson 01: move a passage": _timed(
            [
                lambda i=i: setattr(_mrr.rank_pickers["NEW", "q1"], "value", _rank_options[i % 6])
                for i in range(CLICKS)
            ]
        ),
        "lesson 02: move D11": _timed(
            [
                lambda i=i: setattr(_ndcg.position_pickers["D11"], "value", _rank_options[i % 6])
                for i in range(CLICKS)
            ]
        ),
        "lesson 03: edit a grade": _timed(
            [lambda i=i: setattr(_sheet.grade_inputs[i % 6], "value", i % 4) for i in range(CLICKS)]
        ),
    }
    """
)
REPORT = 'print("__BENCH__" + _json.dumps(_results))'


def run_in_process(clicks: int) -> dict[str, list[float]]:
    """Run the scenarios here; widget messages have no frontend to go to."""
    namespace = {"CLICKS": clicks}
    exec(SCENARIOS, namespace)  # our own benchmark code, the same text the kernel runs
    return namespace["_results"]


def run_in_kernel(clicks: int, timeout: float = 300) -> dict[str, list[float]]:
    """Run the scenarios inside a fresh python3 kernel and read the timings from its output."""
    from jupyter_client.manager import start_new_kernel

    manager, client = start_new_kernel(kernel_name="python3")
    chunks = []
    try:
        reply = client.execute_interactive(
            f"CLICKS = {clicks}\n{SCENARIOS}\n{REPORT}",
            timeout=timeout,
            output_hook=lambda message: (
                chunks.append(message["content"].get("text", "")) if message["msg_type"] == "stream" else None
            ),
        )
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"the benchmark failed in the kernel: {reply['content'].get('evalue')}")
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    text = "".join(chunks)
    return json.loads(text.split("__BENCH__", 1)[1])


def percentile(values: list[float], share: float) -> float:
    """The value below which ``share`` of the values lie (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(share * len(ordered)) - 1))]


def table(title: str, results: dict[str, list[float]]) -> str:
    """The timings as a fixed-width table."""
    lines = [title, f"{'scenario':<38} {'n':>5} {'median ms':>10} {'p95 ms':>8} {'max ms':>8}"]
    for name, times in results.items():
        lines.append(
            f"{name:<38} {len(times):>5} {statistics.median(times):>10.2f} "
            f"{percentile(times, 0.95):>8.2f} {max(times):>8.2f}"
        )
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clicks", type=int, default=200, help="interactions per scenario (default 200)")
    parser.add_argument("--in-process-only", action="store_true", help="skip the kernel measurement")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    print(table("in-process (recompute + redraw, no messages):", run_in_process(args.clicks)))
    if not args.in_process_only:
        print()
        print(table("kernel (recompute + redraw + messages on IOPub):", run_in_kernel(args.clicks)))
    print(f"\n{time.perf_counter() - started:.1f} s in all; goal: lab grade click median < 20 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
