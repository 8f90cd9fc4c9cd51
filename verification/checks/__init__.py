"""Statistical checks of the papers' claims: one-sided tests of bounds, rates and uniform stability."""
