"""The stable diagnostic codes every layer reports with.

Codes are part of the public contract (JSON/SARIF output, editor filters, suppression lists):
never renumber one; retire a code by leaving a gap. The titles are the one-line summaries used
in docs/diagnostics.md and as SARIF rule descriptions.
"""

from __future__ import annotations

from enum import StrEnum


class Code(StrEnum):
    """Diagnostic codes. HD0xx: YAML and file level; HD1xx: schema and load-time faults;
    HD2xx: lints beyond what HoloDeck itself checks (never errors). HD125 is the one
    deliberate difference: an error HoloDeck does not report (see checker/matcher_typos.py)."""

    INTERNAL_ERROR = "HD000"
    YAML_SYNTAX = "HD001"
    DUPLICATE_KEY = "HD002"
    TOO_DEEP = "HD003"
    ROOT_NOT_MAPPING = "HD004"
    FILE_UNREADABLE = "HD005"
    ENV_VAR_UNSET = "HD010"
    GLOBAL_CONFIG_INVALID = "HD011"
    ENV_VALUE_CHANGES_YAML = "HD012"

    UNKNOWN_KEY = "HD100"
    MISSING_FIELD = "HD101"
    WRONG_TYPE = "HD102"
    INVALID_CHOICE = "HD103"
    OUT_OF_RANGE = "HD104"
    TOO_MANY_ITEMS = "HD105"
    INVALID_VALUE = "HD106"
    BLANK_STRING = "HD107"
    PATTERN_MISMATCH = "HD108"

    EMPTY_TURNS = "HD110"
    TURNS_MIXED_WITH_LEGACY = "HD111"
    NO_INPUT_OR_TURNS = "HD112"

    BAD_REGEX = "HD120"
    BAD_MATCHER_SHAPE = "HD121"
    BAD_COUNT = "HD122"
    BAD_TOLERANCE = "HD123"
    BAD_EXPECTED_TOOL = "HD124"
    #: Was the lint HD203 (a warning) until it became an error; HD203 is retired.
    MISSPELT_MATCHER = "HD125"

    BAD_GRADER_PATH = "HD130"
    GRADER_MODULE_NOT_FOUND = "HD131"
    GRADER_ATTRIBUTE_MISSING = "HD132"
    GRADER_NOT_CALLABLE = "HD133"
    GRADER_IMPORT_FAILED = "HD134"

    TEST_CASES_AND_FILE = "HD140"
    TEST_CASES_FILE_INVALID = "HD141"

    INSTRUCTIONS_SOURCE = "HD150"
    DUPLICATE_TOOL_NAME = "HD151"
    ENDPOINT_REQUIRED = "HD152"
    EXCLUSIVE_FIELDS = "HD153"

    #: A warning, or an error where holodeck-lsp.yaml sets `upstream_loadable: true`.
    EXTENDS_UPSTREAM = "HD160"

    UNDECLARED_TOOL = "HD201"
    UNKNOWN_TOOL_PARAMETER = "HD202"
    NON_STRING_ARG_NAME = "HD204"
    RAG_WITHOUT_CONTEXT = "HD205"
    JUDGES_EXTRA_MISSING = "HD206"


TITLES: dict[Code, str] = {
    Code.INTERNAL_ERROR: "holodeck-lsp failed while checking this file (a bug: please report)",
    Code.YAML_SYNTAX: "YAML syntax error",
    Code.DUPLICATE_KEY: "Duplicate mapping key (HoloDeck keeps the last one)",
    Code.TOO_DEEP: "Nesting or alias expansion too large to check",
    Code.ROOT_NOT_MAPPING: "The document is not a mapping of agent fields",
    Code.FILE_UNREADABLE: "File cannot be read",
    Code.ENV_VAR_UNSET: "${VAR} reference to an unset environment variable",
    Code.ENV_VALUE_CHANGES_YAML: "${VAR} value changes the YAML it is substituted into",
    Code.GLOBAL_CONFIG_INVALID: "Global or project config.yaml is invalid",
    Code.UNKNOWN_KEY: "Unknown key",
    Code.MISSING_FIELD: "Required field missing",
    Code.WRONG_TYPE: "Value has the wrong type",
    Code.INVALID_CHOICE: "Value is not one of the allowed choices",
    Code.OUT_OF_RANGE: "Number out of range",
    Code.TOO_MANY_ITEMS: "List too long or too short",
    Code.INVALID_VALUE: "Invalid value",
    Code.BLANK_STRING: "String must not be empty or blank",
    Code.PATTERN_MISMATCH: "String does not have the required form",
    Code.EMPTY_TURNS: "turns: is empty",
    Code.TURNS_MIXED_WITH_LEGACY: "turns: mixed with single-turn fields",
    Code.NO_INPUT_OR_TURNS: "Test case has neither input nor turns",
    Code.BAD_REGEX: "Regex matcher does not compile",
    Code.BAD_MATCHER_SHAPE: "Argument matcher has an invalid shape",
    Code.BAD_COUNT: "expected_tools count must be at least 1",
    Code.BAD_TOLERANCE: "Invalid numeric tolerance",
    Code.BAD_EXPECTED_TOOL: "expected_tools entry has an invalid shape",
    Code.MISSPELT_MATCHER: "Matcher key is a misspelt matcher kind (fuzy, regx, literl)",
    Code.BAD_GRADER_PATH: "Grader path is not module.path:callable",
    Code.GRADER_MODULE_NOT_FOUND: "Grader module not found",
    Code.GRADER_ATTRIBUTE_MISSING: "Grader module has no such attribute",
    Code.GRADER_NOT_CALLABLE: "Grader is not callable",
    Code.GRADER_IMPORT_FAILED: "Grader module failed to import (trusted mode)",
    Code.TEST_CASES_AND_FILE: "test_cases and test_cases_file both set",
    Code.TEST_CASES_FILE_INVALID: "test_cases_file cannot be used",
    Code.INSTRUCTIONS_SOURCE: "instructions needs exactly one of file / inline",
    Code.DUPLICATE_TOOL_NAME: "Duplicate tool name",
    Code.ENDPOINT_REQUIRED: "model.endpoint required for this provider",
    Code.EXCLUSIVE_FIELDS: "Mutually exclusive fields",
    Code.EXTENDS_UPSTREAM: "Extends upstream HoloDeck (simulated_user): upstream cannot load it",
    Code.UNDECLARED_TOOL: "Expected tool matches no declared tool",
    Code.UNKNOWN_TOOL_PARAMETER: "Asserted argument is not a parameter of the tool",
    Code.NON_STRING_ARG_NAME: "Asserted argument name is not a string",
    Code.RAG_WITHOUT_CONTEXT: "rag metric where no graded turn has retrieval_context",
    Code.JUDGES_EXTRA_MISSING: "G-Eval / RAG metric without the judges extra (deepeval)",
}
