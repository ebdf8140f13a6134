"""agent.yaml text -> validated Agent + every diagnostic of the file, in one pass.

The language server and `holodeck-lsp --check` both call `load_agent_text` /
`load_agent_file`, so they can never disagree. Bad input never raises: it becomes
diagnostics with exact ranges.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter, ValidationError
from ruamel.yaml.nodes import MappingNode, Node, SequenceNode

from holodeck_lsp.checker.case_checks import CleanCases, clean_cases, lint_context
from holodeck_lsp.checker.case_validation import ValidatedCases
from holodeck_lsp.checker.checked_source import CheckedSource
from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.checker.env_masking import mask_env_values, referenced_values
from holodeck_lsp.checker.env_text import substitution_problems
from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.gc_pause import gc_paused
from holodeck_lsp.checker.global_config import load_global_providers, merge_providers
from holodeck_lsp.checker.grader_checks import check_graders
from holodeck_lsp.checker.incremental_parse import parse_edited
from holodeck_lsp.checker.judge_checks import check_judged_metrics
from holodeck_lsp.checker.lints import run_lints
from holodeck_lsp.checker.prompt_files import check_prompt_files
from holodeck_lsp.checker.simulated_user_checks import check_simulated_users
from holodeck_lsp.checker.structure_checks import check_shapes
from holodeck_lsp.checker.suite_locator import cases_node
from holodeck_lsp.checker.text_positions import (
    YAML_ONLY_BREAKS,
    EditorLines,
    YamlLines,
    to_editor_range,
)
from holodeck_lsp.checker.validation_errors import ErrorMapper
from holodeck_lsp.checker.yaml_document import (
    YamlDocument,
    key_node_for,
    locate,
    node_range,
)
from holodeck_lsp.schema.agent import MAX_TEST_CASES, Agent
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.test_case import TestCase

_CASES = TypeAdapter(list[TestCase])
_FILE_START = Range.of(0, 0, 0, 0)


@dataclass(slots=True)
class LoadOptions:
    #: Import graders (as HoloDeck does) instead of resolving them statically.
    trusted: bool = False
    #: Environment for `${VAR}`; None means this process's environment.
    env: Mapping[str, str] | None = None
    #: Folder holding `.holodeck/config.yaml`; None means the user's home.
    home: Path | None = None
    #: Merge `providers:` from the global and project config.yaml files.
    global_config: bool = True
    #: Run the lints beyond HoloDeck (warnings).
    lints: bool = True


@dataclass(slots=True)
class LoadResult:
    path: Path
    agent: Agent | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: The parsed agent document (ranges, raw data) for editor features.
    document: YamlDocument | None = None
    #: Files this result depends on besides the agent itself (includes, config.yaml).
    dependencies: list[Path] = field(default_factory=list)
    #: The agent's test cases that validated, for the next load of an edited text.
    validated_cases: ValidatedCases | None = None
    #: The agent's test cases the shape checks and lints found nothing in, likewise.
    clean_cases: CleanCases | None = None
    #: The parsed `test_cases_file` include by file (editor features re-use its tree).
    included: dict[str, YamlDocument] = field(default_factory=dict)
    #: Each form of a `${VAR}` value of the checked texts -> the `${VAR}` (what the messages
    #: were masked with; `check` masks the paths it shows with it too).
    env_forms: dict[str, str] = field(default_factory=dict)

    @property
    def errors(self) -> list[Diagnostic]:
        return [d for d in self.diagnostics if d.is_error]


def load_agent_file(
    path: Path, *, trusted: bool = False, options: LoadOptions | None = None
) -> LoadResult:
    """Read and check one agent.yaml from disk."""
    options = options or LoadOptions(trusted=trusted)
    try:
        text = read_file_text(path, "utf-8-sig", yaml=True)
    except (OSError, UnicodeDecodeError) as error:
        unreadable = Diagnostic(
            file=str(path),
            range=_FILE_START,
            severity=Severity.ERROR,
            code=Code.FILE_UNREADABLE,
            message=f"cannot read {path}: {error}",
        )
        return LoadResult(path, None, [unreadable])
    return load_agent_text(text, path, options)


def load_agent_text(
    text: str,
    path: Path,
    options: LoadOptions | None = None,
    previous: LoadResult | None = None,
) -> LoadResult:
    """Check agent.yaml `text` that lives (or will live) at `path`.

    `previous` is the result for an earlier version of the same text: its unchanged test
    cases are taken over (parsed and validated) instead of being checked again. The result
    is the same with or without it."""
    options = options or LoadOptions()
    try:
        with gc_paused():
            return _Load(text, path, options, previous).run()
    except Exception as error:  # a checker bug must not take the editor down
        crash = Diagnostic(
            file=str(path),
            range=_FILE_START,
            severity=Severity.ERROR,
            code=Code.INTERNAL_ERROR,
            message=f"holodeck-lsp could not check this file ({type(error).__name__}: {error}); "
            "this is a bug in holodeck-lsp, please report it with the file",
        )
        return LoadResult(path, None, [crash])


class _Load:
    def __init__(
        self, text: str, path: Path, options: LoadOptions, previous: LoadResult | None = None
    ) -> None:
        self.text = text
        self.previous = previous
        self.path = path
        self.file = str(path)
        self.options = options
        self.agent_dir = path.parent
        self.diagnostics: list[Diagnostic] = []
        self.unresolved: list[tuple[str, Range]] = []
        self.dependencies: list[Path] = []
        self.included_sources: list[CheckedSource] = []
        self.included: dict[str, YamlDocument] = {}
        #: Text of every document diagnostics may point into, to put ranges in editor terms.
        self.texts: dict[str, str] = {}
        self.editor_lines: dict[str, tuple[EditorLines, YamlLines | None]] = {}

    def run(self) -> LoadResult:
        earlier = self.previous.document if self.previous is not None else None
        document = self.parse(self.text, self.file, earlier)
        result = LoadResult(self.path, None, self.diagnostics, document, self.dependencies)
        result.included = self.included
        if document.root is None and document.problems:
            return self.finish(result)
        if document.root is None:
            # Nothing but blanks and comments: one clear error, not three missing fields.
            self.add(
                Code.ROOT_NOT_MAPPING,
                "the file is empty; an agent file needs at least `name`, `model` and "
                "`instructions` (see `holodeck-lsp schema`)",
                _FILE_START,
            )
            return self.finish(result)
        data: Any = document.value
        if not isinstance(data, dict):
            self.add(
                Code.ROOT_NOT_MAPPING,
                "an agent file is a mapping of fields (name, "
                "model, instructions, …), not a list or a single value",
                node_range(document.root) if document.root else _FILE_START,
            )
            return self.finish(result)
        root: Node = document.root if document.root is not None else MappingNode("", [])
        validated_data = self.with_global_providers(data, root)
        included = self.include_test_cases(validated_data, root)
        result.agent, result.validated_cases = self.validate(validated_data, root, data, included)
        agent_source = CheckedSource(self.file, root, data)
        sources = [agent_source, *self.included_sources]
        # The shape checks and lints look again only at cases that may find something now.
        context = lint_context(data, self.agent_dir, self.options.lints)
        clean = self.previous.clean_cases if self.previous is not None else None
        to_check = data if clean is None else clean.to_check(data, context)
        case_sources = [CheckedSource(self.file, root, to_check), *self.included_sources]
        shapes = check_shapes(case_sources, agent_source, validated_data)
        self.diagnostics.extend(shapes)
        self.diagnostics.extend(check_prompt_files(agent_source, self.agent_dir))
        self.diagnostics.extend(check_graders(sources, self.agent_dir, self.options.trusted))
        lints = run_lints(case_sources, data, self.agent_dir) if self.options.lints else []
        if self.options.lints:
            lints += check_judged_metrics(case_sources, data)
        self.diagnostics.extend(lints)
        simulated, setting = check_simulated_users(sources, self.agent_dir, self.options.home)
        self.diagnostics.extend(simulated)
        if setting is not None and setting.source is not None:
            self.dependencies.append(setting.source)
        result.clean_cases = clean_cases(data, context, self.file, [*shapes, *lints])
        return self.finish(result)

    # -- steps -----------------------------------------------------------------------------

    def parse(self, text: str, file: str, previous: YamlDocument | None = None) -> YamlDocument:
        self.texts[file] = text
        document = parse_edited(text, previous, self.options.env)
        # HoloDeck substitutes ${VAR} into the text first: values with YAML syntax (env_text).
        extra = substitution_problems(text, document, self.options.env)
        for problem in [*document.problems, *extra]:
            self.diagnostics.append(
                Diagnostic(file, problem.range, problem.severity, problem.code, problem.message)
            )
        self.unresolved.extend((file, r) for r in document.unresolved)
        return document

    def add(
        self,
        code: Code,
        message: str,
        where: Range,
        file: str | None = None,
        severity: Severity = Severity.ERROR,
        field_path: str | None = None,
    ) -> None:
        self.diagnostics.append(
            Diagnostic(file or self.file, where, severity, code, message, field_path)
        )

    def with_global_providers(self, data: dict[str, Any], root: Node) -> dict[str, Any]:
        if not self.options.global_config:
            return data
        found = load_global_providers(self.agent_dir, self.options.home, self.options.env)
        self.dependencies.extend(found.sources)
        model_key = key_node_for(root, "model")
        for problem in found.problems:
            where = node_range(model_key) if model_key is not None else _FILE_START
            self.add(Code.GLOBAL_CONFIG_INVALID, problem, where, severity=Severity.WARNING)
        return merge_providers(data, found.providers)

    def include_test_cases(
        self, data: dict[str, Any], root: Node
    ) -> tuple[list[TestCase] | None, list[Any]] | None:
        """Load `test_cases_file`; its faults are reported in that file, at their ranges."""
        reference = data.get("test_cases_file")
        if not isinstance(reference, str) or not reference.strip() or "test_cases" in data:
            return None  # the schema reports the wrong type / both set
        key_range = node_range(locate(root, ("test_cases_file",)).node)
        include = Path(reference)
        include = include if include.is_absolute() else (self.agent_dir / include)
        self.dependencies.append(include)
        try:
            text = read_file_text(include, "utf-8-sig", yaml=True)
        except (OSError, UnicodeDecodeError) as error:
            self.add(
                Code.TEST_CASES_FILE_INVALID,
                f"test_cases_file {reference!r} cannot be read ({error.__class__.__name__}: "
                f"{error}); check the path, relative to {self.agent_dir}",
                key_range,
                field_path="test_cases_file",
            )
            return None
        file = str(include)
        document = self.parse(text, file)
        self.included[file] = document
        if document.root is None:
            return None
        value, list_node = document.value, document.root
        if not value:
            # HoloDeck reads any empty-ish file (`{}`, `false`, `0`, `[]`, nothing) as "no
            # test cases": its loader keeps a payload only when it is truthy.
            value, list_node = [], SequenceNode("", [])
        elif isinstance(value, dict) and "test_cases" in value:
            value = value["test_cases"]
            # The list's own node (None only for a key spelt through ${VAR}: the file's).
            list_node = cases_node(document.root) or document.root
        if not isinstance(value, list):
            self.add(
                Code.TEST_CASES_FILE_INVALID,
                f"{reference} must hold a list of test cases (optionally under a "
                "`test_cases:` key)"
                + (
                    "; `test_cases:` is empty (null) here, which HoloDeck rejects: list the "
                    "cases or write `test_cases: []`"
                    if value is None
                    else ""
                ),
                node_range(list_node),
                file=file,
            )
            return None
        self.included_sources.append(
            CheckedSource(file, list_node, {"test_cases": value}, ("test_cases",))
        )
        if len(value) > MAX_TEST_CASES:
            self.add(
                Code.TOO_MANY_ITEMS,
                f"at most {MAX_TEST_CASES} test cases per agent (got {len(value)})",
                key_range,
                field_path="test_cases_file",
            )
        try:
            return _CASES.validate_python(value), value
        except ValidationError as error:
            mapper = ErrorMapper(file, list_node, {"test_cases": value}, ("test_cases",))
            self.diagnostics.extend(mapper.map(error))
            return None, value

    def validate(
        self,
        data: dict[str, Any],
        root: Node,
        naming_data: dict[str, Any],
        included: tuple[list[TestCase] | None, list[Any]] | None,
    ) -> tuple[Agent | None, ValidatedCases | None]:
        """The agent, and its test cases that validated (kept for the next load)."""
        cases = data.get("test_cases")
        earlier = self.previous.validated_cases if self.previous is not None else None
        validated: ValidatedCases | None = None
        if isinstance(cases, list) and earlier is not None:
            models, validated = earlier.models_for(cases)
            data = {**data, "test_cases": models}
        elif isinstance(cases, list):
            # A first load validates as usual (a one-off check pays nothing for re-use); its
            # cases are taken as they come out, or validated one by one on the next load.
            validated = ValidatedCases()
        try:
            agent = Agent.model_validate(data)
        except ValidationError as error:
            self.diagnostics.extend(ErrorMapper(self.file, root, naming_data).map(error))
            return None, validated
        if earlier is None and isinstance(cases, list) and agent.test_cases is not None:
            validated = ValidatedCases.of(cases, agent.test_cases)
        if included is not None:
            cases = included[0]
            if cases is None:
                return None, validated
            agent = agent.model_copy(update={"test_cases": cases})
        return agent, validated

    def finish(self, result: LoadResult) -> LoadResult:
        if self.unresolved:
            # A value built from an unset ${VAR} is unknown here: its type or range errors
            # would be guesses, and the warning on the reference already says what to do.
            kept = [d for d in self.diagnostics if not self.hides(d)]
            self.diagnostics[:] = kept
        self.diagnostics[:] = [self.in_editor_terms(d) for d in self.diagnostics]
        # The raw-data shape checks and the schema may report the same finding.
        unique = {(d.file, d.range, d.code, d.message): d for d in reversed(self.diagnostics)}
        self.diagnostics[:] = unique.values()
        self.diagnostics.sort(key=lambda d: (d.file != self.file, d.file, d.range))
        # Messages quote values; a value a ${VAR} stands for is shown as the ${VAR}.
        env = os.environ if self.options.env is None else self.options.env
        forms = referenced_values(self.texts.values(), env)
        self.diagnostics[:] = mask_env_values(self.diagnostics, forms)
        result.env_forms = forms
        if any(d.is_error for d in self.diagnostics):
            result.agent = None
        return result

    def in_editor_terms(self, diagnostic: Diagnostic) -> Diagnostic:
        text = self.texts.get(diagnostic.file)
        if text is None:
            return diagnostic
        lines = self.editor_lines.get(diagnostic.file)
        if lines is None:
            lines = self.editor_lines[diagnostic.file] = (
                EditorLines(text),
                YamlLines(text) if any(c in text for c in YAML_ONLY_BREAKS) else None,
            )
        editor, parser = lines
        moved = to_editor_range(diagnostic.range, parser, editor)
        return diagnostic if moved == diagnostic.range else replace(diagnostic, range=moved)

    def hides(self, diagnostic: Diagnostic) -> bool:
        if diagnostic.code is Code.ENV_VAR_UNSET:
            return False
        return any(
            file == diagnostic.file
            and where.start <= diagnostic.range.start
            and diagnostic.range.end <= where.end
            for file, where in self.unresolved
        )
