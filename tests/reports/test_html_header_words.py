"""The HTML report's header and grid say what a reader knows: the run's mode and model, never
a backend's class name (`replay (ReplayBackend)`); a baseline named `baseline` heads its
column once (not `base baseline`); and every grid cell is one fixed box whatever marks it
carries (reports/run/html/page.css), so a marked cell does not make the grid jagged."""

from __future__ import annotations

import re
from pathlib import Path

from holodeck_lsp.reports.run import html
from holodeck_lsp.reports.run.html.data import page_data
from holodeck_lsp.schema.results import TestResult
from tests.reports.test_html_report import failing_turn, report_of

PAGE = Path(html.__file__).parent


def test_no_backend_class_name_in_the_page_or_its_labels() -> None:
    result = TestResult(test_name="c", test_index=0, turns=[failing_turn(0)])
    report = report_of(result).model_copy(
        update={"environment": {"mode": "replay", "backend": "ReplayBackend"}}
    )
    data = page_data(report)
    assert all("Backend" not in run["label"] for run in data["runs"]), data["runs"]
    script = (PAGE / "page.js").read_text("utf-8")
    assert "env.backend" not in script  # the header shows env.mode only


def test_a_baseline_labelled_base_is_not_called_base_twice() -> None:
    script = (PAGE / "page.js").read_text("utf-8")
    assert 'el("th", null, "base " + base.label)' not in script
    assert '/^base/i.test(base.label) ? base.label : "base " + base.label' in script


def test_every_cell_is_one_fixed_box() -> None:
    css = (PAGE / "page.css").read_text("utf-8")
    rules = " ".join(re.findall(r"\.cell(?:\.rate)? \{([^}]*)\}", css))
    for declaration in ("box-sizing: border-box", "padding: 0", "vertical-align: middle"):
        assert declaration in rules, declaration
    (rate,) = re.findall(r"\.cell\.rate \{([^}]*)\}", css)
    assert "width: auto" not in rate and "width: 44px" in rate  # a rate's text cannot widen it
    # Marks sit outside the flow: they never add to a cell's size.
    (mark,) = re.findall(r"\.cell \.mark \{([^}]*)\}", css)
    assert "position: absolute" in mark
