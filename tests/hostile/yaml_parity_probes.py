"""Agent files built to probe where the C composer (libyaml) and HoloDeck's PyYAML `safe_load`
read YAML differently (issue 35, item 5): each is a valid agent except for one YAML form.

`UPSTREAM_LOADS` records what holodeck-ai 0.7.1 itself did with each whole file (its loader, run
with `scripts/compare_with_upstream.py --venv …` on `write_probes`' output, 2026-12-06); the
tests check ours against it and against PyYAML's verdict on the text."""

from __future__ import annotations

from pathlib import Path

_BASE = """name: probe
model:
  provider: ollama
  name: llama3
instructions:
  inline: "Be brief."
test_cases:
  - name: one
    input: "hello"
    ground_truth: "hi"
"""


def _variant(old: str, new: str) -> str:
    assert old in _BASE, old
    return _BASE.replace(old, new, 1)


_MODEL = "model:\n  provider: ollama\n  name: llama3\n"
_INLINE = 'instructions:\n  inline: "Be brief."\n'
_CASES = 'test_cases:\n  - name: one\n    input: "hello"\n    ground_truth: "hi"\n'

#: name -> agent text. Names say what is probed; `_ok` / `_bad` say what PyYAML does.
PROBES: dict[str, str] = {
    "base_ok": _BASE,
    # Upstream reads these; libyaml refused them before (issue 35).
    "flow_model_url_ok": _variant(
        _MODEL, "model: {provider: ollama, name: llama3, endpoint: http://localhost:11434}\n"
    ),
    "flow_list_url_ok": _variant(
        _CASES, "test_cases: [{name: one, input: hello, ground_truth: http://example.com/a}]\n"
    ),
    "flow_url_question_mark_bad": _variant(
        _INLINE, "instructions: {inline: http://example.com/x?a=b:c, }\n"
    ),
    "flow_url_in_flow_mapping_ok": _variant(
        _INLINE, "instructions: {inline: http://a.example/x:1, }\n"
    ),
    "flow_empty_value_colon_ok": _variant(
        _MODEL, "model: {provider: ollama, name: llama3, endpoint:,}\n"
    ),
    "json_style_ok": _variant(_MODEL, 'model: {"provider":"ollama","name":"llama3"}\n'),
    "literal_tab_line_ok": _variant(_INLINE, "instructions:\n  inline: |\n    \tBe brief.\n"),
    "literal_explicit_indent_tab_ok": _variant(
        _INLINE, "instructions:\n  inline: |2\n    \tBe brief.\n"
    ),
    "folded_tab_line_ok": _variant(_INLINE, "instructions:\n  inline: >\n    Be\n    \tbrief.\n"),
    "yaml_1_3_ok": "%YAML 1.3\n---\n" + _BASE,
    "yaml_1_1_ok": "%YAML 1.1\n---\n" + _BASE,
    "unknown_directive_ok": "%FOO bar baz\n---\n" + _BASE,
    "unknown_directive_tab_ok": "%FOO bar\tbaz\n---\n" + _BASE,
    "binary_ok": _variant('input: "hello"', "input: !!binary aGVsbG8="),
    "tab_in_comment_ok": _variant("name: probe\n", "name: probe # a\tcomment\n"),
    "tab_in_quoted_ok": _variant('inline: "Be brief."', 'inline: "Be\tbrief."'),
    "standard_str_tag_ok": _variant('input: "hello"', "input: !!str 12"),
    "verbatim_str_tag_ok": _variant('input: "hello"', "input: !<tag:yaml.org,2002:str> 12"),
    # Upstream refuses these; we accepted them before (issue 35).
    "tab_after_value_bad": _variant("name: probe\n", "name: probe\t\n"),
    "tab_before_comment_bad": _variant("name: probe\n", "name: probe\t# why\n"),
    "tab_in_flow_mapping_bad": _variant(_MODEL, "model: {provider: ollama,\tname: llama3}\n"),
    "tab_on_blank_line_bad": _variant("model:\n", "\t\nmodel:\n"),
    "tab_after_key_bad": _variant("name: probe\n", "name:\tprobe\n"),
    "tab_after_document_start_bad": "---\t\n" + _BASE,
    "tab_inside_plain_bad": _variant("name: probe\n", "name: pro\tbe\n"),
    "tab_after_block_indicator_bad": _variant(
        _INLINE, "instructions:\n  inline: |\t\n    Be brief.\n"
    ),
    "root_tag_bad": "--- !agent\n" + _BASE,
    "root_verbatim_tag_bad": "--- !<tag:example.com,2026:agent>\n" + _BASE,
    "folded_comment_no_space_bad": _variant(
        _INLINE, "instructions:\n  inline: >#comment\n    Be brief.\n"
    ),
    "python_object_on_mapping_bad": _variant(
        _MODEL, "model: !!python/object:builtins.dict\n  provider: ollama\n  name: llama3\n"
    ),
    "python_apply_on_list_bad": _variant(
        "test_cases:\n", "test_cases: !!python/object/apply:os.system\n"
    ),
    "python_name_scalar_bad": _variant('input: "hello"', "input: !!python/name:os.system"),
    "set_on_mapping_bad": _variant(_MODEL, "model: !!set\n  provider: ollama\n  name: llama3\n"),
    "omap_on_list_bad": _variant(_MODEL, "model: !!omap\n  - provider: ollama\n  - name: llama3\n"),
    "non_specific_tag_number_bad": _variant('input: "hello"', "input: ! 12"),
    "non_specific_tag_quoted_number_bad": _variant('input: "hello"', "input: ! '12'"),
    "local_tag_scalar_bad": _variant('input: "hello"', "input: !include hello.txt"),
    "str_tag_on_list_bad": _variant('input: "hello"', "input: !!str [hello]"),
    "map_tag_on_list_bad": _variant(_MODEL, "model: !!map [ollama]\n"),
    "yaml_2_0_bad": "%YAML 2.0\n---\n" + _BASE,
    "yaml_directive_junk_bad": "%YAML 1.1#x\n---\n" + _BASE,
    "directive_without_start_bad": "%FOO bar\n" + _BASE,
}


