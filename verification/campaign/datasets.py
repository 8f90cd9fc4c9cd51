"""Built-in real data: the Fair (1978) extramarital-affairs survey, as shipped by statsmodels.

    R. C. Fair. "A Theory of Extramarital Affairs." Journal of Political Economy 86(1), 45–61, 1978.
    Data: 6,366 women surveyed by Redbook magazine in 1974; ``statsmodels.datasets.fair``.

Pre-processing is data-independent, so it costs no privacy:

* target y = +1 if ``affairs > 0`` else −1 (logistic loss labels);
* each feature v is mapped to [−1, 1] by its *public range* [lo, hi] from the survey's codebook — the
  smallest and largest answer codes of the questionnaire (statsmodels' ``fair.DESCRLONG`` and Fair 1978,
  Appendix), never statistics of the private data: x = (2v − lo − hi)/(hi − lo);
* an intercept feature 1 is prepended and the row is divided by √(1 + #features), so ‖x‖ ≤ 1 =: X_max.

A value outside its public range is a ``ValueError`` (the declared bound would be violated).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["FAIR_CODEBOOK", "RealDataset", "load_fair"]

#: public ranges of the Fair (1978) questionnaire's answer codes
FAIR_CODEBOOK: dict[str, tuple[float, float, str]] = {
    "rate_marriage": (1.0, 5.0, "1 = very poor … 5 = very good"),
    "age": (17.5, 42.0, "age bracket mid-points: 17.5 (under 20) … 42 (42 or older)"),
    "yrs_married": (0.5, 23.0, "years married, interval codes 0.5 (under 1 year) … 23"),
    "children": (0.0, 5.5, "number of children, 0 … 5.5 (5 or more)"),
    "religious": (1.0, 4.0, "1 = not … 4 = strongly"),
    "educ": (9.0, 20.0, "9 = grade school … 20 = advanced degree"),
    "occupation": (1.0, 6.0, "1 = student … 6 = professional with advanced degree"),
    "occupation_husb": (1.0, 6.0, "husband's occupation, same codes"),
}


@dataclass(frozen=True)
class RealDataset:
    """A dataset with its declared, public bounds.

    X : (n, d) float array, ‖x‖ ≤ x_max.  y : (n,) labels in {−1, +1}.
    """

    name: str
    X: np.ndarray
    y: np.ndarray
    x_max: float
    y_max: float
    feature_names: tuple[str, ...]
    description: str

    @property
    def n(self) -> int:
        return int(self.X.shape[0])

    @property
    def d(self) -> int:
        return int(self.X.shape[1])

    def to_dict(self) -> dict[str, object]:
        return {"name": self.name, "n": self.n, "d": self.d, "x_max": self.x_max, "y_max": self.y_max,
                "features": list(self.feature_names), "description": self.description}


def load_fair() -> RealDataset:
    """Load statsmodels' ``fair`` dataset, scaled by its public codebook ranges (see module docstring).

    Returns
    -------
    RealDataset with n = 6366, d = 9 (intercept + 8 survey answers), x_max = 1, y ∈ {−1, +1}.

    Raises
    ------
    ValueError
        A value lies outside its public codebook range.
    """
    from statsmodels.datasets import fair

    data = fair.load_pandas().data
    cols = []
    for name, (lo, hi, _) in FAIR_CODEBOOK.items():
        v = data[name].to_numpy(dtype=np.float64)
        if np.any(v < lo) or np.any(v > hi):
            raise ValueError(f"fair column {name!r} has values outside its public range [{lo}, {hi}]")
        cols.append((2.0 * v - lo - hi) / (hi - lo))
    feats = np.column_stack([np.ones(len(data))] + cols)
    X = feats / math.sqrt(feats.shape[1])
    y = np.where(data["affairs"].to_numpy(dtype=np.float64) > 0, 1.0, -1.0)
    return RealDataset(
        name="fair",
        X=np.ascontiguousarray(X),
        y=y,
        x_max=1.0,
        y_max=1.0,
        feature_names=("intercept",) + tuple(FAIR_CODEBOOK),
        description="Fair (1978) Redbook survey via statsmodels; y = affairs > 0; features scaled by public "
        "codebook ranges to [-1, 1], intercept prepended, rows divided by sqrt(9)",
    )
