"""The lessons' tests read a run lesson's printed text as JupyterLab shows it (tests/notebook_runner.py)."""

from __future__ import annotations

from nbformat.v4 import new_code_cell, new_notebook, new_output

from tests.notebook_runner import printed_text


def test_one_print_sent_in_two_stream_messages_reads_as_one_line():
    """A busy kernel can flush a print's parts apart: nbclient keeps two outputs, the text is still one line."""
    cell = new_code_cell("print(...)", outputs=[
        new_output("stream", name="stdout", text="keys returned:"),
        new_output("stream", name="stdout", text=" ['recip_rank']\n"),
        new_output("execute_result", data={"text/plain": "0.567"}, execution_count=1),
        new_output("stream", name="stdout", text="after\n"),
        new_output("stream", name="stderr", text="a warning\n"),
    ])
    other = new_code_cell("print(...)", outputs=[new_output("stream", name="stdout", text="next cell\n")])
    text = printed_text(new_notebook(cells=[cell, other]))
    assert text == "keys returned: ['recip_rank']\n\n0.567\nafter\n\na warning\n\nnext cell\n"