def _tab_variants() -> dict[str, str]:
    """On every line of the valid agent: a tab in a comment (loads), a tab after the value or
    before a comment (PyYAML refuses both)."""
    variants: dict[str, str] = {}
    lines = _BASE.splitlines(keepends=True)
    for number, line in enumerate(lines):
        body = line.rstrip("\n")
        for kind, changed in (
            ("tab_in_comment_ok", f"{body}  # x\ty"),
            ("tab_after_value_bad", f"{body}\t"),
            ("tab_before_comment_bad", f"{body} \t# y"),
        ):
            text = "".join([*lines[:number], changed + "\n", *lines[number + 1 :]])
            variants[f"line{number + 1}_{kind}"] = text
    return variants


def _flow_url_variants() -> dict[str, str]:
    """URLs (a `:` inside a flow value) in flow mappings and lists at several depths."""
    urls = ("http://localhost:11434", "https://a.example/x:8080/y", "urn:isbn:0451450523")
    variants: dict[str, str] = {}
    for index, url in enumerate(urls):
        variants[f"flow_model_endpoint_{index}_ok"] = _variant(
            _MODEL, f"model: {{provider: ollama, name: llama3, endpoint: {url}}}\n"
        )
        variants[f"flow_case_{index}_ok"] = _variant(
            _CASES,
            f"test_cases: [{{name: one, input: {url}, ground_truth: {url}}}]\n",
        )
    return variants


PROBES.update(_tab_variants())
PROBES.update(_flow_url_variants())

#: What holodeck-ai 0.7.1 did with each whole file: True = loaded.
UPSTREAM_LOADS: dict[str, bool] = {name: name.endswith("_ok") for name in PROBES}


def write_probes(folder: Path) -> dict[str, Path]:
    """Each probe as `folder/<name>/agent.yaml` (a folder each: `check` finds agent.yaml)."""
    paths: dict[str, Path] = {}
    for name, text in PROBES.items():
        path = folder / name / "agent.yaml"
        path.parent.mkdir(parents=True)
        path.write_text(text, encoding="utf-8")
        paths[name] = path
    return paths


if __name__ == "__main__":  # write the probes for scripts/compare_with_upstream.py
    import sys

    write_probes(Path(sys.argv[1]))
