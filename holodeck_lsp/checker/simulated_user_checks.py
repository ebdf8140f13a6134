"""Checks of `simulated_user:` beyond its schema, on the raw data so they show while other
parts of the file are invalid (docs/simulated-users.md):

- HD160 on every `simulated_user` key: upstream HoloDeck cannot load it. A warning, or an
  error when holodeck-lsp.yaml sets `upstream_loadable: true` (config/upstream_setting.py);
- HD104 on an `at_turn` entry's `turn` the conversation can never reach (beyond the scripted
  turns plus `max_turns`), HD106 on a second entry for the same turn.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path as FsPath
from typing import Any

from holodeck_lsp.checker.checked_source import CheckedSource, Path
from holodeck_lsp.checker.data_walk import iter_cases
from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.upstream_setting import UpstreamSetting, upstream_setting
from holodeck_lsp.checker.yaml_document import node_range
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.simulated_user import DEFAULT_MAX_TURNS


def check_simulated_users(
    sources: Sequence[CheckedSource], agent_dir: FsPath, home: FsPath | None
) -> tuple[list[Diagnostic], UpstreamSetting | None]:
    """The diagnostics, and the setting read (None when no case has a simulated user, so a
    suite without one never reads holodeck-lsp.yaml for it)."""
    found = [
        (source, path, case)
        for source in sources
        for path, case in iter_cases(source.data)
        if path[: len(source.prefix)] == source.prefix and "simulated_user" in case
    ]
    if not found:
        return [], None
    setting = upstream_setting(agent_dir, home)
    diagnostics: list[Diagnostic] = []
    for source, path, case in found:
        diagnostics.append(_extends_upstream(source, path, setting))
        simulated = case.get("simulated_user")
        if isinstance(simulated, dict):
            diagnostics.extend(_unreachable_turns(source, path, case, simulated))
    return diagnostics, setting


def _extends_upstream(source: CheckedSource, path: Path, setting: UpstreamSetting) -> Diagnostic:
    where = source.key_range(path, "simulated_user")
    if setting.required:
        where_set = setting.source.name if setting.source is not None else "holodeck-lsp.yaml"
        message = (
            f"`simulated_user` cannot be loaded by upstream HoloDeck, and {where_set} sets "
            "`upstream_loadable: true`: move this case to an agent file that need not stay "
            "upstream-loadable, or remove the setting"
        )
        return source.diagnostic(path, where, Code.EXTENDS_UPSTREAM, message, Severity.ERROR)
    message = (
        "`simulated_user` extends upstream HoloDeck, which rejects the key: only holodeck-lsp "
        "runs this case (set `upstream_loadable: true` in holodeck-lsp.yaml to make this an "
        "error)"
    )
    if setting.problem is not None:
        message += f"; {setting.problem}"
    return source.diagnostic(path, where, Code.EXTENDS_UPSTREAM, message, Severity.WARNING)


def _unreachable_turns(
    source: CheckedSource, path: Path, case: dict[str, Any], simulated: dict[str, Any]
) -> Iterator[Diagnostic]:
    turns = case.get("turns")
    scripted = len(turns) if isinstance(turns, list) else 0
    limit = simulated.get("max_turns", DEFAULT_MAX_TURNS)
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        return  # the schema reports the limit itself
    reachable = scripted + limit
    checks = simulated.get("at_turn")
    if not isinstance(checks, list):
        return
    first_at: dict[int, int] = {}
    for index, entry in enumerate(checks):
        turn = entry.get("turn") if isinstance(entry, dict) else None
        if isinstance(turn, bool) or not isinstance(turn, int):
            continue
        entry_path = (*path, "simulated_user", "at_turn", index, "turn")
        where = node_range(source.locate(entry_path).node)
        if turn > reachable:
            message = (
                f"the conversation has at most {reachable} agent turns ({scripted} scripted + "
                f"max_turns {limit}), so turn {turn} is never reached: lower `turn` or raise "
                "`max_turns`"
            )
            yield source.diagnostic(entry_path, where, Code.OUT_OF_RANGE, message, Severity.ERROR)
        if turn in first_at:
            message = (
                f"checks of turn {turn} are given twice (at_turn[{first_at[turn]}] too); merge the "
                "two entries"
            )
            yield source.diagnostic(entry_path, where, Code.INVALID_VALUE, message, Severity.ERROR)
        first_at.setdefault(turn, index)
