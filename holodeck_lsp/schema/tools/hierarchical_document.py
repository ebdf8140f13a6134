"""`type: hierarchical_document` — structure-aware hybrid search over documents: chunking,
numbering domains, search modes and their weights."""

from __future__ import annotations

import math
from enum import StrEnum
from typing import Literal, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import NonBlankStr, fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.tools.base import ToolBase, check_source_scheme
from holodeck_lsp.schema.tools.catalogue import tool_type_doc
from holodeck_lsp.schema.tools.storage import DatabaseRef, KeywordIndexConfig


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


class HierarchicalDocumentTool(ToolBase):
    """Structure-aware search over documents (headings, sections, definitions)."""

    type: Literal["hierarchical_document"] = Field(
        default="hierarchical_document",
        description=tool_type_doc("hierarchical_document"),
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
        return check_source_scheme(value)

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
