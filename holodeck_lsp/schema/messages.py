"""Messages of the rules that are checked twice: by the models, and on the raw data by the
loader (so that they show up even while other parts of the file are invalid). One wording
for both lets the loader recognise and drop the duplicate."""

from __future__ import annotations


def too_many(limit: int, what: str, where: str, got: int, hint: str = "") -> str:
    return f"at most {limit} {what} per {where} (got {got}){hint}"


def duplicate_tool(name: str, first_index: int) -> str:
    return f"tool name {name!r} is already used by tools[{first_index}]; tool names must be unique"


def both_case_sources() -> str:
    return "set `test_cases` or `test_cases_file`, not both"


def endpoint_required() -> str:
    return (
        "provider azure_openai needs `endpoint:` (your resource URL, e.g. "
        "https://NAME.openai.azure.com/) here or in a config.yaml `providers:` entry"
    )


def turns_mixed(fields: list[str]) -> str:
    listed = ", ".join(f"`{name}`" for name in fields)
    return (
        f"a multi-turn case (with `turns`) cannot also set {listed} at case level; move them "
        "onto the turns they belong to"
    )


def no_input_or_turns() -> str:
    return "a test case needs `input` (single-turn) or `turns` (multi-turn)"


SPLIT_SUITE_HINT = "; split the suite into several agent files"
