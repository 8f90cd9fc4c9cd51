"""dpsco.oracles: certified exact answers (minimisers, population minimisers, privacy curves)."""
