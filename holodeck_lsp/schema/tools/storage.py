"""Where the retrieval tools keep their data: the vector store (`database:`) and the keyword
index of a hierarchical_document tool."""

from __future__ import annotations

from typing import Annotated, Literal, Self

from pydantic import (
    ConfigDict,
    Discriminator,
    Field,
    SecretStr,
    Tag,
    field_validator,
    model_validator,
)

from holodeck_lsp.schema.base import StrictModel, fault, name_or_mapping
from holodeck_lsp.schema.codes import Code

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
