"""`tools:` — the tools an agent may call.

Each entry is a mapping whose `type:` key picks the model: `function`, `mcp`, `vectorstore`,
`prompt` or `hierarchical_document`. HoloDeck has no default type: an entry without `type:`, or
with any other value, is rejected, and so is every key the chosen type does not define.

Checks that need the file system (does `file:` exist, does `source:` exist, is the function
really defined in the module) are left to later layers; these models only look at the YAML.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Annotated, Any, Literal, Self

from pydantic import (
    BeforeValidator,
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    field_validator,
    model_validator,
)

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault, name_or_mapping
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.llm import LLMProvider

#: The accepted values of a tool's `type:` key, in the order the docs list them.
TOOL_TYPES: tuple[str, ...] = ("function", "mcp", "vectorstore", "prompt", "hierarchical_document")

_TOOL_NAME_PATTERN = r"^[0-9A-Za-z_]+$"
_SOURCE_SCHEMES: tuple[str, ...] = ("az", "file", "http", "https", "s3")


def _tag(tool_type: str) -> str:
    """Union tag of a tool type; angle brackets let the loader drop it from error paths."""
    return f"<{tool_type}>"


def _one_of(values: tuple[str, ...]) -> str:
    return ", ".join(values)


def _check_source_scheme(value: str) -> str:
    """A `source:` is a local path, or a URI with one of the schemes HoloDeck can fetch."""
    if "://" not in value:
        return value
    scheme = value.split("://", 1)[0].lower()
    if scheme not in _SOURCE_SCHEMES:
        raise fault(
            Code.INVALID_VALUE,
            f"unsupported URI scheme '{scheme}://' in source; use a local path or a "
            f"{', '.join(s + '://' for s in _SOURCE_SCHEMES)} URI",
        )
    return value


# --------------------------------------------------------------------------- enums


class TransportType(StrEnum):
    """How HoloDeck talks to an MCP server."""

    STDIO = "stdio"
    SSE = "sse"
    WEBSOCKET = "websocket"
    HTTP = "http"


class CommandType(StrEnum):
    """Launchers allowed for a stdio MCP server (nothing else may be spawned)."""

    NPX = "npx"
    NODE = "node"
    UVX = "uvx"
    DOCKER = "docker"


class SearchMode(StrEnum):
    """Which indexes a hierarchical_document search consults."""

    SEMANTIC = "semantic"
    KEYWORD = "keyword"
    HYBRID = "hybrid"


class ChunkingStrategy(StrEnum):
    """How a hierarchical_document source is cut into chunks."""

    STRUCTURE = "structure"
    TOKEN = "token"


class DocumentDomain(StrEnum):
    """Numbering conventions used to spot implicit sub-headings in a document."""

    NONE = "none"
    US_LEGISLATIVE = "us_legislative"
    AU_LEGISLATIVE = "au_legislative"
    ACADEMIC = "academic"
    TECHNICAL = "technical"
    LEGAL_CONTRACT = "legal_contract"


DatabaseProvider = Literal[
    "postgres",
    "azure-ai-search",
    "qdrant",
    "weaviate",
    "chromadb",
    "faiss",
    "azure-cosmos-mongo",
    "azure-cosmos-nosql",
    "sql-server",
    "pinecone",
    "in-memory",
]


# --------------------------------------------------------------------------- storage


class DatabaseConfig(StrictModel):
    """Where a retrieval tool keeps its vectors. Besides the keys below, any provider-specific
    key (url, api_key, index_name, path, host, ...) is passed through to the store unchecked."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    provider: DatabaseProvider = Field(
        description="Vector store backend: `postgres`, `azure-ai-search`, `qdrant`, "
        "`weaviate`, `chromadb`, `faiss`, `azure-cosmos-mongo`, `azure-cosmos-nosql`, "
        "`sql-server`, `pinecone` or `in-memory`. Required."
    )
    connection_string: SecretStr | None = Field(
        default=None,
        description="Connection string or service URL for the store; its form depends on "
        "the provider. Optional, but must not be blank when given. Prefer a `${ENV_VAR}` "
        "reference to a literal secret.",
    )

    @field_validator("connection_string")
    @classmethod
    def _connection_string_not_blank(cls, value: SecretStr | None) -> SecretStr | None:
        if value is not None and not value.get_secret_value().strip():
            raise fault(
                Code.BLANK_STRING,
                "connection_string is blank; give the store's connection string or remove the key",
            )
        return value


