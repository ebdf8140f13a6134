"""Which models and how many repeats `holodeck-lsp run` asks for: `--model` (given several
times), else the `models:` list of holodeck-lsp.yaml (settings/models_config), else the agent's
own model; and the combinations with `--record` / `--replay` that cannot work, refused before
anything starts with what to do instead.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.runner.models.model_matrix import ModelRef, ModelSpecError, parse_models
from holodeck_lsp.settings.models_config import ModelsConfigError, configured_models


class RunModelsError(ValueError):
    """Bad `--model` / `--repeat` / `models:` input; the message leads with the cause."""


@dataclass(frozen=True, slots=True)
class RunModels:
    models: tuple[ModelRef, ...] = ()
    repeat: int = 1
    #: Where the models came from, for the first line (`--model`, or the config file).
    source: str | None = None


def resolve_run_models(
    cli_models: list[str] | None,
    repeat: int | None,
    agent_dir: Path,
    *,
    replaying: bool,
    recording: bool,
) -> RunModels:
    """Raises RunModelsError. The config's list applies to live runs only: a replay answers
    from its cassette, whatever the config lists."""
    count = 1 if repeat is None else repeat
    try:
        if cli_models:
            refs, source = parse_models(cli_models), "--model"
        elif replaying:
            refs, source = [], None
        else:
            found = configured_models(agent_dir)
            if found is None or not found.models:
                refs, source = [], None
            else:
                where = f"{found.source}: models:"
                refs, source = parse_models(list(found.models), where), str(found.source)
    except (ModelSpecError, ModelsConfigError) as error:
        raise RunModelsError(str(error)) from None
    refusal = combination_refusal(
        models=len(refs),
        repeat=count,
        replaying=replaying,
        recording=recording,
        models_given=bool(cli_models),
        source=source,
    )
    if refusal is not None:
        raise RunModelsError(refusal)
    return RunModels(tuple(refs), count, source)


def combination_refusal(
    *,
    models: int,
    repeat: int,
    replaying: bool,
    recording: bool,
    models_given: bool | None = None,
    source: str | None = None,
) -> str | None:
    """Why models × repeats cannot run with these answers, or None. The one rule: the CLI
    asks it while reading its options, the run session again for callers that build a
    request themselves (the editor, tests) — so both refuse alike, with the same words."""
    if repeat < 1:
        return f"--repeat {repeat}: the number of sessions per case must be at least 1"
    if replaying and (models if models_given is None else models_given):
        return (
            "--replay answers from a cassette recorded with one model: --model cannot change "
            "its answers; drop --model, or run live with --model (add --record to keep them)"
        )
    if replaying and repeat > 1:
        return (
            "--repeat with --replay: a cassette gives the same answer every time, so the "
            "repeats could never differ; drop --repeat or run live"
        )
    if recording and (models > 1 or repeat > 1):
        what = f"{models} models" if models > 1 else f"{repeat} repeats"
        hint = "; the models come from " + source if source not in (None, "--model") else ""
        return (
            f"--record with {what}: a cassette holds one answer per turn of one model, so it "
            "cannot hold several models or repeats — record each model on its own "
            f"(--model M --record M.json) without --repeat{hint}"
        )
    return None


def matrix_note(matrix: RunModels, own_model: str) -> str:
    """What the first line says answers, for `--model` or repeats (empty for a plain run)."""
    if not matrix.models and matrix.repeat == 1:
        return ""
    parts = []
    if matrix.models:
        noun = "model" if len(matrix.models) == 1 else "models"
        parts.append(f"{len(matrix.models)} {noun}: " + ", ".join(m.label for m in matrix.models))
    else:
        parts.append(own_model)
    if matrix.repeat > 1:
        parts.append(f"{matrix.repeat} repeats")
    return "; ".join(parts)
