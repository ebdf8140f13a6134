"""`run`'s flags as a request to the run lifecycle (runner/lifecycle/): what one agent file's
run asks for. Everything the flags decide about the run is decided there, not here."""

from __future__ import annotations

import argparse
from pathlib import Path

from holodeck_lsp.commands.run.flag_values import LATEST_UNFINISHED
from holodeck_lsp.runner.lifecycle.request import LifecycleRequest, ResumeAsked
from holodeck_lsp.schema.agent import Agent


def lifecycle_request(args: argparse.Namespace, agent: Agent, path: Path) -> LifecycleRequest:
    resume = None
    if args.resume is not None:
        ref = None if args.resume == LATEST_UNFINISHED else args.resume
        resume = ResumeAsked(ref, force=args.force, retry_errored=args.retry_errored)
    return LifecycleRequest(
        agent,
        path,
        cases=tuple(args.case or ()),
        turn=args.turn,
        keyword=args.keyword,
        last_failed=args.last_failed,
        models=tuple(args.model) if args.model else None,
        repeat=args.repeat,
        record=args.record is not None,
        replay=args.replay,
        rejudge=args.rejudge,
        resume=resume,
        save=not args.no_save,
        keep=args.keep,
        parallel=args.parallel,
        grader_timeout=args.grader_timeout,
        fail_fast=args.fail_fast,
        max_cost=args.max_cost,
        max_turns=args.max_turns,
        retry_budget=args.retry_budget,
        max_tool_rounds=args.max_tool_rounds,
        shard=args.shard,
        replay_user=args.replay_user,
        trace=args.trace,
    )