#: `database:` — an inline store definition, or the name of one declared in config.yaml.
DatabaseRef = Annotated[
    Annotated[DatabaseConfig, Tag("<mapping>")] | Annotated[str, Tag("<name>")],
    Discriminator(
        name_or_mapping,
        custom_error_type=Code.WRONG_TYPE.value,
        custom_error_message="database must be a mapping with a `provider:` key, or the name "
        "of a vectorstore declared in config.yaml",
    ),
]


class KeywordIndexConfig(StrictModel):
    """Backend of the keyword (BM25) index of a hierarchical_document tool. Extra keys are
    passed to the backend unchecked."""

    model_config = ConfigDict(extra="allow", populate_by_name=True)

    provider: Literal["in-memory", "opensearch"] = Field(
        default="in-memory",
        description="`in-memory` builds the index inside the process; `opensearch` uses an "
        "OpenSearch cluster (then `endpoint` and `index_name` are required). Default "
        "`in-memory`.",
    )
    endpoint: str | None = Field(
        default=None, description="OpenSearch URL. Required when provider is `opensearch`."
    )
    index_name: str | None = Field(
        default=None, description="OpenSearch index to use. Required when provider is `opensearch`."
    )
    username: str | None = Field(default=None, description="User name for HTTP basic auth.")
    password: SecretStr | None = Field(
        default=None, description="Password for HTTP basic auth; prefer a `${ENV_VAR}` reference."
    )
    api_key: SecretStr | None = Field(
        default=None,
        description="API key, an alternative to username/password; prefer a `${ENV_VAR}` "
        "reference.",
    )
    verify_certs: bool = Field(
        default=True, description="Check the server's TLS certificate. Default true."
    )
    timeout_seconds: int = Field(
        default=10, ge=1, le=120, description="Connection timeout in seconds, 1–120. Default 10."
    )

    @model_validator(mode="after")
    def _opensearch_needs_location(self) -> Self:
        if self.provider == "opensearch":
            for key in ("endpoint", "index_name"):
                if not getattr(self, key):
                    raise fault(
                        Code.MISSING_FIELD,
                        f"provider opensearch needs `{key}:`; add it or use provider in-memory",
                        at="provider",
                    )
        return self


# --------------------------------------------------------------------------- tools


class _ToolBase(StrictModel):
    """Keys every tool type has."""

    name: str = Field(
        pattern=_TOOL_NAME_PATTERN,
        description="Name the model calls the tool by: letters, digits and underscores only. "
        "Required; must be unique among the agent's tools.",
    )
    description: str = Field(
        description="What the tool does, shown to the model so it can decide when to call "
        "it. Required."
    )
    defer_loading: bool = Field(
        default=True,
        description="When true the tool is left out of the initial context and found on "
        "demand by tool search; set false for tools the agent must always see. Default true.",
    )


class FunctionTool(_ToolBase):
    """A Python function the agent can call."""

    type: Literal["function"] = Field(
        default="function", description="`function`: call a Python function from a local file."
    )
    file: NonBlankStr = Field(
        description="Python file defining the function, relative to the agent.yaml "
        "directory. Required."
    )
    function: NonBlankStr = Field(description="Name of the function in `file`. Required.")
    parameters: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="Parameter schema: a mapping of parameter name to its JSON-schema-like "
        "definition (type, description, ...). Optional.",
    )


