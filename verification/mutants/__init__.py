"""Planted bugs (mutants): deliberately broken versions of the algorithms that the audits and checks must
catch (``bftt19``, ``lr21``, ``lr21_applications``; ``notions``: μ-GDP and ρ-zCDP mechanisms with their bugs, for
the curve audits), in one corpus (``corpus``: every planted bug with how it is caught, and detection rates per
privacy notion; ``planted``: the entry types; ``exact``: the exact privacy and refutation probabilities the
corpus rests on)."""
