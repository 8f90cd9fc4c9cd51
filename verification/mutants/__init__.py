"""Planted bugs (mutants): deliberately broken versions of the algorithms that the audits and checks must
catch (``bftt19``, ``lr21``, ``lr21_applications``), in one corpus (``corpus``: every planted bug with how it is
caught; ``exact``: the exact privacy and refutation probabilities the corpus rests on)."""