class MCPTool(_ToolBase):
    """A Model Context Protocol server whose tools (and prompts) the agent can use."""

    type: Literal["mcp"] = Field(
        default="mcp", description="`mcp`: connect to a Model Context Protocol server."
    )
    transport: TransportType = Field(
        default=TransportType.STDIO,
        description="`stdio` (spawn a local process; needs `command`), `sse`, `websocket` or "
        "`http` (connect to `url`). Default `stdio`.",
    )
    command: CommandType | None = Field(
        default=None,
        description="Launcher for a stdio server: `npx`, `node`, `uvx` or `docker` (nothing "
        "else is allowed). Required when transport is stdio.",
    )
    args: list[str] | None = Field(
        default=None, description="Arguments passed to `command`, e.g. the server package."
    )
    env: dict[str, str] | None = Field(
        default=None, description="Extra environment variables for the server process."
    )
    env_file: str | None = Field(
        default=None, description="A .env file whose variables are given to the server process."
    )
    encoding: str | None = Field(
        default=None, description="Text encoding of the stdio streams. Default utf-8."
    )
    url: str | None = Field(
        default=None,
        description="Server URL for sse/websocket/http transports (required for those). Must "
        "be https://, wss:// or ws://; plain http:// only for localhost, 127.0.0.1 or [::1].",
    )
    headers: dict[str, str] | None = Field(
        default=None, description="HTTP headers sent with every request, e.g. authorization."
    )
    timeout: float | None = Field(
        default=None, description="Connection timeout in seconds for network transports."
    )
    sse_read_timeout: float | None = Field(
        default=None, description="How long, in seconds, to wait for the next SSE event."
    )
    terminate_on_close: bool | None = Field(
        default=None, description="Ask the http server to end the session when closing."
    )
    config: dict[str, Any] | None = Field(
        default=None, description="Server-specific settings passed through unchecked."
    )
    load_tools: bool = Field(
        default=True, description="Offer the server's tools to the agent. Default true."
    )
    load_prompts: bool = Field(
        default=True, description="Load the server's prompt templates. Default true."
    )
    request_timeout: int = Field(
        default=60, gt=0, description="Timeout for each server call in seconds (> 0). Default 60."
    )
    is_retrieval: bool = Field(
        default=False,
        description="Treat this server's results as retrieved context for RAG metrics "
        "(faithfulness, contextual relevancy/precision/recall). Default false.",
    )
    registry_name: str | None = Field(
        default=None,
        description="Reverse-DNS name of the server in the MCP registry (e.g. "
        "`io.github.user/server`), recorded when it was added from the registry.",
    )

    @field_validator("url")
    @classmethod
    def _url_scheme(cls, value: str | None) -> str | None:
        if value is None:
            return value
        if value.startswith("http://"):
            if not value.startswith(("http://localhost", "http://127.0.0.1", "http://[::1]")):
                raise fault(
                    Code.INVALID_VALUE,
                    "plain http:// is only allowed for localhost; use https:// for a remote server",
                )
        elif not value.startswith(("https://", "wss://", "ws://")):
            raise fault(
                Code.INVALID_VALUE,
                "url must start with https://, wss:// or ws:// (or http://localhost)",
            )
        return value

    @model_validator(mode="after")
    def _transport_needs_endpoint(self) -> Self:
        at = "transport" if "transport" in self.model_fields_set else None
        if self.transport is TransportType.STDIO and self.command is None:
            raise fault(
                Code.MISSING_FIELD,
                "a stdio MCP server needs `command:` (npx, node, uvx or docker)",
                at=at,
            )
        if self.transport is not TransportType.STDIO and self.url is None:
            raise fault(
                Code.MISSING_FIELD,
                f"transport {self.transport.value} needs `url:` (the server address)",
                at=at,
            )
        return self


