"""The case scope a stateful tool reads: each case's task sees its own, and so does every
task and worker thread it starts; cases side by side never see each other's; outside a
case there is none."""

from __future__ import annotations

import asyncio

from holodeck_lsp.runner.agent_code.case_scope import CaseScope, current_case, entered_case


async def test_each_case_and_what_it_starts_see_its_own_scope() -> None:
    seen: dict[str, list[str | None]] = {}

    def in_thread() -> str | None:
        scope = current_case()
        return None if scope is None else scope.name

    async def case(name: str) -> None:
        with entered_case(CaseScope(name, 0)):
            await asyncio.sleep(0)  # let the other cases interleave
            inner = await asyncio.create_task(asyncio.sleep(0, result=in_thread()))
            threaded = await asyncio.to_thread(in_thread)
            seen[name] = [inner, threaded]

    await asyncio.gather(*(case(f"case-{n}") for n in range(64)))
    assert seen == {f"case-{n}": [f"case-{n}", f"case-{n}"] for n in range(64)}
    assert current_case() is None


def test_scopes_of_the_same_case_do_not_share_state() -> None:
    """A matrix runs the same case once per model: one scope each, so no shared state."""
    first, second = CaseScope("same", 0, "ollama:a"), CaseScope("same", 0, "ollama:b")
    with entered_case(first):
        current = current_case()
        assert current is first
        current.state["k"] = 1
    with entered_case(second):
        current = current_case()
        assert current is second and current.state == {}
