"""The objectives that Lowy & Razaviyayn's algorithms minimise, with certified oracles, for `dpsco verify`.

Algorithm 1 minimises a μ-strongly convex F, tilted ERM the tilted risk F_τ, the robust models and
Algorithm 3 the adversarial risk G_D = max_V H_D(·, V).  Their theorems bound the excess of *that* objective
(Thm 0.2 / MB1: E F(w_A) − F* ≤ L(√(2α/μ) + E‖z‖); the master bounds MB1–MB5 are in
docs/derivations.md#master-bounds-for-output-perturbation), so `dpsco verify` measures each one's excess against
a certified minimiser of the same objective, built from the same public parameters the release records:

========================  =========================================  =================================  ========
objective                 F(w) on a dataset (X, y)                    certified oracle                   ERM form
========================  =========================================  =================================  ========
ridge logistic            (1/n)Σφ(y⟨w, x⟩) + (μ/2)‖w‖²                 certified Newton (dpsco.reference.solvers)   yes
tilted (TERM)             (1/τ)log((1/n)Σe^{τℓ_i}) + (μ/2)‖w‖²         Newton + strong-convexity gap      no
robust logistic           (1/n)Σφ(y⟨w, x⟩ − ρ‖w‖) + (μ/2)‖w‖²          Newton + strong-convexity gap      yes
robust least squares      (1/2n)Σ(|⟨w, x⟩ − y| + ρ‖w‖)² + (μ/2)‖w‖²     Newton + strong-convexity gap      yes
linear adversarial game   max_V H_D(w, V) (linear game, γ = 0)         closed form + saddle certificate   yes
========================  =========================================  =================================  ========

"ERM form" objectives are averages of a per-sample loss f(w, z), so the population objective of a
distribution D is E_D f(w, z) and Lemma 0.4 (stability ⇒ generalisation) gives MB5; on D = uniform on a
finite pool of points the population objective *is* the objective on the pool, so the same oracle certifies
the population minimiser.  The tilted risk is not an average of per-sample losses: the paper bounds only its
empirical excess (Props 4.1, 4.2), and `dpsco verify` says so instead of inventing a population claim.

The two ``*_from_problem`` adapters (defined in :mod:`dpsco.reference.lr21.applications`, re-exported here) give
:func:`dpsco.reference.lr21.robust_erm` and :func:`dpsco.reference.lr21.algorithm_3` the catalogue's calling
convention ``run(X, y, problem, epsilon, delta, rng, **options)``: they read the declared bounds and the radius R
of W from the :class:`dpsco.reference.problem.ERMProblem` and pass everything else through.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

import dpsco.reference.lr21 as lr
from dpsco.reference.domains import Ball
from dpsco.reference.losses import get_loss
from dpsco.reference.problem import ERMProblem
from dpsco.reference.lr21 import algorithm_3_from_problem, robust_erm_from_problem
from dpsco.reference.solvers import certified_minimize, strictly_inside

__all__ = ["ObjectiveSpec", "OracleValue", "RIDGE_LOGISTIC", "TILTED_LOGISTIC", "ROBUST_LOGISTIC", "ROBUST_SQUARED",
           "LINEAR_ADVERSARIAL", "algorithm_3_from_problem", "robust_erm_from_problem"]


@dataclass(frozen=True)
class OracleValue:
    """A certified minimum: ``value`` = F(w) at the oracle's point w, with F(w) − F* ≤ ``gap_bound``."""

    value: float
    gap_bound: float
    w: np.ndarray
    method: str

    def to_dict(self) -> dict[str, Any]:
        return {"value": self.value, "gap_bound": self.gap_bound, "w": self.w.tolist(), "method": self.method}


@dataclass(frozen=True)
class ObjectiveSpec:
    """An objective, with the public parameters it takes from a release's ``parameters``.

    Attributes
    ----------
    name : str                 e.g. "tilted risk F_τ".
    build : (X (n, d), y (n,), params) -> object with ``value(w) -> float``   F on the dataset (X, y).
    minimum : (objective) -> OracleValue      certified minimum over B(0, R).
    sample_losses : (W (k, d), Z (m, d), zy (m,), params) -> (k, m)   per-sample loss f(w, z) used by the
        stability check (for the tilted risk: f = ℓ + (μ/2)‖w‖², whose Lipschitz constant is params["L"]).
    erm_form : bool            F is the average of f over the dataset (population objective defined).
    """

    name: str
    build: Callable[[np.ndarray, np.ndarray, dict[str, Any]], Any]
    minimum: Callable[[Any], OracleValue]
    sample_losses: Callable[[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]], np.ndarray]
    erm_form: bool


# -- ridge logistic (Algorithm 1's F) ------------------------------------------------------------------


@dataclass
class _RidgeLogistic:
    X: np.ndarray
    y: np.ndarray
    mu: float
    radius: float

    def value(self, w: np.ndarray) -> float:
        return float(np.mean(np.logaddexp(0.0, -self.y * (self.X @ w))) + 0.5 * self.mu * (w @ w))


def _ridge_min(obj: _RidgeLogistic) -> OracleValue:
    # certified_minimize minimises (1/n)Σφ + lam‖w‖²: lam = μ/2
    sol = certified_minimize(get_loss("logistic"), obj.X, obj.y, Ball(obj.radius), lam=0.5 * obj.mu, tol=1e-10)
    return OracleValue(obj.value(sol.w), sol.certificate.gap_bound, sol.w, f"certified Newton ({sol.certificate.method})")


