"""The JUnit XML report, for CI systems.

`<testsuites>` holds one `<testsuite>` per test case (named by the case's `name:`, else `#N`
with N its 0-based index) and one `<testcase>` per turn (`classname` = the case, `name` =
`turn N: <input, shortened>`); a single-turn case is one `<testcase>` named by its input. A
failing turn carries `<failure message=…>` with the reasons (errors, tool assertions, metrics);
a skipped turn `<skipped message=…>`; an errored turn (the provider could not answer: not
measured) `<error type="provider" message=…>`, counted in `errors`; `<system-out>` holds the
agent's response. Every measured turn, passing or not, carries `<properties>` with each
view's verdict: `expected_tools` (the strict view, when the turn asserts tools) and one
`metric.<name>` per metric (`passed`, `failed`, `error`, `skipped` or `not graded`) with
`metric.<name>.score` — so CI can tell which view failed a turn, and that a passing turn
passed each. When a multi-turn case failed although none of its turns did (an error of
the case itself), one more `<testcase name="test case">` carries that failure, so CI never
reports a failed case as green.

Built with ElementTree, so every value is escaped; characters XML 1.0 cannot hold at all
(most control characters) are shown as `\\xNN`.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from dataclasses import dataclass

from holodeck_lsp.engine.run_statistics import run_statistics
from holodeck_lsp.engine.token_totals import agent_usage, judge_usage
from holodeck_lsp.reports.run.view import (
    Block,
    Case,
    cases,
    error_reason,
    failure_reasons,
    metric_status,
    number,
    skip_reason,
)
from holodeck_lsp.schema.results import TestReport

_NAME_WIDTH = 80
_INVALID_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_WHITESPACE = re.compile(r"\s+")


@dataclass(slots=True)
class _Counts:
    tests: int = 0
    failures: int = 0
    errors: int = 0
    skipped: int = 0
    ms: int = 0

    def add(self, other: _Counts) -> None:
        self.tests += other.tests
        self.failures += other.failures
        self.errors += other.errors
        self.skipped += other.skipped
        self.ms += other.ms

    def set_on(self, element: ET.Element) -> None:
        element.set("tests", str(self.tests))
        element.set("failures", str(self.failures))
        element.set("errors", str(self.errors))
        element.set("skipped", str(self.skipped))
        element.set("time", _seconds(self.ms))


def render(report: TestReport) -> str:
    root = ET.Element("testsuites", {"name": _clean(report.agent_name)})
    _add_statistics(root, report)
    total = _Counts()
    for case in cases(report):
        suite, counts = _suite(case)
        root.append(suite)
        total.add(counts)
    total.set_on(root)
    ET.indent(root)
    body = ET.tostring(root, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _add_statistics(root: ET.Element, report: TestReport) -> None:
    """The run's pass rate with its 95 % interval, per model with pass^k over repeats
    (docs/reports.md, "Statistics"), as `<properties>` of `<testsuites>`: JUnit has no field
    for them, and readers skip properties they do not know."""
    figures = run_statistics(report)
    listed = [
        ("pass_rate", f"{figures.suite.rate:.2f}"),
        ("pass_rate_low_95", f"{figures.suite.low:.2f}"),
        ("pass_rate_high_95", f"{figures.suite.high:.2f}"),
    ]
    several = len(figures.models) > 1
    for model in figures.models:
        prefix = f"{model.model}:" if several and model.model else ""
        if several:
            listed += [
                (f"{prefix}pass_rate", f"{model.cases.rate:.2f}"),
                (f"{prefix}pass_rate_low_95", f"{model.cases.low:.2f}"),
                (f"{prefix}pass_rate_high_95", f"{model.cases.high:.2f}"),
            ]
        for k, share in enumerate(model.pass_hat_k, start=1):
            listed.append((f"{prefix}pass^{k}", f"{share:.4f}"))
    properties = ET.SubElement(root, "properties")
    for name, text in listed:
        ET.SubElement(properties, "property", {"name": _clean(name), "value": text})


def _suite(case: Case) -> tuple[ET.Element, _Counts]:
    suite = ET.Element("testsuite", {"name": _clean(case.label)})
    if case.result.timestamp:
        suite.set("timestamp", _clean(case.result.timestamp))
    counts = _Counts(ms=case.result.execution_time_ms)
    judge = judge_usage([case.result])
    listed: list[tuple[str, str]] = []
    if case.tag and case.result.model:
        # In a matrix the suite name carries the model too (what CI pages show); the
        # property is for tools that read it.
        listed.append(("model", case.result.model))
        if case.result.repeat is not None:
            listed.append(("repeat", str(case.result.repeat)))
    if judge is not None:
        # The judges' tokens, apart from the agent's (JUnit has no field for either).
        usage = agent_usage([case.result])
        agent = usage.total_tokens if usage is not None else 0
        listed += [("agent_tokens", str(agent)), ("judge_tokens", str(judge.total_tokens))]
    simulation = case.result.simulation
    if simulation is not None:
        # Which simulated user produced the conversation (docs/simulated-users.md).
        listed += [
            ("simulator_model", simulation.model),
            ("simulator_prompt", simulation.fingerprint),
        ]
        if simulation.diverged_at_turn is not None:
            listed.append(("diverged_at_turn", str(simulation.diverged_at_turn)))
    if case.result.cost_usd is not None:
        # The agent's tokens at the price list, in USD (the JSON report's `cost_usd`).
        listed.append(("cost_usd", f"{case.result.cost_usd:.6f}"))
    if listed:
        properties = ET.SubElement(suite, "properties")
        for name, value in listed:
            ET.SubElement(properties, "property", {"name": name, "value": _clean(value)})
    for block in case.blocks:
        suite.append(_testcase(case, block, counts))
    suite.extend(_simulation_testcases(case, counts))
    failed_case = not case.result.passed and not case.result.errored
    failed_case = failed_case and not case.result.simulator_failed
    if case.multi_turn and failed_case and counts.failures == 0:
        reasons = case.case_errors or ["test case failed"]
        suite.append(_case_failure(case, reasons, counts))
    counts.set_on(suite)
    return suite, counts


def _testcase(case: Case, block: Block, counts: _Counts) -> ET.Element:
    counts.tests += 1
    name = _shorten(block.input)
    if block.turn_index is not None:
        name = f"turn {block.turn_index}: {name}" if name else f"turn {block.turn_index}"
    element = ET.Element(
        "testcase",
        {
            "classname": _clean(case.label),
            "name": _clean(name),
            "time": _seconds(block.execution_time_ms),
        },
    )
    _add_verdicts(element, block)
    if block.skipped:
        counts.skipped += 1
        ET.SubElement(element, "skipped", {"message": _clean(skip_reason(block))})
    elif block.errored:
        counts.errors += 1
        reason = error_reason(block)
        error = ET.SubElement(element, "error", {"type": "provider", "message": _clean(reason)})
        error.text = _clean(reason)
    elif not block.passed:
        counts.failures += 1
        _add_failure(element, failure_reasons(block))
    if block.response is not None:
        ET.SubElement(element, "system-out").text = _clean(block.response)
    return element


def _add_verdicts(element: ET.Element, block: Block) -> None:
    """Each view's verdict of a measured turn as testcase properties (pytest writes its
    record_property the same way), whether the turn passed or failed."""
    if block.skipped or block.errored:
        return
    listed: list[tuple[str, str]] = []
    if block.expected_tools is not None and block.tools_matched is not None:
        listed.append(("expected_tools", "passed" if block.tools_matched else "failed"))
    for metric in block.metric_results:
        listed.append((f"metric.{metric.metric_name}", metric_status(metric)))
        if not metric.skipped and metric.error is None:
            listed.append((f"metric.{metric.metric_name}.score", number(metric.score)))
    if listed:
        properties = ET.SubElement(element, "properties")
        for name, value in listed:
            ET.SubElement(properties, "property", {"name": _clean(name), "value": _clean(value)})


def _simulation_testcases(case: Case, counts: _Counts) -> list[ET.Element]:
    """A simulated-user case's `at end` checks (a failure when they failed) and its
    simulator's failure (an `<error type="simulator">`: not the agent's, not a failure)."""
    simulation = case.result.simulation
    if simulation is None:
        return []
    elements: list[ET.Element] = []
    at_end = simulation.at_end
    if at_end is not None:
        counts.tests += 1
        element = ET.Element("testcase", {"classname": _clean(case.label), "name": "at end"})
        if not at_end.passed:
            counts.failures += 1
            failing = [m.metric_name for m in at_end.metric_results if m.passed is False]
            reasons = [*at_end.errors, *(f"metric {name} failed" for name in failing)]
            if at_end.tools_matched is False:
                reasons.append("expected tools not called")
            _add_failure(element, reasons or ["the at_end checks failed"])
        elements.append(element)
    if simulation.failure is not None:
        counts.tests += 1
        counts.errors += 1
        element = ET.Element(
            "testcase", {"classname": _clean(case.label), "name": "simulated user"}
        )
        reason = f"{simulation.failure}: {simulation.failure_detail or ''}".rstrip(": ")
        error = ET.SubElement(element, "error", {"type": "simulator", "message": _clean(reason)})
        error.text = _clean(reason)
        elements.append(element)
    return elements


def _case_failure(case: Case, reasons: list[str], counts: _Counts) -> ET.Element:
    counts.tests += 1
    counts.failures += 1
    element = ET.Element(
        "testcase", {"classname": _clean(case.label), "name": "test case", "time": "0.000"}
    )
    _add_failure(element, reasons)
    return element


def _add_failure(element: ET.Element, reasons: Iterable[str]) -> None:
    listed = list(reasons)
    failure = ET.SubElement(element, "failure", {"message": _clean("; ".join(listed))})
    failure.text = _clean("\n".join(listed))


def _seconds(ms: int) -> str:
    return f"{ms / 1000:.3f}"


def _shorten(text: str) -> str:
    flat = _WHITESPACE.sub(" ", text).strip()
    return flat if len(flat) <= _NAME_WIDTH else flat[: _NAME_WIDTH - 1].rstrip() + "…"


def _clean(text: str) -> str:
    """Text XML 1.0 can carry: forbidden characters become visible `\\xNN` escapes."""
    return _INVALID_XML.sub(lambda m: f"\\x{ord(m[0]):02x}", text)
