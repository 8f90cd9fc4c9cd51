"""Real heavy-tailed data for Asi, Liu & Tian (2024): the RAND Health Insurance Experiment sample shipped by
statsmodels (``statsmodels.datasets.randhie``; 20,190 person-years; public domain; used in Cameron & Trivedi
(2005), *Microeconometrics: Methods and Applications*, Cambridge University Press).

Response b = ``mdvis``, the number of outpatient visits to an MD in the year: a count, unbounded in principle and
heavy-tailed, so the sample Lipschitz constants of least squares (I5, L_s = (R‖a‖ + |b|)‖a‖) are heavy-tailed.

Records [a, b] (n, 11).  Pre-processing is data-independent, so it costs no privacy:

* each of the 9 covariates v is mapped to [−1, 1] by its *public range* [lo, hi] (``RANDHIE_RANGES``), from the
  variables' definitions in ``randhie.DESCRLONG`` and the experiment's published design (Manning, Newhouse, Duan,
  Keeler, Leibowitz & Marquis 1987, "Health Insurance and the Demand for Medical Care", American Economic
  Review 77(3)), never from statistics of the data: z = (2v − lo − hi)/(hi − lo);
* an intercept 1 is appended and the 10 entries are divided by √10, so ‖a‖ ≤ 1 for every record;
* a value outside its public range, or an ``mdvis`` that is not a non-negative integer, is a ValueError.

Ranges (``RANDHIE_RANGES``):

* lncoins = ln(coinsurance + 1) with 0 ≤ coinsurance ≤ 100 (DESCRLONG): [0, ln 101].
* idp, hlthg, hlthf, hlthp: indicators, [0, 1].  physlm: "1 if the person has a physical limitation"; the shipped
  column also holds fractional (imputed) values, all within [0, 1].
* lpi = ln(max(1, annual participation incentive payment)) ≥ 0.  The incentive was set to offset a family's
  largest possible out-of-pocket loss, the maximum dollar expenditure (MDE), which the design capped at $1,000 a
  year (Manning et al. 1987); we declare 10× that, $10,000, as the public ceiling: [0, ln 10⁴].
* fmde = ln(max(1, MDE/(0.01·coinsurance))) (0 on the individual-deductible plan): MDE ≤ $1,000 and the smallest
  positive coinsurance rate of the experiment's plans is 25% (plans: 0, 25, 50, 95%; Manning et al. 1987), so
  fmde ≤ ln(1000/0.25) = ln 4000: [0, ln 4000].
* disea = number of chronic diseases (fractional in the shipped data: imputed).  The definition gives no
  maximum; we *declare* [0, 100] (an assumption stated here, not a codebook value).

Declared moment bounds (Assumption 1), fixed from a public model of visit counts, not fitted to the data:

* LAD (I4): L_s = ‖a‖ ≤ 1 for every record, so G_j = 1 for all j (a bound that holds surely).
* Least squares (I5) on B(0, R): L_s = (R‖a‖ + b)‖a‖ ≤ R + b, so G_j ≤ R + (E b^j)^{1/j} (Minkowski).  The
  declared model of annual MD visits is a negative binomial with mean 5 and shape 0.5 (variance 5 + 5²/0.5 = 55):
  deliberately generous against the national average of 4–5 physician visits per person-year in the 1970s US
  (National Center for Health Statistics surveys) and strongly over-dispersed.  E b^j are its exact moments
  (scipy.stats.nbinom), j ≤ k = 4.

Honesty note: these choices were written down after the column summaries of ``randhie`` had been displayed
once (mean 2.86, maximum 77 for ``mdvis``); they were not tuned to them.  The empirical moments of L_s are
reported by ``RandhieDataset.diagnostics`` for comparison only: no algorithm reads them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy import stats

from dpsco.reference.alt24.losses import LADLoss, LeastSquaresLoss
from dpsco.reference.alt24.model import MomentBounds
from dpsco.reference.validation import check_positive, check_positive_int

__all__ = ["RANDHIE_RANGES", "RandhieDataset", "VISITS_MODEL", "declared_moment_bounds", "load_randhie"]

#: public range [lo, hi] of each covariate and its justification (module docstring)
RANDHIE_RANGES: dict[str, tuple[float, float, str]] = {
    "lncoins": (0.0, math.log(101.0), "ln(coinsurance + 1), 0 ≤ coinsurance ≤ 100"),
    "idp": (0.0, 1.0, "indicator: individual deductible plan"),
    "lpi": (0.0, math.log(1e4), "ln(max(1, incentive)), incentive ≤ $10,000 (10× the $1,000 MDE cap)"),
    "fmde": (0.0, math.log(4000.0), "ln(max(1, MDE/(0.01 coinsurance))), MDE ≤ $1,000, coinsurance ≥ 25% if > 0"),
    "physlm": (0.0, 1.0, "indicator (imputed fractions in [0, 1]): physical limitation"),
    "disea": (0.0, 100.0, "number of chronic diseases, declared cap 100"),
    "hlthg": (0.0, 1.0, "indicator: self-rated health good"),
    "hlthf": (0.0, 1.0, "indicator: self-rated health fair"),
    "hlthp": (0.0, 1.0, "indicator: self-rated health poor"),
}

#: the declared public model of the response (annual MD visits): negative binomial, mean 5, shape 0.5
VISITS_MODEL = {"family": "negative binomial", "mean": 5.0, "shape": 0.5}
DECLARED_K = 4
DEFAULT_RADIUS = 20.0


def _visits_moment(j: int) -> float:
    """E b^j under ``VISITS_MODEL`` (scipy's nbinom(n = shape, p = shape/(shape + mean)))."""
    size, mean = VISITS_MODEL["shape"], VISITS_MODEL["mean"]
    return float(stats.nbinom(size, size / (size + mean)).moment(j))


def declared_moment_bounds(loss: str, radius: float, k: int = DECLARED_K) -> MomentBounds:
    """The declared MomentBounds(k, G) of L_s on B(0, radius) for ``loss`` ∈ {"lad", "least_squares"} (module
    docstring).  radius > 0; 2 ≤ k ≤ 8.  Raises ValueError / TypeError naming the parameter."""
    radius = check_positive(radius, "radius")
    k = check_positive_int(k, "k")
    if not 2 <= k <= 8:
        raise ValueError(f"k must be in [2, 8], got {k}")
    if loss == "lad":
        return MomentBounds(k, tuple(1.0 for _ in range(k)))
    if loss == "least_squares":
        return MomentBounds(k, tuple(radius + _visits_moment(j) ** (1.0 / j) for j in range(1, k + 1)))
    raise ValueError(f"loss must be 'lad' or 'least_squares', got {loss!r}")


@dataclass(frozen=True)
class RandhieDataset:
    """The randhie records with their declared public bounds.

    S : (n, 11) records [a, b], ‖a‖ ≤ 1, b ≥ 0 integer;  names : the 11 column names;  radius : R of X = B(0, R)
    the declared bounds refer to;  moment_bounds : {"lad", "least_squares"} → MomentBounds;  description."""

    S: np.ndarray
    names: tuple[str, ...]
    radius: float
    moment_bounds: dict[str, MomentBounds]
    description: str
    losses: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return int(self.S.shape[0])

    @property
    def d(self) -> int:
        return int(self.S.shape[1] - 1)

    def diagnostics(self) -> dict[str, Any]:
        """Empirical (1/n Σ L_s^j)^{1/j} per loss and j, beside the declared G_j and their ratio (diagnostic only)."""
        out: dict[str, Any] = {}
        for name, loss in self.losses.items():
            L = loss.lipschitz_bound(self.S, self.radius)
            mb = self.moment_bounds[name]
            emp = [float(np.mean(L**j) ** (1.0 / j)) for j in range(1, mb.k + 1)]
            out[name] = {"empirical_G": emp, "declared_G": list(mb.G),
                         "ratio": [e / g for e, g in zip(emp, mb.G)], "max_L": float(L.max())}
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"name": "randhie", "n": self.n, "d": self.d, "columns": list(self.names), "radius": self.radius,
                "ranges": {k: [lo, hi, why] for k, (lo, hi, why) in RANDHIE_RANGES.items()},
                "visits_model": dict(VISITS_MODEL),
                "moment_bounds": {k: v.to_dict() for k, v in self.moment_bounds.items()},
                "description": self.description}


