"""`import tau2` as one function: a τ²-bench checkout in, the suite's files out as bytes (the
command writes them). Nothing is printed and nothing is written here.

The suite is self-contained: per domain an agent file and a tools file are generated;
tau2_state.py, tau2_grader.py and tau2_bench/src (τ²'s own code, MIT, with LICENSE and NOTICE)
are copied from suite_files/; tau2_bench/data keeps the chosen tasks and the domains' files in
τ²'s own layout, so the tools and the grader read what τ² reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.importers.tau2.errors import ImportInputError
from holodeck_lsp.importers.tau2.source import DOMAINS, Checkout, DomainFiles, read_checkout
from holodeck_lsp.importers.tau2.suite import CaseText, Model, agent_yaml, tools_py
from holodeck_lsp.importers.tau2.vendored import (
    SUITE_FILES,
    agent_prompt,
    tool_specs,
    user_prompt,
    validated_task,
)

DATA = "tau2_bench/data/tau2"
DEFAULT_MODEL = Model("openai", "gpt-4.1-mini")


@dataclass(frozen=True, slots=True)
class Selection:
    domains: tuple[str, ...] = DOMAINS
    #: The first `n` tasks of each domain (None: all).
    n: int | None = None
    #: Only these task ids (None: all).
    ids: frozenset[str] | None = None
    name: str = "tau2"
    agent_model: Model = DEFAULT_MODEL
    user_model: Model = DEFAULT_MODEL
    max_turns: int = 30


@dataclass(frozen=True, slots=True)
class ImportedSuite:
    #: Relative path (POSIX) -> bytes, every file of the suite.
    files: dict[str, bytes]
    #: Domain -> the case names written.
    cases: dict[str, list[str]]
    warnings: tuple[str, ...] = ()
    #: Tasks passed over, and why.
    passed_over: tuple[str, ...] = field(default_factory=tuple)


def copied_files() -> dict[str, bytes]:
    """Every file of suite_files/ (relative path -> bytes), copied into each suite as it is."""
    return {
        path.relative_to(SUITE_FILES).as_posix(): read_file_bytes(path)
        for path in sorted(SUITE_FILES.rglob("*"))
        if path.is_file() and "__pycache__" not in path.parts
    }


def _policy(domain: DomainFiles) -> str:
    """The domain's policy as τ²'s get_environment builds it (telecom: two documents)."""
    if domain.name == "telecom":
        main = domain.files["main_policy.md"].decode("utf-8")
        manual = domain.files["tech_support_manual.md"].decode("utf-8")
        return (
            f"<main_policy>\n{main}\n</main_policy>\n"
            f"<tech_support_policy>\n{manual}\n</tech_support_policy>"
        )
    return domain.files["policy.md"].decode("utf-8")


def _case(domain: str, raw: dict[str, Any], guidelines: str) -> CaseText | str:
    """The case of one task, or why it is passed over."""
    task_id = str(raw.get("id", ""))
    task = validated_task(raw, f"{domain} task {task_id!r}")
    initial = task.initial_state
    if initial is not None and initial.message_history:
        return (
            f"{domain} task {task_id}: starts from a recorded conversation "
            "(initial_state.message_history), which a simulated user cannot replay"
        )
    criteria = task.evaluation_criteria
    basis = tuple(kind.value for kind in criteria.reward_basis) if criteria else ()
    communicate = tuple(criteria.communicate_info or ()) if criteria else ()
    nl = tuple(criteria.nl_assertions or ()) if criteria else ()
    return CaseText(
        name=f"{domain}_{task_id}",
        task_id=task_id,
        basis=basis,
        user_instructions=user_prompt(guidelines, task.user_scenario),
        # Only what the reward counts: τ² computes the rest for information alone.
        communicate_info=communicate if "COMMUNICATE" in basis else (),
        nl_assertions=nl if "NL_ASSERTION" in basis else (),
    )


def _chosen(domain: DomainFiles, selection: Selection) -> list[dict[str, Any]]:
    tasks = domain.tasks
    if selection.ids is not None:
        tasks = [t for t in tasks if str(t.get("id")) in selection.ids]
    return tasks[: selection.n] if selection.n is not None else tasks


def _user_actions(raw: dict[str, Any]) -> bool:
    actions = (raw.get("evaluation_criteria") or {}).get("actions") or []
    return any(action.get("requestor") == "user" for action in actions)


def import_tau2(path: Path, selection: Selection) -> ImportedSuite:
    """The suite of `selection` from the τ²-bench checkout at `path`."""
    checkout: Checkout = read_checkout(path, selection.domains)
    warnings = [
        f"{name} left out: {why}; the other domains still import"
        for name, why in checkout.missing.items()
    ]
    warnings += list(checkout.notes)
    files: dict[str, bytes] = {}
    cases: dict[str, list[str]] = {}
    passed_over: list[str] = []
    single = len(checkout.domains) == 1
    for name, domain in checkout.domains.items():
        chosen = _chosen(domain, selection)
        if not chosen:
            continue
        made = [_case(name, raw, checkout.guidelines) for raw in chosen]
        texts = [case for case in made if isinstance(case, CaseText)]
        passed_over += [case for case in made if isinstance(case, str)]
        if not texts:
            continue
        user_acting = sum(_user_actions(raw) for raw in chosen)
        if user_acting:
            warnings.append(
                f"{name}: {user_acting} of {len(chosen)} tasks expect the user to act "
                "(τ²'s user tools, e.g. on their phone); the simulated user has no tools, so "
                "those tasks fail where their checks need the user's actions "
                '(docs/importing-tau2.md, "What is not expressible")'
            )
        title = selection.name if single else f"{selection.name}-{name}"
        specs = tool_specs(name)
        yaml_name = "agent.yaml" if single else f"{name}.agent.yaml"
        models = (selection.agent_model, selection.user_model)
        files[yaml_name] = agent_yaml(
            title, name, specs, texts, models, selection.max_turns
        ).encode("utf-8")
        files[f"tools_{name}.py"] = tools_py(name, specs).encode("utf-8")
        files[f"prompts/{name}_agent.md"] = (agent_prompt(_policy(domain)) + "\n").encode()
        kept = {case.task_id for case in texts}
        tasks = [raw for raw in chosen if str(raw.get("id")) in kept]
        files[f"{DATA}/domains/{name}/tasks.json"] = (
            json.dumps(tasks, indent=2, ensure_ascii=False) + "\n"
        ).encode("utf-8")
        for file_name, data in domain.files.items():
            files[f"{DATA}/domains/{name}/{file_name}"] = data
        cases[name] = [case.name for case in texts]
    if not cases:
        raise ImportInputError(
            "the selection has no tasks: widen --ids or --n"
            + (f" ({'; '.join(passed_over)})" if passed_over else "")
        )
    files[f"{DATA}/user_simulator/simulation_guidelines.md"] = checkout.guidelines.encode()
    files.update(copied_files())
    return ImportedSuite(files, cases, tuple(warnings), tuple(passed_over))


def summary(suite: ImportedSuite) -> str:
    """One line about what was imported (the command prints it)."""
    shown = ", ".join(f"{domain} {len(names)}" for domain, names in suite.cases.items())
    return f"{sum(map(len, suite.cases.values()))} τ² tasks ({shown})"
