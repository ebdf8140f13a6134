"""A `Comparison` for people and programs: text for the terminal (coloured through a Palette),
Markdown for a pull-request comment, JSON (the model itself, read back by
`Comparison.model_validate_json`).

Both human forms use one order — notes first (they change how the rest reads), then
regressions, fixes, new reasons, score moves, and the turns that could not be compared
(edited, added, removed, not run) — and end with the counts, because CI logs are read from
the end.
"""

from __future__ import annotations

from holodeck_lsp.engine.time_text import shown_time
from holodeck_lsp.reports.run.comparison_figures import statistics_lines
from holodeck_lsp.reports.run.markdown import _text as markdown_text
from holodeck_lsp.reports.run.view import number
from holodeck_lsp.schema.comparison import ChangeKind, Comparison, RunRef, SideOfTurn, TurnChange
from holodeck_lsp.terminal import PLAIN, Palette

#: (kind, heading, singular noun for the counts line, plural)
GROUPS: tuple[tuple[ChangeKind, str, str, str], ...] = (
    ("regression", "Regressions", "regression", "regressions"),
    ("fix", "Fixes", "fix", "fixes"),
    ("new_reason", "Still failing, for a different reason", "new reason", "new reasons"),
    ("score", "Score changes", "score change", "score changes"),
    ("edited", "Edited turns, not compared", "edited", "edited"),
    ("added", "Added", "added", "added"),
    ("removed", "Removed", "removed", "removed"),
    ("not_run", "Not run in head", "not run", "not run"),
)
_STYLE: dict[ChangeKind, tuple[str, ...]] = {
    "regression": ("red", "bold"),
    "fix": ("green", "bold"),
    "new_reason": ("yellow",),
    "score": ("blue",),
}
_INPUT_SHOWN = 80


def render_json(comparison: Comparison) -> str:
    return comparison.model_dump_json(indent=2) + "\n"


def counts_line(comparison: Comparison) -> str:
    parts = []
    for kind, _, one, many in GROUPS:
        found = len(comparison.of_kind(kind))
        if found or kind in ("regression", "fix"):
            parts.append(f"{found} {one if found == 1 else many}")
            flaky = sum(change.flaky for change in comparison.of_kind(kind))
            if flaky:
                parts[-1] += f" ({flaky} flaky, not counted)"
    unchanged = comparison.unchanged_passing + comparison.unchanged_failing
    return (
        ", ".join(parts)
        + f"; {unchanged} unchanged ({comparison.unchanged_passing} passing, "
        + f"{comparison.unchanged_failing} failing)"
    )


# -- text ------------------------------------------------------------------------------------


def render_text(comparison: Comparison, palette: Palette = PLAIN) -> str:
    lines = [
        f"base: {_ref(comparison.base)}",
        f"head: {_ref(comparison.head)}",
    ]
    lines += [palette.paint(f"note: {note}", "yellow") for note in comparison.notes]
    lines += statistics_lines(comparison)
    for kind, heading, _, _ in GROUPS:
        found = comparison.of_kind(kind)
        if not found:
            continue
        lines += ["", palette.paint(f"{heading} ({len(found)})", *_STYLE.get(kind, ("bold",)))]
        for change in found:
            lines.append(f"  {_where(change)}  {_quoted(change.input)}")
            lines += [f"      {detail}" for detail in _details(change)]
    lines += ["", _painted_counts(comparison, palette)]
    return "\n".join(lines) + "\n"


def _painted_counts(comparison: Comparison, palette: Palette) -> str:
    line = counts_line(comparison)
    return palette.paint(line, "red", "bold") if comparison.has_regressions else line


# -- Markdown --------------------------------------------------------------------------------


def render_markdown(comparison: Comparison) -> str:
    verdict = "❌ regressions" if comparison.has_regressions else "✅ no regressions"
    lines = [
        f"## Run comparison: {verdict}",
        "",
        f"- **Base:** {markdown_text(_ref(comparison.base))}",
        f"- **Head:** {markdown_text(_ref(comparison.head))}",
        "",
    ]
    if comparison.notes:
        lines += [f"> **Note:** {markdown_text(note)}" for note in comparison.notes]
        lines.append("")
    stated = [line for line in statistics_lines(comparison) if line]
    if stated:
        lines += ["### Statistics", ""] + [f"- {markdown_text(line)}" for line in stated]
        lines.append("")
    for kind, heading, _, _ in GROUPS:
        found = comparison.of_kind(kind)
        if not found:
            continue
        lines += [f"### {heading} ({len(found)})", "", "| Turn | Input | What changed |"]
        lines.append("| --- | --- | --- |")
        for change in found:
            cells = (
                _where(change),
                _short(change.input),
                "; ".join(_details(change)) or "—",
            )
            lines.append("| " + " | ".join(markdown_text(cell) for cell in cells) + " |")
        lines.append("")
    lines.append(f"**{markdown_text(counts_line(comparison))}**")
    return "\n".join(lines) + "\n"


# -- shared pieces ---------------------------------------------------------------------------


def _ref(ref: RunRef) -> str:
    what = ref.run_id or ref.report_path or ref.label
    # A label already naming the run ("latest run 20261202-…") is not followed by it again.
    parts = [ref.label if what in ref.label else f"{ref.label} ({what})"]
    if ref.models:
        parts.append(", ".join(ref.models))
    if ref.started:
        parts.append(shown_time(ref.started))
    if ref.interrupted:
        parts.append("interrupted")
    return " — ".join(parts)


def _where(change: TurnChange) -> str:
    model = f" [{change.model}]" if change.model else ""
    flaky = " (flaky: not counted)" if change.flaky else ""
    return f"{change.case} turn {change.turn_index}{model}{flaky}"


def _short(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _INPUT_SHOWN else flat[: _INPUT_SHOWN - 1] + "…"


def _quoted(text: str) -> str:
    return f'"{_short(text)}"' if text else ""


def _verdict(side: SideOfTurn) -> str:
    if side.runs == 0:
        return "not run"
    if side.runs > 1:
        return f"{side.passes}/{side.runs}"
    return "passed" if side.passes else "failed"


def _details(change: TurnChange) -> list[str]:
    base, head = change.base, change.head
    lines: list[str] = []
    if change.kind in ("regression", "fix", "new_reason", "score") and base and head:
        lines.append(f"{_verdict(base)} → {_verdict(head)}")
        if change.kind == "regression" and head.reason:
            lines.append(f"now: {head.reason}")
        elif change.kind == "fix" and base.reason:
            lines.append(f"was: {base.reason}")
        elif change.kind == "new_reason":
            lines.append(f"was: {base.reason}")
            lines.append(f"now: {head.reason}")
    elif change.kind == "edited" and base and head:
        lines.append(
            f"input changed ({base.input_hash} → {head.input_hash}); head: {_verdict(head)}"
        )
    elif change.kind == "added" and head:
        lines.append(f"head: {_verdict(head)}" + (f" ({head.reason})" if head.reason else ""))
    elif change.kind == "removed" and base:
        lines.append(f"base: {_verdict(base)}")
    elif change.kind == "not_run" and base and head:
        lines.append(f"base: {_verdict(base)}; head: {head.reason or 'never sent'}")
    for delta in change.metric_deltas:
        moved = delta.delta
        if delta.base_score is None or delta.head_score is None or moved is None:
            continue
        lines.append(
            f"{delta.metric_name}: {number(delta.base_score)} → {number(delta.head_score)} "
            f"({'+' if moved >= 0 else '−'}{number(abs(moved))})"
        )
    return lines