def _ridge_sample_losses(W: np.ndarray, Z: np.ndarray, zy: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    return np.logaddexp(0.0, -zy[None, :] * (W @ Z.T)) + 0.5 * p["mu"] * np.sum(W * W, axis=1)[:, None]


RIDGE_LOGISTIC = ObjectiveSpec(
    name="ridge logistic F = L̂ + (μ/2)‖w‖²",
    build=lambda X, y, p: _RidgeLogistic(X, y, float(p["mu"]), float(p["R"])),
    minimum=_ridge_min, sample_losses=_ridge_sample_losses, erm_form=True)


# -- tilted risk (tilted ERM) --------------------------------------------------------------------------


def _newton_min(obj: Any) -> OracleValue:
    from dpsco.oracles.lr21.output_perturbation import newton_certified_minimizer

    w, cert = newton_certified_minimizer(obj, tol=1e-9)
    return OracleValue(obj.value(w), cert.gap_bound, w, f"damped Newton ({cert.method})")


TILTED_LOGISTIC = ObjectiveSpec(
    name="tilted risk F_τ = (1/τ)log((1/n)Σe^{τℓ_i}) + (μ/2)‖w‖²",
    build=lambda X, y, p: lr.TiltedObjective(get_loss("logistic"), X, y, float(p["tau"]), float(p["mu"]),
                                             float(p["R"])),
    minimum=_newton_min, sample_losses=_ridge_sample_losses, erm_form=False)


# -- robust logistic (G_D with the closed-form inner maximum) ----------------------------------------------


def _robust_sample_losses(W: np.ndarray, Z: np.ndarray, zy: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    nw = np.linalg.norm(W, axis=1)[:, None]
    return np.logaddexp(0.0, -(zy[None, :] * (W @ Z.T) - p["rho"] * nw)) + 0.5 * p["mu"] * nw**2


ROBUST_LOGISTIC = ObjectiveSpec(
    name="robust logistic G_D = (1/n)Σ log(1 + e^{−y⟨w, x⟩ + ρ‖w‖}) + (μ/2)‖w‖²",
    build=lambda X, y, p: lr.RobustObjective("logistic", X, y, float(p["rho"]), float(p["mu"]), float(p["R"])),
    minimum=_newton_min, sample_losses=_robust_sample_losses, erm_form=True)


def _robust_squared_sample_losses(W: np.ndarray, Z: np.ndarray, zy: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    nw = np.linalg.norm(W, axis=1)[:, None]
    return 0.5 * (np.abs(W @ Z.T - zy[None, :]) + p["rho"] * nw) ** 2 + 0.5 * p["mu"] * nw**2


ROBUST_SQUARED = ObjectiveSpec(
    name="robust least squares G_D = (1/2n)Σ(|⟨w, x⟩ − y| + ρ‖w‖)² + (μ/2)‖w‖²",
    build=lambda X, y, p: lr.RobustObjective("squared", X, y, float(p["rho"]), float(p["mu"]), float(p["R"])),
    minimum=_newton_min, sample_losses=_robust_squared_sample_losses, erm_form=True)


# -- the linear adversarial game (Algorithm 3; docs/derivations.md#linear-adversarial-games) ---------------


@dataclass
class _GameObjective:
    game: Any

    def value(self, w: np.ndarray) -> float:
        return float(self.game.inner_max(w)[1])


def _game_min(obj: _GameObjective) -> OracleValue:
    from dpsco.oracles.lr21.output_perturbation import linear_game_minimizer

    g = obj.game
    w = strictly_inside(linear_game_minimizer(g), g.radius)
    cert = lr.saddle_certificate(g, w, g.inner_max(w)[0])
    return OracleValue(obj.value(w), cert.gap_bound, w, f"closed form (linear game); certificate: {cert.method}")


def _game_problem(p: dict[str, Any]) -> lr.LinearAdversarialProblem:
    return lr.LinearAdversarialProblem(float(p["mu"]), float(p["r"]), float(p["gamma"]), float(p["x_max"]),
                                       float(p["y_max"]), radius=float(p["R"]))


def _game_sample_losses(W: np.ndarray, Z: np.ndarray, zy: np.ndarray, p: dict[str, Any]) -> np.ndarray:
    """f(w, (x, y)) = max_{‖v‖ ≤ r} (μ/2)‖w‖² − y⟨w, x + v⟩ = (μ/2)‖w‖² − y⟨w, x⟩ + r|y|‖w‖ (γ = 0)."""
    if p["gamma"] != 0:
        raise ValueError("per-sample losses are implemented for γ = 0 only")
    nw = np.linalg.norm(W, axis=1)[:, None]
    return 0.5 * p["mu"] * nw**2 - zy[None, :] * (W @ Z.T) + p["r"] * np.abs(zy)[None, :] * nw


LINEAR_ADVERSARIAL = ObjectiveSpec(
    name="adversarial risk G_D = max_V H_D(·, V), linear game (γ = 0)",
    build=lambda X, y, p: _GameObjective(_game_problem(p).game(X, y)),
    minimum=_game_min, sample_losses=_game_sample_losses, erm_form=True)


# -- calling-convention adapters: dpsco.reference.lr21.robust_erm_from_problem, algorithm_3_from_problem (imported
# above; the reference layer holds them so that the planted bugs can wrap them too) --------------------------------


def objective_range(params: dict[str, Any]) -> float:
    """A priori bound on F(w) − F* for w, w* ∈ B(0, R): 2R·L (F is L-Lipschitz on B(0, R), L = params["L"])."""
    return 2.0 * float(params["R"]) * float(params["L"])


__all__ += ["objective_range"]
