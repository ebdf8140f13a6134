"""`execution:` — how test runs are carried out (timeouts, caching, output, parallelism)."""

from __future__ import annotations

from pydantic import Field

from holodeck_lsp.schema.base import StrictModel


class ExecutionConfig(StrictModel):
    """Run settings; each may also come from CLI flags or the environment."""

    llm_timeout: int | None = Field(
        default=None, description="Seconds one agent call (one turn) may take."
    )
    file_timeout: int | None = Field(default=None, description="Seconds to process one input file.")
    download_timeout: int | None = Field(
        default=None, description="Seconds to download one remote file."
    )
    cache_enabled: bool | None = Field(default=None, description="Cache downloaded files.")
    cache_dir: str | None = Field(default=None, description="Where cached files go.")
    verbose: bool | None = Field(default=None, description="Print detailed progress.")
    quiet: bool | None = Field(default=None, description="Print only the summary.")
    parallel_test_cases: int | None = Field(
        default=None,
        ge=1,
        description="How many test cases run at once (turns of one case are always "
        "sequential). Resolved CLI > YAML > HOLODECK_PARALLEL_TEST_CASES > 1.",
    )
