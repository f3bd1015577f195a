"""The website's build steps without building it: solution cells left out, links made absolute, controls drawn."""

from __future__ import annotations

import base64

import nbformat

from website import build
from website.snapshot import image_sources, snapshot


def test_a_solution_cell_is_left_out_before_the_lesson_runs():
    lesson = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_markdown_cell("Step 1", metadata={"tags": ["lesson"]}),
        nbformat.v4.new_code_cell("check('x', answer)", metadata={"tags": ["exercise"]}),
        nbformat.v4.new_code_cell("print('THE ANSWER 0.6181')", metadata={"tags": ["solution"]}),
        nbformat.v4.new_code_cell("x = 1"),
    ])
    kept = build.site_copy(lesson, "notebooks/01_hit_rate_and_mrr.ipynb").cells
    assert [cell.source for cell in kept] == ["Step 1", "check('x', answer)", "x = 1"]


def test_links_to_pages_of_the_site_stay_and_other_files_point_at_the_repository():
    staged = {"notebooks/02_dcg_and_ndcg_by_hand.ipynb", "docs/learners.md", "README.md"}
    text = ("[next](02_dcg_and_ndcg_by_hand.ipynb) [code](../helpers/metrics.py#L3) [data](../data/) "
            "[set up](../README.md#set-up-two-commands) [web](https://example.org/a) [here](#step-1)")
    rewritten = build.rewrite_links(text, "notebooks/01_hit_rate_and_mrr.ipynb", staged)
    repository = build.repository_url()
    assert rewritten == (
        f"[next](02_dcg_and_ndcg_by_hand.ipynb) [code]({repository}/blob/main/helpers/metrics.py#L3) "
        f"[data]({repository}/tree/main/data) [set up](../index.md#set-up-two-commands) "
        "[web](https://example.org/a) [here](#step-1)"
    )


def test_the_binder_link_opens_the_lesson_in_jupyterlab_from_the_configured_repository():
    owner_and_name = build.repository_url().removeprefix("https://github.com/")
    assert build.binder_url("notebooks/05_metrics_lab.ipynb") == (
        f"https://mybinder.org/v2/gh/{owner_and_name}/HEAD?labpath=notebooks%2F05_metrics_lab.ipynb"
    )


def test_a_control_is_drawn_from_its_widget_state_with_its_values_and_picture():
    png = base64.b64encode(b"\x89PNG fake").decode()
    models = {
        "box": {"_model_name": "VBoxModel", "children": ["IPY_MODEL_html", "IPY_MODEL_k", "IPY_MODEL_gain",
                                                         "IPY_MODEL_hidden", "IPY_MODEL_plot"],
                "_dom_classes": ["control-main"], "layout": "IPY_MODEL_layout"},
        "layout": {"_model_name": "LayoutModel", "width": "40em"},
        "html": {"_model_name": "HTMLModel", "value": "<b>nDCG@3 = 0.7003</b>"},
        "k": {"_model_name": "IntSliderModel", "description": "K", "value": 3},
        "gain": {"_model_name": "ToggleButtonsModel", "description": "gain", "_options_labels": ["linear", "exp"],
                 "index": 1},
        "hidden": {"_model_name": "HTMLModel", "value": "SECRET", "layout": "IPY_MODEL_none"},
        "none": {"_model_name": "LayoutModel", "display": "none"},
        "plot": {"_model_name": "ImageModel", "format": "png"},
    }
    buffers = {"plot": {("value",): {"path": ["value"], "data": png, "encoding": "base64"}}}
    drawn = snapshot(models, "box", image_sources(models, buffers))
    assert drawn.startswith('<div class="snapshot-vbox control-main" style="width: 40em">')
    assert "<b>nDCG@3 = 0.7003</b>" in drawn and "SECRET" not in drawn
    assert '<span class="snapshot-label">K</span> <span class="snapshot-input">3</span>' in drawn
    assert '<span class="snapshot-input snapshot-chosen">✓ exp</span>' in drawn and ">linear<" in drawn
    assert f'src="data:image/png;base64,{png}"' in drawn
