"""Code graders of the financial assistant (referenced from agent.yaml as `graders:<name>`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from convfinqa import (
    COMMUTATIVE,
    OPERATIONS,
    Program,
    Step,
    close,
    parse_number,
    parse_program,
    resolve,
)

try:  # holodeck-lsp (`holodeck-lsp run`, the language server)
    from holodeck_lsp.engine.code_graders import GraderContext, GraderResult
except ImportError:  # upstream HoloDeck (`holodeck test`): the same contract
    from holodeck.lib.test_runner.code_grader import (  # type: ignore[no-redef]
        GraderContext,
        GraderResult,
    )

#: How far an operand may be from the program's (relative): an agent that carries 1.424 on
#: for 1.42403 did the same step. A turn can set its own with `turn_config.operand_tolerance`.
OPERAND_TOLERANCE = 0.005


@dataclass(frozen=True)
class _Call:
    """A tool call this turn, reduced to what the comparison needs."""

    position: int
    operation: str  # the tool name without a backend's prefix (`tools-divide`)
    operands: tuple[float, ...] | None  # None when an argument is not a number
    result: float | None
    shown: str


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        try:
            return parse_number(value)
        except ValueError:
            return None
    return None


def _operation(tool_name: str) -> str:
    """The operation a tool name stands for, whatever prefix the backend gave it:
    `tools-divide` (Semantic Kernel), `mcp__tools__divide` (Claude), `divide`."""
    for operation in OPERATIONS:
        if tool_name == operation or tool_name.endswith(("-" + operation, "_" + operation)):
            return operation
    return tool_name


def _calls(ctx: GraderContext) -> list[_Call]:
    calls = []
    for position, invocation in enumerate(ctx.tool_invocations):
        if invocation.error:
            continue  # a failed call computed nothing
        args: Mapping[str, object] = invocation.args
        ordered = [args["a"], args["b"]] if {"a", "b"} <= set(args) else list(args.values())
        numbers = [_number(value) for value in ordered]
        operands = tuple(n for n in numbers if n is not None)
        readable = len(operands) == len(numbers)
        shown_args = ", ".join(f"{key}={value}" for key, value in args.items())
        operation = _operation(invocation.name)
        shown = f"{operation}({shown_args})"
        result = _number(invocation.result)
        calls.append(_Call(position, operation, operands if readable else None, result, shown))
    return calls


def _fmt(value: float | str) -> str:
    return value if isinstance(value, str) else f"{value:.6g}"


def _operands_match(
    call: _Call, step: Step, wanted: Sequence[Sequence[float]], tolerance: float
) -> bool:
    """Whether the call's two operands are the step's (each operand may be any of its
    accepted values: the program's, or for `#N` the agent's own result of step N)."""
    if call.operation != step.operation or call.operands is None or len(call.operands) != 2:
        return False
    orders = [(0, 1), (1, 0)] if step.operation in COMMUTATIVE else [(0, 1)]
    return any(
        all(
            any(close(call.operands[slot], value, tolerance) for value in wanted[operand])
            for slot, operand in zip((0, 1), order, strict=True)
        )
        for order in orders
    )


def _compare(program: Program, calls: list[_Call], tolerance: float) -> list[dict[str, object]]:
    gold = program.values()
    status: list[str] = ["missing"] * len(program.steps)
    matched_call: dict[int, _Call] = {}
    used: set[int] = set()
    for step in program.steps:
        wanted: list[list[float]] = []
        for operand in step.operands:
            accepted = [resolve(operand, gold)]
            if operand.ref is not None and operand.ref in matched_call:
                result = matched_call[operand.ref].result
                if result is not None:
                    accepted.append(result)  # #N resolved to the agent's own result
            wanted.append(accepted)
        for call in calls:
            if call.position not in used and _operands_match(call, step, wanted, tolerance):
                used.add(call.position)
                matched_call[step.index] = call
                status[step.index] = "called"
                break
    # A step computed on an earlier turn is not repeated: the agent passes its result on. It
    # counts when a step that was done (or itself carried) uses it.
    for step in reversed(program.steps):
        if status[step.index] == "missing":
            continue
        for operand in step.operands:
            if operand.ref is not None and status[operand.ref] == "missing":
                status[operand.ref] = "carried"
    steps: list[dict[str, object]] = []
    for step in program.steps:
        values = [_fmt(resolve(operand, gold)) for operand in step.operands]
        entry: dict[str, object] = {
            "step": step.index,
            "program": step.text,
            "expected": f"{step.operation}({', '.join(values)}) = {_fmt(gold[step.index])}",
            "status": status[step.index],
        }
        if step.index in matched_call:
            entry["call"] = matched_call[step.index].shown
        steps.append(entry)
    return steps


def _first_difference(step: dict[str, object], calls: list[_Call]) -> str:
    operation = str(step["program"]).split("(", 1)[0]
    same = [call.shown for call in calls if call.operation == operation]
    if same:
        found = f"the turn's {operation} calls were {'; '.join(same)}"
    elif calls:
        found = f"no {operation} call; the turn called {'; '.join(c.shown for c in calls)}"
    else:
        found = "the turn made no tool calls"
    expected = str(step["expected"])
    program = str(step["program"])
    # `divide(#0, 25.14)` is shown with #0 resolved; a step without references only once.
    shown = expected if expected.startswith(program + " =") else f"{program}, i.e. {expected}"
    return f"step {step['step']} {shown}: {found}"


def turn_program_equivalence(ctx: GraderContext) -> GraderResult:
    """Compare the turn's tool calls with its ConvFinQA program (`turn_config.turn_program`).

    Every step of the program must be one of the turn's calls: the same operation, operands
    equal within a relative tolerance (either order for add and multiply), `#N` taken as step
    N's value — the program's, or the agent's own result when it made that call. A step the
    turn does not repeat counts when a later step uses its value (the agent carried a result
    over from an earlier turn). Extra calls (lookups, a rescaling) do not matter.

    Score: the fraction of steps matched. `details.steps` gives each step's status (`called`,
    `carried`, `missing`) and call; `details.first_difference` names the first missing step.
    A turn whose program is a bare value (read from the page) has nothing to compare: 1.0.
    """
    source = ctx.turn_config.get("turn_program")
    if not isinstance(source, str) or not source.strip():
        return GraderResult(
            1.0, reason="no turn_config.turn_program on this turn: nothing to compare"
        )
    try:
        program = parse_program(source)
        program.values()
    except (ValueError, ZeroDivisionError) as error:
        return GraderResult(0.0, passed=False, reason=f"turn_program {source!r}: {error}")
    if not program.steps:
        return GraderResult(
            1.0,
            reason="the program is a value read from the page: no calculation to compare",
            details={"program": source, "steps": []},
        )
    tolerance = float(ctx.turn_config.get("operand_tolerance", OPERAND_TOLERANCE))
    calls = _calls(ctx)
    steps = _compare(program, calls, tolerance)
    done = [step for step in steps if step["status"] != "missing"]
    carried = sum(1 for step in steps if step["status"] == "carried")
    score = len(done) / len(steps)
    details: dict[str, object] = {"program": source, "steps": steps}
    if len(done) == len(steps):
        note = f" ({carried} carried from an earlier turn)" if carried else ""
        reason = f"all {len(steps)} steps of {source} matched{note}"
    else:
        missing = next(step for step in steps if step["status"] == "missing")
        difference = _first_difference(missing, calls)
        details["first_difference"] = difference
        reason = f"{len(done)} of {len(steps)} steps matched; first difference: {difference}"
    return GraderResult(score, reason=reason, details=details)
