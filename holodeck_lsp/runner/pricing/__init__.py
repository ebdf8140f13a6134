"""What a run costs: the shipped price list (prices.json, with its date), overridable in
holodeck-lsp.yaml `prices:`, and the cost of a turn, a case and a run from its token usage."""
