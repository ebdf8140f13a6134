"""Numbers on the command line (argparse `type=`): one wording of each complaint for every
subcommand. A leaf module: stdlib only, importable from any layer."""

from __future__ import annotations

import argparse


def non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def positive_seconds(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def positive_usd(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError("must be an amount in USD, e.g. 2.50") from None
    if not value > 0:
        raise argparse.ArgumentTypeError("must be a positive amount in USD, e.g. 2.50")
    return value
