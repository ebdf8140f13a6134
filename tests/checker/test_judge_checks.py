"""HD205 (a rag metric with no retrieval_context to read) and HD206 (G-Eval / RAG without
deepeval), through the real loader on real YAML."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker import judge_checks
from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
from holodeck_lsp.schema.codes import Code

HEAD = """name: a
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: Answer.}
"""


def codes(tmp_path: Path, text: str) -> list[tuple[str, int, str]]:
    path = tmp_path / "agent.yaml"
    path.write_text(HEAD + text, encoding="utf-8")
    result = load_agent_file(path, options=LoadOptions(env={}, home=tmp_path / "home"))
    assert not result.errors, [d.message for d in result.errors]
    return [
        (d.code, d.range.start.line, d.message)
        for d in result.diagnostics
        if d.code in (Code.RAG_WITHOUT_CONTEXT, Code.JUDGES_EXTRA_MISSING)
    ]


def test_a_turn_rag_metric_without_context_is_flagged_at_the_metric(tmp_path: Path) -> None:
    found = codes(
        tmp_path,
        """test_cases:
  - name: c
    turns:
      - input: hi
        evaluations:
          - {type: rag, metric_type: faithfulness}
      - input: again
        retrieval_context: [passage]
        evaluations:
          - {type: rag, metric_type: faithfulness}
          - {type: rag, metric_type: answer_relevancy}
""",
    )
    assert [(code, line) for code, line, _ in found] == [(Code.RAG_WITHOUT_CONTEXT, 8)]
    message = found[0][2]
    assert "faithfulness" in message and "retrieval_context" in message
    assert message.endswith("(holodeck-lsp lint)")


def test_agent_level_rag_metric_is_flagged_only_when_no_turn_has_context(tmp_path: Path) -> None:
    suite = """evaluations:
  metrics:
    - {type: rag, metric_type: contextual_recall}
test_cases:
  - name: one
    input: hi
    ground_truth: x
  - name: two
    input: ho
    ground_truth: y
"""
    assert [c for c, _, _ in codes(tmp_path, suite)] == [Code.RAG_WITHOUT_CONTEXT]
    with_context = suite.replace(
        "    ground_truth: y\n", "    ground_truth: y\n    retrieval_context: [p]\n"
    )
    assert codes(tmp_path, with_context) == []


def test_an_is_retrieval_mcp_server_silences_it(tmp_path: Path) -> None:
    found = codes(
        tmp_path,
        """tools:
  - {name: kb, type: mcp, description: Search., command: npx, args: [kb], is_retrieval: true}
test_cases:
  - name: c
    input: hi
    evaluations:
      - {type: rag, metric_type: faithfulness}
""",
    )
    assert found == []


def test_without_deepeval_geval_and_rag_say_how_to_install_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(judge_checks, "judges_extra_installed", lambda: False)
    found = codes(
        tmp_path,
        """test_cases:
  - name: c
    input: hi
    retrieval_context: [p]
    evaluations:
      - {type: geval, name: Direct, criteria: Plain.}
      - {type: rag, metric_type: faithfulness}
      - {type: standard, metric: relevance}
""",
    )
    assert [(c, line) for c, line, _ in found] == [
        (Code.JUDGES_EXTRA_MISSING, 8),
        (Code.JUDGES_EXTRA_MISSING, 9),
    ]
    assert "pip install 'holodeck-lsp[judges]'" in found[0][2]
