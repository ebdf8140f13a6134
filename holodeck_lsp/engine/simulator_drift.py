"""Whether two runs had the same simulated users (docs/simulated-users.md, "Comparing runs"):
each simulated case's simulator model and prompt fingerprint, matched by case (name, else
index), model and repeat. A different user makes a different conversation, so `compare`
says so before anyone reads a change in verdicts as the agent's."""

from __future__ import annotations

from typing import Any

import msgspec

_Key = tuple[Any, Any, Any]


class _SimulatedCase(msgspec.Struct):
    test_name: Any = None
    test_index: Any = None
    model: Any = None
    repeat: Any = None
    simulation: Any = None


class _Outline(msgspec.Struct):
    results: list[_SimulatedCase] | None = None


_DECODER = msgspec.json.Decoder(_Outline)


def simulator_outline(raw: bytes) -> dict[str, Any]:
    """What `simulator_differences` reads of a report file's bytes, decoded without building
    the rest (a 200 MB report: docs/benchmarks.md, "Decoding only what comparing reads (issue
    40)"); ValueError when they are shaped otherwise — parse them whole then."""
    try:
        return {"results": msgspec.to_builtins(_DECODER.decode(raw).results)}
    except msgspec.MsgspecError as error:
        raise ValueError(f"not a report's JSON: {error}") from None


def _simulators(report: Any) -> dict[_Key, tuple[str, str]]:
    found: dict[_Key, tuple[str, str]] = {}
    results = report.get("results") if isinstance(report, dict) else None
    for result in results if isinstance(results, list) else []:
        if not isinstance(result, dict):
            continue
        simulation = result.get("simulation")
        if not isinstance(simulation, dict):
            continue
        case = result.get("test_name") or f"test_cases[{result.get('test_index')}]"
        key = (case, result.get("model"), result.get("repeat"))
        found[key] = (str(simulation.get("model")), str(simulation.get("fingerprint")))
    return found


def simulator_differences(base: Any, head: Any) -> list[str]:
    """One line per case whose simulated user differs between the two reports' JSON."""
    before, after = _simulators(base), _simulators(head)
    lines: list[str] = []
    for key in sorted(set(before) & set(after), key=repr):
        (model_a, print_a), (model_b, print_b) = before[key], after[key]
        label = f"case {key[0]!r}" + (f" [{key[1]}]" if key[1] else "")
        label += f" #{key[2]}" if key[2] else ""
        if model_a != model_b:
            lines.append(f"{label}: the simulated user's model differs ({model_a} → {model_b})")
        elif print_a != print_b:
            lines.append(
                f"{label}: the simulated user's instructions differ (prompt fingerprint "
                f"{print_a[:12]} → {print_b[:12]})"
            )
    return lines
