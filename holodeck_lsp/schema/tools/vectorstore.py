"""`type: vectorstore` — semantic search over documents or structured records."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import NonBlankStr, fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.tools.base import ToolBase, check_source_scheme
from holodeck_lsp.schema.tools.catalogue import tool_type_doc
from holodeck_lsp.schema.tools.storage import DatabaseConfig, DatabaseRef


class VectorstoreTool(ToolBase):
    """Semantic search over documents or structured records."""

    type: Literal["vectorstore"] = Field(
        default="vectorstore",
        description=tool_type_doc("vectorstore"),
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
        return check_source_scheme(value)

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
