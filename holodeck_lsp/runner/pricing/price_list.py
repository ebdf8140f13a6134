"""The price list: USD per million input and output tokens by `provider:model`.

The shipped list (prices.json) carries the date its prices were read (`as_of`); prices change,
so holodeck-lsp.yaml `prices:` overrides any entry or adds one. A model with no price has no
cost ("cost not computed") — a guessed price would be worse than none.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources

from holodeck_lsp.runner.backends.providers import price_provider

#: Dated snapshots (`gpt-4o-2024-08-06`, `claude-sonnet-4-5-20250929`) and aliases
#: (`claude-3-5-sonnet-latest`) cost what their family's entry does.
_VERSION_SUFFIX = re.compile(r"-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$")


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens."""

    input: float
    output: float


@dataclass(frozen=True, slots=True)
class PriceList:
    prices: Mapping[str, Price]
    as_of: str

    def lookup(self, model: str) -> Price | None:
        """The price of `provider:name`, or None when the list has none for it."""
        provider, _, name = model.partition(":")
        names = [name]
        bare = _VERSION_SUFFIX.sub("", name)
        if bare != name:
            names.append(bare)
        # A provider selling another's models (its row's `priced_as`) costs what they cost.
        for who in dict.fromkeys((provider, price_provider(provider))):
            for candidate in names:
                found = self.prices.get(f"{who}:{candidate}")
                if found is not None:
                    return found
        return None


def shipped_prices() -> PriceList:
    data = json.loads(resources.files(__package__).joinpath("prices.json").read_text("utf-8"))
    prices = {
        key: Price(float(value["input"]), float(value["output"]))
        for key, value in data["models"].items()
    }
    return PriceList(prices, str(data["as_of"]))


def price_list(overrides: Mapping[str, Mapping[str, float]] | None = None) -> PriceList:
    """The shipped list with holodeck-lsp.yaml's `prices:` on top (an override naming only
    `input` or `output` keeps the shipped other half)."""
    shipped = shipped_prices()
    if not overrides:
        return shipped
    merged = dict(shipped.prices)
    for key, value in overrides.items():
        base = merged.get(key, Price(0.0, 0.0))
        merged[key] = Price(
            float(value.get("input", base.input)), float(value.get("output", base.output))
        )
    return PriceList(merged, f"{shipped.as_of}, with holodeck-lsp.yaml prices")
