"""The fix functions themselves: never raise, whatever the text and offset."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.fixes import fixes_for, to_turns

FAULTY = """name: x
model: {provider: openia, name: m}
instructions:
  inline: "A"
evaluations:
  metrics:
    - type: code
      grader: "graders.mod:fn"
test_cases:
  - input: 25587
    groundtruth: yes
    expected_tools: [{name: t, args: {a: {fuzy: 1}, b: {regex: "f(x"}}}]
  - input: q
    turns:
      - input: "é 📈"
        ground_truth: |
          block
"""
CODES = ("HD100", "HD102", "HD103", "HD111", "HD120", "HD131", "HD132", "HD201", "HD125")


def test_every_prefix_and_offset_is_safe(tmp_path: Path) -> None:
    data = {"suggestion": "fuzzy", "expected": "a string"}
    for cut in range(0, len(FAULTY) + 1, 23):
        text = FAULTY[:cut]
        for offset in range(-1, len(text) + 2, 11):
            to_turns(text, offset)
            for code in CODES:
                for fix in fixes_for(text, code, offset, data, tmp_path, "must be a string"):
                    for edit in fix.edits:
                        assert 0 <= edit.start <= edit.end <= len(text)
