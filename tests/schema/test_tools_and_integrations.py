"""Tools, claude:, openai:, observability: and deployment: — accepted and rejected shapes.

Verdicts follow HoloDeck 0.7.1; the rejected cases also pin the error code we report.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel, TypeAdapter, ValidationError

from holodeck_lsp.schema.claude import ClaudeConfig
from holodeck_lsp.schema.deployment import DeploymentConfig
from holodeck_lsp.schema.observability import ObservabilityConfig
from holodeck_lsp.schema.openai_agents import OpenAIConfig
from holodeck_lsp.schema.tools import (
    TOOL_MODELS,
    TOOL_TYPES,
    FunctionTool,
    HierarchicalDocumentTool,
    MCPTool,
    PromptTool,
    ToolUnion,
    VectorstoreTool,
)
from tests.schema.landed import assert_landed

TOOL = TypeAdapter(ToolUnion)
TOOLS = TypeAdapter(list[ToolUnion])


def _errors(target: type[BaseModel] | TypeAdapter[Any], data: Any) -> list[dict[str, Any]]:
    validate = target.validate_python if isinstance(target, TypeAdapter) else target.model_validate
    with pytest.raises(ValidationError) as info:
        validate(data)
    return [dict(e) for e in info.value.errors()]


def _types(target: type[BaseModel] | TypeAdapter[Any], data: Any) -> list[str]:
    return [e["type"] for e in _errors(target, data)]


# --------------------------------------------------------------------------- tools

FN = {"type": "function", "name": "lookup", "description": "d", "file": "t.py", "function": "go"}
MCP = {"type": "mcp", "name": "fs", "description": "d", "command": "npx", "args": ["-y", "srv"]}
VS = {"type": "vectorstore", "name": "kb", "description": "d", "source": "data/"}
PR = {
    "type": "prompt",
    "name": "summ",
    "description": "d",
    "template": "t",
    "parameters": {"x": {}},
}
HD = {"type": "hierarchical_document", "name": "law", "description": "d", "source": "docs/*.md"}
LLM = {"provider": "openai", "name": "gpt-4o-mini"}


def test_tool_types_and_models_line_up() -> None:
    assert TOOL_TYPES == ("function", "mcp", "vectorstore", "prompt", "hierarchical_document")
    assert set(TOOL_MODELS) == set(TOOL_TYPES)


@pytest.mark.parametrize(
    ("data", "model"),
    [
        (FN, FunctionTool),
        ({**FN, "description": "", "parameters": {"q": {"type": "string"}}}, FunctionTool),
        ({**FN, "defer_loading": False}, FunctionTool),
        (MCP, MCPTool),
        ({**MCP, "command": "docker", "env": {"A": "1"}, "request_timeout": 1}, MCPTool),
        (
            {
                "type": "mcp",
                "name": "r",
                "description": "d",
                "transport": "http",
                "url": "https://x.io/mcp",
                "headers": {"a": "b"},
                "timeout": 2.5,
            },
            MCPTool,
        ),
        (
            {
                "type": "mcp",
                "name": "r",
                "description": "d",
                "transport": "sse",
                "url": "http://127.0.0.1:9000/sse",
            },
            MCPTool,
        ),
        (
            {
                "type": "mcp",
                "name": "r",
                "description": "d",
                "transport": "websocket",
                "url": "ws://h",
            },
            MCPTool,
        ),
        (VS, VectorstoreTool),
        (
            {
                **VS,
                "source": "s3://bucket/key",
                "vector_field": ["a", "b"],
                "id_field": "id",
                "database": {"provider": "qdrant", "url": "http://q", "connection_string": "c"},
                "top_k": 100,
                "min_similarity_score": 1.0,
                "embedding_dimensions": 10000,
            },
            VectorstoreTool,
        ),
        ({**VS, "database": "shared_store"}, VectorstoreTool),
        (PR, PromptTool),
        ({**PR, "template": None, "file": "p.txt", "model": {"name": "x"}}, PromptTool),
        (HD, HierarchicalDocumentTool),
        (
            {
                **HD,
                "search_mode": "keyword",
                "semantic_weight": 0,
                "keyword_weight": 0,
                "exact_weight": 0,
                "enable_reranking": True,
                "reranker_model": LLM,
                "keyword_index": {
                    "provider": "opensearch",
                    "endpoint": "https://os",
                    "index_name": "i",
                    "shards": 2,
                },
                "database": "  ",
            },
            HierarchicalDocumentTool,
        ),
        (
            {**HD, "semantic_weight": 0.6, "keyword_weight": 0.4, "exact_weight": 0},
            HierarchicalDocumentTool,
        ),
    ],
)
def test_tool_accepted(data: dict[str, Any], model: type[BaseModel]) -> None:
    tool = TOOL.validate_python(data)
    assert isinstance(tool, model)
    assert_landed(tool, data)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({k: v for k, v in FN.items() if k != "type"}, "HD101"),
        ({**FN, "type": "Function"}, "HD103"),
        ({**FN, "type": None}, "HD103"),
        ({**FN, "type": 3}, "HD103"),
        ("function", "HD102"),
    ],
)
def test_tool_type_is_required_and_closed(data: Any, code: str) -> None:
    errors = _errors(TOOL, data)
    assert [e["type"] for e in errors] == [code]
    assert "function, mcp, vectorstore, prompt, hierarchical_document" in errors[0]["msg"]


def test_unknown_tool_type_points_at_type_key() -> None:
    (error,) = _errors(TOOLS, [FN, {**FN, "type": "python"}])
    assert error["loc"] == (1,)
    assert error["ctx"] == {"at": "type"}


def test_error_locations_carry_angle_bracket_tags() -> None:
    (error,) = _errors(TOOLS, [{**FN, "file": " "}])
    assert error["loc"] == (0, "<function>", "file")
    assert error["type"] == "HD107"


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({**FN, "name": "look-up"}, "string_pattern_mismatch"),
        ({**FN, "name": ""}, "string_pattern_mismatch"),
        ({**FN, "surprise": 1}, "extra_forbidden"),
        ({**FN, "function": ""}, "HD107"),
        ({k: v for k, v in FN.items() if k != "description"}, "missing"),
        ({k: v for k, v in MCP.items() if k != "command"}, "HD101"),
        ({**MCP, "command": "python"}, "enum"),
        ({**MCP, "transport": "http", "command": None}, "HD101"),
        ({**MCP, "transport": "http", "url": "http://example.com"}, "HD106"),
        ({**MCP, "url": "ftp://example.com"}, "HD106"),
        ({**MCP, "request_timeout": 0}, "greater_than"),
        ({**VS, "source": "ftp://host/x"}, "HD106"),
        ({**VS, "source": "  "}, "HD107"),
        ({**VS, "vector_field": "text"}, "HD101"),
        ({**VS, "database": " "}, "HD107"),
        ({**VS, "database": 5}, "HD102"),
        ({**VS, "database": {"url": "u"}}, "missing"),
        ({**VS, "database": {"provider": "mysql"}}, "literal_error"),
        ({**VS, "database": {"provider": "faiss", "connection_string": " "}}, "HD107"),
        ({**VS, "top_k": 101}, "less_than_equal"),
        ({**VS, "top_k": 0}, "greater_than"),
        ({**VS, "chunk_overlap": -1}, "greater_than_equal"),
        ({**VS, "min_similarity_score": float("nan")}, "less_than_equal"),
        ({k: v for k, v in PR.items() if k != "template"}, "HD153"),
        ({**PR, "file": "p.txt"}, "HD153"),
        ({**PR, "parameters": {}}, "too_short"),
        ({k: v for k, v in PR.items() if k != "parameters"}, "missing"),
        ({**PR, "template": " ", "file": "p.txt"}, "HD107"),
        ({**HD, "semantic_weight": 0.9}, "HD106"),
        ({**HD, "semantic_weight": 0, "keyword_weight": 0, "exact_weight": 1}, "HD106"),
        ({**HD, "enable_reranking": True}, "HD101"),
        ({**HD, "search_mode": "exact"}, "enum"),
        ({**HD, "max_chunk_tokens": 99}, "greater_than_equal"),
        ({**HD, "keyword_index": {"provider": "opensearch", "endpoint": "e"}}, "HD101"),
        ({**HD, "reranker_model": {"provider": "azure_openai", "name": "x"}}, "HD152"),
    ],
)
def test_tool_rejected(data: dict[str, Any], code: str) -> None:
    assert code in _types(TOOL, data)


def test_tool_fault_points_at_sibling_key() -> None:
    (error,) = _errors(TOOL, {**HD, "enable_reranking": True})
    assert error["ctx"] == {"at": "enable_reranking"}
    (error,) = _errors(TOOL, {**VS, "vector_field": "text"})
    assert error["ctx"] == {"at": "vector_field"}


# --------------------------------------------------------------------------- claude / openai


@pytest.mark.parametrize(
    "data",
    [
        {},
        {
            "permission_mode": "acceptAll",
            "i_understand_this_is_unsafe": True,
            "max_turns": 1,
            "extended_thinking": {"enabled": True, "budget_tokens": 100_000},
            "bash": {"enabled": True, "excluded_commands": ["rm"], "allow_unsafe": False},
            "file_system": {"read": True, "write": True, "edit": False},
            "effort": "max",
            "max_budget_usd": 0.01,
            "setting_sources": ["user", "project", "user"],
            "agents": {
                "researcher": {
                    "description": "x",
                    "prompt": "p",
                    "tools": ["Read", "mcp__a__b"],
                    "model": "inherit",
                }
            },
            "allowed_tools": ["Read"],
            "disallowed_tools": ["Bash"],
            "web_search": True,
        },
        {"setting_sources": ["all"], "agents": {}},
        {"agents": {"a": {"description": "d", "prompt_file": "prompts/a.md"}}},
        {"disable_default_hooks": True, "disable_subprocess_env_scrub": False},
    ],
)
def test_claude_accepted(data: dict[str, Any]) -> None:
    assert_landed(ClaudeConfig.model_validate(data), data)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"subagents": {"enabled": True}}, "HD100"),
        ({"sub_agents": 1}, "extra_forbidden"),
        ({"permission_mode": "bypassPermissions"}, "enum"),
        ({"max_turns": 0}, "greater_than_equal"),
        ({"max_concurrent_sessions": 501}, "less_than_equal"),
        ({"session_memory_estimate_mib": 49}, "greater_than_equal"),
        ({"max_budget_usd": 0}, "greater_than"),
        ({"extended_thinking": {"budget_tokens": 999}}, "greater_than_equal"),
        ({"setting_sources": ["all", "user"]}, "HD106"),
        ({"setting_sources": ["all", "all"]}, "HD106"),
        ({"setting_sources": ["global"]}, "literal_error"),
        ({"disable_default_hooks": "true"}, "bool_type"),
        ({"disable_subprocess_env_scrub": 1}, "bool_type"),
        ({"agents": {"a": {"description": " ", "prompt": "p"}}}, "HD107"),
        ({"agents": {"a": {"description": "d"}}}, "HD153"),
        ({"agents": {"a": {"description": "d", "prompt": "p", "prompt_file": "f"}}}, "HD153"),
        ({"agents": {"a": {"description": "d", "prompt": "  "}}}, "HD107"),
        ({"agents": {"a": {"description": "d", "prompt_file": ""}}}, "HD107"),
        (
            {"agents": {"a": {"description": "d", "prompt": "p", "model": "claude-haiku-4-5"}}},
            "literal_error",
        ),
    ],
)
def test_claude_rejected(data: dict[str, Any], code: str) -> None:
    assert code in _types(ClaudeConfig, data)


def test_legacy_subagents_block_gets_a_targeted_message() -> None:
    (error,) = _errors(ClaudeConfig, {"subagents": {}})
    assert "agents:" in error["msg"] and error["ctx"] == {"at": "subagents"}


@pytest.mark.parametrize(
    "data",
    [
        {},
        {
            "max_concurrent_sessions": 1,
            "session_memory_estimate_mib": 2000,
            "max_turns": 50,
            "permissions": {"allowed_tools": ["a"], "disallowed_tools": []},
            "effort": "high",
            "max_budget_usd": 3,
            "fallback_model": "gpt-4o-mini",
            "disallowed_tools": ["x"],
            "i_understand_this_is_unsafe": True,
            "disable_default_hooks": False,
        },
    ],
)
def test_openai_accepted(data: dict[str, Any]) -> None:
    assert_landed(OpenAIConfig.model_validate(data), data)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"max_turns": 0}, "greater_than_equal"),
        ({"permissions": {"tools": []}}, "extra_forbidden"),
        ({"agents": {}}, "extra_forbidden"),
        ({"effort": "xhigh"}, "literal_error"),
        ({"disable_subprocess_env_scrub": "yes"}, "bool_type"),
        ({"max_budget_usd": -1}, "greater_than"),
    ],
)
def test_openai_rejected(data: dict[str, Any], code: str) -> None:
    assert code in _types(OpenAIConfig, data)


# --------------------------------------------------------------------------- observability


@pytest.mark.parametrize(
    "data",
    [
        {},
        {
            "enabled": True,
            "service_name": "svc",
            "disable_provider_tracing": True,
            "traces": {
                "sample_rate": 0.1,
                "redaction_patterns": [r"\d{16}"],
                "max_queue_size": 5,
                "max_export_batch_size": 5,
            },
            "metrics": {"export_interval_ms": 1000},
            "logs": {"level": "CRITICAL", "filter_namespaces": ["holodeck"]},
            "exporters": {
                "console": {"pretty_print": False},
                "otlp": {"endpoint": "http://c:4318", "protocol": "http", "compression": "gzip"},
                "prometheus": {"enabled": True, "port": 65535},
                "azure_monitor": {"enabled": True, "connection_string": "InstrumentationKey=k"},
            },
            "resource_attributes": {"team": "x"},
        },
        {"exporters": {"azure_monitor": {"enabled": False}}},
    ],
)
def test_observability_accepted(data: dict[str, Any]) -> None:
    assert_landed(ObservabilityConfig.model_validate(data), data)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"traces": {"redaction_patterns": ["("]}}, "HD120"),
        ({"traces": {"max_queue_size": 10}}, "HD104"),
        ({"traces": {"sample_rate": 1.5}}, "less_than_equal"),
        ({"traces": {"schedule_delay_millis": 99}}, "greater_than_equal"),
        ({"traces": None}, "model_type"),
        ({"metrics": {"export_interval_ms": 999}}, "greater_than_equal"),
        ({"logs": {"level": "info"}}, "enum"),
        ({"exporters": {"azure_monitor": {"enabled": True}}}, "HD101"),
        ({"exporters": {"azure_monitor": {"enabled": True, "connection_string": ""}}}, "HD101"),
        ({"exporters": {"prometheus": {"port": 80}}}, "greater_than_equal"),
        ({"exporters": {"otlp": {"protocol": "udp"}}}, "enum"),
        ({"exporters": {"jaeger": {}}}, "extra_forbidden"),
    ],
)
def test_observability_rejected(data: dict[str, Any], code: str) -> None:
    assert code in _types(ObservabilityConfig, data)


def test_bad_redaction_pattern_is_located_on_the_item() -> None:
    (error,) = _errors(ObservabilityConfig, {"traces": {"redaction_patterns": ["ok", "["]}})
    assert error["loc"] == ("traces", "redaction_patterns", 1)


# --------------------------------------------------------------------------- deployment

REG = {"url": "ghcr.io", "repository": "org/agent"}
AWS = {"provider": "aws", "aws": {"region": "us-east-1"}}
SUB = "12345678-1234-1234-1234-123456789ABC"


@pytest.mark.parametrize(
    "data",
    [
        {"registry": REG, "target": AWS},
        {
            "registry": {**REG, "repository": "a", "tag_strategy": "custom", "custom_tag": "v1"},
            "target": {
                "provider": "gcp",
                "gcp": {"project_id": "my-proj-1", "memory": "1Gi", "concurrency": 1000},
            },
            "protocol": "ag-ui",
            "port": 65535,
            "environment": {"A": "1"},
        },
        {
            "registry": {**REG, "repository": "a.b_c/d-e"},
            "target": {
                "provider": "azure",
                "azure": {"subscription_id": SUB, "resource_group": "rg", "cpu": 0.25},
            },
        },
        {
            "registry": REG,
            "target": {
                "provider": "aws",
                "aws": {
                    "region": "r",
                    "ecr_role_arn": "arn:aws:iam::123456789012:role/x",
                    "auto_scaling_min": 5,
                    "auto_scaling_max": 5,
                    "cpu": 3,
                },
            },
        },
    ],
)
def test_deployment_accepted(data: dict[str, Any]) -> None:
    assert_landed(DeploymentConfig.model_validate(data), data)


@pytest.mark.parametrize(
    ("data", "code"),
    [
        ({"registry": {**REG, "repository": "Org/Agent"}, "target": AWS}, "HD108"),
        ({"registry": {**REG, "repository": "org/"}, "target": AWS}, "HD108"),
        ({"registry": {**REG, "tag_strategy": "custom"}, "target": AWS}, "HD101"),
        ({"registry": REG, "target": {"provider": "aws"}}, "HD101"),
        ({"registry": REG, "target": {**AWS, "gcp": {"project_id": "abcdef"}}}, "HD153"),
        ({"registry": REG, "target": {"provider": "gcp", "gcp": {"project_id": "abc"}}}, "HD108"),
        (
            {
                "registry": REG,
                "target": {"provider": "gcp", "gcp": {"project_id": "abcdef", "memory": "512M"}},
            },
            "HD108",
        ),
        (
            {
                "registry": REG,
                "target": {
                    "provider": "azure",
                    "azure": {"subscription_id": "nope", "resource_group": "g"},
                },
            },
            "HD108",
        ),
        (
            {
                "registry": REG,
                "target": {
                    "provider": "azure",
                    "azure": {"subscription_id": SUB, "resource_group": "g", "cpu": 3},
                },
            },
            "HD103",
        ),
        (
            {
                "registry": REG,
                "target": {"provider": "aws", "aws": {"region": "r", "auto_scaling_min": 6}},
            },
            "HD104",
        ),
        (
            {
                "registry": REG,
                "target": {
                    "provider": "aws",
                    "aws": {"region": "r", "ecr_role_arn": "arn:aws:iam::123:role/x"},
                },
            },
            "HD108",
        ),
        ({"registry": REG, "target": AWS, "port": 0}, "greater_than_equal"),
        ({"registry": REG}, "missing"),
        ({"registry": REG, "target": {"provider": "oci"}}, "enum"),
        ({"registry": REG, "target": AWS, "runtime": "lambda"}, "enum"),
    ],
)
def test_deployment_rejected(data: dict[str, Any], code: str) -> None:
    assert code in _types(DeploymentConfig, data)


def test_stray_cloud_block_is_pointed_at() -> None:
    # An invalid stray block fails its own validation first; a valid one reaches the check.
    errors = _errors(DeploymentConfig, {"registry": REG, "target": {**AWS, "azure": {"x": 1}}})
    assert all(e["loc"][:2] == ("target", "azure") for e in errors)
    gcp = {"project_id": "abcdef"}
    (error,) = _errors(DeploymentConfig, {"registry": REG, "target": {**AWS, "gcp": gcp}})
    assert error["ctx"] == {"at": "gcp"}


def test_assert_landed_fails_when_a_value_did_not_land() -> None:
    """The check the `*_accepted` tests rely on can fail: a value read back different from
    the one given (here a default standing in for it) is caught."""
    config = ClaudeConfig.model_validate({"web_search": True})
    with pytest.raises(AssertionError):
        assert_landed(config, {"web_search": False})
    with pytest.raises(AssertionError):
        assert_landed(config, {"no_such_field": 1})
