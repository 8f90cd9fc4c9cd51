"""Campaigns: ``dpsco verify`` and ``dpsco compare``, their reports, budgets, datasets and output files."""
