"""Cassettes: record what a backend answered, turn by turn (and what the LLM judges said
about it), and replay it without a network.

`format` is the file format (docs/cassettes.md, a stable contract), `recording` wraps a
live backend, `replay` answers from a file, `conversion` turns results back into a
cassette (re-grading) and makes reports comparable.
"""

from holodeck_lsp.runner.cassette.conversion import (
    VOLATILE_KEYS,
    comparable,
    judgements_of,
    transcript_of,
)
from holodeck_lsp.runner.cassette.format import (
    FORMAT,
    READABLE_VERSIONS,
    STALE_PREFIXES,
    VERSION,
    Cassette,
    CassetteCase,
    CassetteError,
    CassetteFormatError,
    CassetteJudgement,
    CassetteToolCall,
    CassetteTurn,
    CassetteUsage,
    cassette_usage,
    load_cassette,
)
from holodeck_lsp.runner.cassette.recording import RecordingBackend, RecordingSession
from holodeck_lsp.runner.cassette.replay import RecordedJudgements, ReplayBackend, ReplaySession

__all__ = [
    "FORMAT",
    "READABLE_VERSIONS",
    "STALE_PREFIXES",
    "VERSION",
    "VOLATILE_KEYS",
    "Cassette",
    "CassetteCase",
    "CassetteError",
    "CassetteFormatError",
    "CassetteJudgement",
    "CassetteToolCall",
    "CassetteTurn",
    "CassetteUsage",
    "RecordedJudgements",
    "RecordingBackend",
    "RecordingSession",
    "ReplayBackend",
    "ReplaySession",
    "cassette_usage",
    "comparable",
    "judgements_of",
    "load_cassette",
    "transcript_of",
]