class VectorstoreTool(_ToolBase):
    """Semantic search over documents or structured records."""

    type: Literal["vectorstore"] = Field(
        default="vectorstore", description="`vectorstore`: semantic search over a data source."
    )
    source: NonBlankStr = Field(
        description="File or directory to index, relative to agent.yaml, or an s3://, az://, "
        "https://, http:// or file:// URI. Required."
    )
    vector_field: str | list[str] | None = Field(
        default=None,
        description="For structured data (CSV/JSON): the field, or list of fields, whose text "
        "is embedded. Setting it requires `id_field`.",
    )
    meta_fields: list[str] | None = Field(
        default=None, description="Record fields returned alongside each hit as metadata."
    )
    chunk_size: int | None = Field(
        default=None, gt=0, description="Size of the text chunks documents are split into (> 0)."
    )
    chunk_overlap: int | None = Field(
        default=None, ge=0, description="How much consecutive chunks overlap (≥ 0)."
    )
    embedding_model: str | None = Field(
        default=None, description="Embedding model name; defaults to the provider's default."
    )
    embedding_dimensions: int | None = Field(
        default=None,
        gt=0,
        le=10000,
        description="Length of the embedding vectors, 1–10000; detected from the model when "
        "omitted.",
    )
    database: DatabaseRef | None = Field(
        default=None,
        description="Vector store: a mapping with `provider:` and connection keys, the name of "
        "a vectorstore declared in config.yaml, or omitted for an in-memory store.",
    )
    top_k: int = Field(
        default=5, gt=0, le=100, description="How many results a search returns, 1–100. Default 5."
    )
    min_similarity_score: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="Drop results scoring below this similarity, 0.0–1.0. Optional.",
    )
    record_path: str | None = Field(
        default=None, description="In a JSON source, the path to the array holding the records."
    )
    record_prefix: str | None = Field(
        default=None, description="Prefix added to record field names when flattening JSON."
    )
    meta_prefix: str | None = Field(
        default=None, description="Prefix added to metadata field names when flattening JSON."
    )
    id_field: str | None = Field(
        default=None,
        description="Field holding each record's unique id; required whenever `vector_field` "
        "is set.",
    )
    field_separator: str = Field(
        default="\n",
        description="String placed between the values when `vector_field` lists several "
        "fields. Default a newline.",
    )
    delimiter: str | None = Field(
        default=None, description="CSV column delimiter; detected automatically when omitted."
    )

    @field_validator("source")
    @classmethod
    def _source_scheme(cls, value: str) -> str:
        return _check_source_scheme(value)

    @field_validator("database")
    @classmethod
    def _database_name_not_blank(cls, value: DatabaseConfig | str | None) -> Any:
        if isinstance(value, str) and not value.strip():
            raise fault(
                Code.BLANK_STRING,
                "database name is blank; name a vectorstore from config.yaml, give a mapping "
                "with `provider:`, or remove the key",
            )
        return value

    @model_validator(mode="after")
    def _structured_needs_id(self) -> Self:
        if self.vector_field is not None and self.id_field is None:
            raise fault(
                Code.MISSING_FIELD,
                "`vector_field` switches to structured-data mode, which needs `id_field:` "
                "(the field with each record's unique id)",
                at="vector_field",
            )
        return self