def load_randhie(radius: float = DEFAULT_RADIUS, k: int = DECLARED_K) -> RandhieDataset:
    """Load statsmodels' ``randhie`` as records [a, b] with public scaling and declared bounds (module docstring).

    radius : R > 0 of the domain B(0, R) for the least-squares bounds (default 20);  k : moment order (default 4).
    Returns a RandhieDataset with n = 20,190, d = 10 (9 covariates + intercept), ‖a‖ ≤ 1.
    Raises ValueError if a value lies outside its public range or ``mdvis`` is not a non-negative integer."""
    from statsmodels.datasets import randhie

    radius = check_positive(radius, "radius")
    data = randhie.load_pandas().data
    cols = []
    for name, (lo, hi, _) in RANDHIE_RANGES.items():
        v = data[name].to_numpy(dtype=np.float64)
        if not np.all(np.isfinite(v)) or np.any(v < lo) or np.any(v > hi):
            raise ValueError(f"randhie column {name!r} has values outside its public range [{lo}, {hi}]")
        cols.append((2.0 * v - lo - hi) / (hi - lo))
    feats = np.column_stack(cols + [np.ones(len(data))])
    A = feats / math.sqrt(feats.shape[1])
    b = data["mdvis"].to_numpy(dtype=np.float64)
    if not np.all(np.isfinite(b)) or np.any(b < 0) or np.any(b != np.round(b)):
        raise ValueError("randhie column 'mdvis' must hold non-negative integer counts")
    S = np.ascontiguousarray(np.column_stack([A, b]))
    bounds = {name: declared_moment_bounds(name, radius, k) for name in ("lad", "least_squares")}
    desc = ("RAND Health Insurance Experiment (statsmodels randhie): a = 9 covariates scaled by public ranges + "
            "intercept, /√10 (‖a‖ ≤ 1); b = mdvis (annual outpatient MD visits, heavy-tailed count)")
    return RandhieDataset(S=S, names=tuple(RANDHIE_RANGES) + ("intercept", "mdvis"), radius=radius,
                          moment_bounds=bounds, description=desc,
                          losses={"lad": LADLoss(), "least_squares": LeastSquaresLoss(a_max=1.0)})
