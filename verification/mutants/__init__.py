"""Planted bugs (mutants): deliberately broken versions of the algorithms that the audits and checks must
catch, in one corpus."""