class PromptTool(_ToolBase):
    """A tool answered by the LLM from a prompt template."""

    type: Literal["prompt"] = Field(
        default="prompt", description="`prompt`: a tool implemented by an LLM prompt template."
    )
    template: str | None = Field(
        default=None,
        description="The prompt template, inline. Give exactly one of `template` and `file`.",
    )
    file: str | None = Field(
        default=None,
        description="File holding the prompt template, relative to agent.yaml. Give exactly "
        "one of `template` and `file`.",
    )
    parameters: dict[str, dict[str, Any]] = Field(
        min_length=1,
        description="The tool's parameters: a mapping of name to definition (type, "
        "description, ...). Required, with at least one entry.",
    )
    model: dict[str, Any] | None = Field(
        default=None, description="Model settings overriding the agent's `model:` for this tool."
    )

    @field_validator("template", "file")
    @classmethod
    def _not_blank_if_given(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise fault(Code.BLANK_STRING, "must not be blank; fill it in or remove the key")
        return value

    @model_validator(mode="after")
    def _template_xor_file(self) -> Self:
        if self.template and self.file:
            raise fault(
                Code.EXCLUSIVE_FIELDS,
                "give either `template:` or `file:`, not both",
                at="file",
            )
        if not self.template and not self.file:
            raise fault(
                Code.EXCLUSIVE_FIELDS,
                "a prompt tool needs its prompt: add `template:` (inline) or `file:` (a path)",
            )
        return self


class HierarchicalDocumentTool(_ToolBase):
    """Structure-aware search over documents (headings, sections, definitions)."""

    type: Literal["hierarchical_document"] = Field(
        default="hierarchical_document",
        description="`hierarchical_document`: structure-aware hybrid search over documents.",
    )
    source: NonBlankStr = Field(
        description="Document, directory or glob to index, relative to agent.yaml, or an "
        "s3://, az://, https://, http:// or file:// URI. Required."
    )
    chunking_strategy: ChunkingStrategy = Field(
        default=ChunkingStrategy.STRUCTURE,
        description="`structure` splits at headings; `token` cuts fixed-size token windows. "
        "Default `structure`.",
    )
    max_chunk_tokens: int = Field(
        default=800, ge=100, le=2000, description="Largest chunk in tokens, 100–2000. Default 800."
    )
    chunk_overlap: int = Field(
        default=50, ge=0, le=200, description="Tokens shared by adjacent chunks, 0–200. Default 50."
    )
    document_domain: DocumentDomain = Field(
        default=DocumentDomain.NONE,
        description="Numbering style used to recognise implicit sub-headings such as (a), "
        "(1) or Step 1: `none`, `us_legislative`, `au_legislative`, `academic`, `technical` "
        "or `legal_contract`. Default `none`.",
    )
    max_subsection_depth: int | None = Field(
        default=None,
        ge=1,
        description="Deepest sub-heading level to recognise (≥ 1); all levels of the domain "
        "when omitted.",
    )
    search_mode: SearchMode = Field(
        default=SearchMode.HYBRID,
        description="`semantic` (embeddings), `keyword` (BM25) or `hybrid` (both, fused). "
        "Default `hybrid`.",
    )
    top_k: int = Field(
        default=10, ge=1, le=100, description="How many results to return, 1–100. Default 10."
    )
    min_score: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Drop results scoring below this, 0.0–1.0."
    )
    semantic_weight: float = Field(
        default=0.5,
        ge=0.0,
        le=1.0,
        description="Share of the semantic ranking in hybrid mode, 0.0–1.0. Default 0.5. In "
        "hybrid mode the three weights must add up to 1.",
    )
    keyword_weight: float = Field(
        default=0.3,
        ge=0.0,
        le=1.0,
        description="Share of the keyword ranking in hybrid mode, 0.0–1.0. Default 0.3.",
    )
    exact_weight: float = Field(
        default=0.2,
        ge=0.0,
        le=1.0,
        description="Share of exact matches in hybrid mode, 0.0–1.0. Default 0.2.",
    )
    rrf_k: int = Field(
        default=60,
        ge=1,
        description="Reciprocal-rank-fusion constant (≥ 1); larger values flatten the "
        "advantage of top-ranked hits. Default 60.",
    )
    contextual_embeddings: bool = Field(
        default=True,
        description="Prefix each chunk with a short summary of where it sits in the document "
        "before embedding it. Default true.",
    )
    context_max_tokens: int = Field(
        default=100,
        ge=50,
        le=200,
        description="Length of that summary in tokens, 50–200. Default 100.",
    )
    context_concurrency: int = Field(
        default=10,
        ge=1,
        le=50,
        description="How many summaries are generated in parallel, 1–50. Default 10.",
    )
    extract_definitions: bool = Field(
        default=True, description="Find and index defined terms. Default true."
    )
    extract_cross_references: bool = Field(
        default=True, description="Find and resolve references between sections. Default true."
    )
    enable_reranking: bool = Field(
        default=False,
        description="Re-order results with an LLM; needs `reranker_model`. Default false.",
    )
    reranker_model: LLMProvider | None = Field(
        default=None, description="Model that re-ranks results; required with enable_reranking."
    )
    context_model: LLMProvider | None = Field(
        default=None, description="Model that writes the contextual summaries. Optional."
    )
    embedding_model: str | None = Field(
        default=None, description="Embedding model name; defaults to the provider's default."
    )
    database: DatabaseRef | None = Field(
        default=None,
        description="Vector store: a mapping with `provider:` and connection keys, the name of "
        "a vectorstore declared in config.yaml, or omitted for an in-memory store.",
    )
    keyword_index: KeywordIndexConfig | None = Field(
        default=None, description="Keyword index backend; in-memory BM25 when omitted."
    )

    @field_validator("source")
    @classmethod
    def _source_scheme(cls, value: str) -> str:
        return _check_source_scheme(value)

    @model_validator(mode="after")
    def _hybrid_weights(self) -> Self:
        if self.search_mode is not SearchMode.HYBRID:
            return self
        weights = ("semantic_weight", "keyword_weight", "exact_weight")
        explicit = [w for w in weights if w in self.model_fields_set]
        at = explicit[0] if explicit else None
        total = self.semantic_weight + self.keyword_weight + self.exact_weight
        if not math.isclose(total, 1.0, rel_tol=0.0, abs_tol=1e-6):
            raise fault(
                Code.INVALID_VALUE,
                f"in hybrid search semantic_weight + keyword_weight + exact_weight must add "
                f"up to 1.0, but they add up to {total:g}",
                at=at,
            )
        if self.semantic_weight + self.keyword_weight <= 0:
            raise fault(
                Code.INVALID_VALUE,
                "hybrid search needs a positive semantic_weight or keyword_weight; use "
                "search_mode keyword or semantic for a single index",
                at=at,
            )
        return self

    @model_validator(mode="after")
    def _reranking_needs_model(self) -> Self:
        if self.enable_reranking and self.reranker_model is None:
            raise fault(
                Code.MISSING_FIELD,
                "enable_reranking needs `reranker_model:` (the LLM that re-orders results)",
                at="enable_reranking",
            )
        return self


#: Model class of each tool type.
TOOL_MODELS: dict[str, type[_ToolBase]] = {
    "function": FunctionTool,
    "mcp": MCPTool,
    "vectorstore": VectorstoreTool,
    "prompt": PromptTool,
    "hierarchical_document": HierarchicalDocumentTool,
}

_TYPE_LIST = _one_of(TOOL_TYPES)


def _check_tool_type(value: Any) -> Any:
    """Give a precise diagnostic before the union dispatches on `type:`."""
    if isinstance(value, _ToolBase):
        return value
    if not isinstance(value, dict):
        raise fault(
            Code.WRONG_TYPE,
            f"a tool must be a mapping with a `type:` key ({_TYPE_LIST})",
        )
    if "type" not in value:
        raise fault(
            Code.MISSING_FIELD,
            f"tool has no `type:`; add one of: {_TYPE_LIST}",
        )
    tool_type = value["type"]
    if not isinstance(tool_type, str) or tool_type not in TOOL_TYPES:
        shown = "empty" if tool_type is None else repr(tool_type)
        raise fault(
            Code.INVALID_CHOICE,
            f"tool type {shown} is not known; use one of: {_TYPE_LIST}",
            at="type",
        )
    return value


def _tool_tag(value: Any) -> str | None:
    tool_type = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if isinstance(tool_type, str) and tool_type in TOOL_TYPES:
        return _tag(tool_type)
    return None


#: One entry of `tools:`, dispatched on its `type:` key.
ToolUnion = Annotated[
    Annotated[FunctionTool, Tag("<function>")]
    | Annotated[MCPTool, Tag("<mcp>")]
    | Annotated[VectorstoreTool, Tag("<vectorstore>")]
    | Annotated[PromptTool, Tag("<prompt>")]
    | Annotated[HierarchicalDocumentTool, Tag("<hierarchical_document>")],
    Discriminator(
        _tool_tag,
        custom_error_type=Code.INVALID_CHOICE.value,
        custom_error_message=f"tool `type:` must be one of: {_TYPE_LIST}",
    ),
    BeforeValidator(_check_tool_type),
]

#: Any tool model.
Tool = FunctionTool | MCPTool | VectorstoreTool | PromptTool | HierarchicalDocumentTool
