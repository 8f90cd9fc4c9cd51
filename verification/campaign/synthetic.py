"""The synthetic side of ``dpsco verify``: for each catalogue entry, a distribution whose population minimiser
the oracles certify, and draws of the entry's excess risk on fresh samples of it.

Entries without an objective of their own run on D1 (logistic) or D5 (hinge) of ``dpsco.oracles.population``,
whose excess population risk is exact.  Entries with an objective (``dpsco.verification.papers.objectives``)
run on D = uniform on a pool of ``POOL_SIZE`` draws of D1 with a stronger signal: the population objective of
an ERM-form objective is then the objective on the pool, certified by the objective's own oracle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from dpsco.reference import ERMProblem, get_loss

from dpsco.verification.papers.catalogue import CatalogueEntry

__all__ = ["POOL_SIZE", "SYN_OBJECTIVE_RADIUS", "SyntheticSide", "population_draw", "synthetic_instance",
           "synthetic_side"]


def synthetic_instance(loss_name: str, d: int, rng: np.random.Generator) -> tuple[str, Any]:
    """The synthetic distribution with a certified population minimiser used for ``loss_name``.

    logistic: D1 (finite support, well-specified logistic model, ``dpsco.oracles.population.d1_logistic``);
    hinge: D5 (finite support, ``dpsco.oracles.population.d5_hinge``).
    ``rng`` draws the atoms and w⋆ (once per campaign).
    """
    from dpsco.oracles.population import d1_logistic, d5_hinge

    if loss_name == "logistic":
        return "D1 logistic (200 atoms)", d1_logistic(d, rng=rng)
    if loss_name == "hinge":
        return "D5 hinge (200 atoms)", d5_hinge(d, rng=rng)
    raise ValueError(f"no synthetic instance for loss {loss_name!r}")


POOL_SIZE = 2000  # D = uniform on this many synthetic draws, for objectives without a closed-form population
SYN_OBJECTIVE_RADIUS = 2.0  # W = B(0, 2) and ‖w⋆‖ = 2 for the synthetic instance of the objective entries


@dataclass
class SyntheticSide:
    """The synthetic side of one entry (:func:`synthetic_side`): a population draw (fresh S ~ Dⁿ, one run,
    exact excess population risk) when the entry's objective has a population form, else None; and an
    empirical draw (excess of the entry's objective on the drawn S against its certified minimum), used for
    rates without a population."""

    name: str
    info: dict[str, Any]
    radius: float  # M of the synthetic problem's W = B(0, M)
    population: Callable[[int, np.random.Generator], tuple[float, Any]] | None
    empirical: Callable[[int, np.random.Generator], tuple[float, Any]] | None
    cache: dict[str, Any]  # the pool objective and its certified minimum, once computed


def population_draw(entry: CatalogueEntry, inst: Any, options: dict[str, Any], eps: float
                    ) -> Callable[[int, np.random.Generator], tuple[float, Any]]:
    """One replicate of the population check: a fresh S ~ D^n, one run, its exact excess population risk."""
    sprob = ERMProblem(get_loss(entry.synthetic_loss), inst.domain, inst.bounds)

    def draw(n: int, rng: np.random.Generator) -> tuple[float, Any]:
        Xs, ys = inst.sample(n, rng)
        rel = entry.run(Xs, ys, sprob, eps, 1.0 / n**2, rng, **options)
        return max(float(inst.excess_population_risk(rel.output)), 0.0), rel

    return draw


def synthetic_side(entry: CatalogueEntry, d: int, rng: np.random.Generator, options: dict[str, Any], eps: float
                   ) -> SyntheticSide:
    """The synthetic instance of ``entry`` in dimension ``d`` (atoms and w⋆ drawn from ``rng``; the entry runs
    at ``eps`` and δ = 1/n² with ``options``): D1/D5 with their exact population minimisers for the empirical
    logistic/hinge risk; for an entry with its own objective (dpsco.verification.papers.objectives), D = uniform
    on a pool of ``POOL_SIZE`` draws of D1, whose population objective is the objective on the pool (ERM form),
    certified by the same oracle; the tilted risk has no population form (``population`` is None)."""
    spec = entry.objective
    if spec is not None:
        # a stronger signal than D1's default ‖w⋆‖ = 1/2: with ρ = 0.1 (robust) or r = 0.05 (game) the robust
        # minimiser of the default instance is w = 0, the kink of G_D; here ‖E[yx]‖ ≈ 0.18 > ρ, r.
        from dpsco.oracles.population import d1_logistic

        u = rng.standard_normal(d)
        inst_name, inst = (f"D1 logistic (200 atoms, ‖w⋆‖ = {SYN_OBJECTIVE_RADIUS})",
                           d1_logistic(d, radius=SYN_OBJECTIVE_RADIUS, rng=rng,
                                       w_star=SYN_OBJECTIVE_RADIUS * u / np.linalg.norm(u)))
    else:
        inst_name, inst = synthetic_instance(entry.synthetic_loss, d, rng)
    if spec is None:
        return SyntheticSide(inst_name, {"minimiser_accuracy": inst.minimiser().accuracy, "distribution": inst.to_dict()},
                          inst.domain.radius, population_draw(entry, inst, options, eps), None, {})
    PX, Py = inst.sample(POOL_SIZE, rng)
    sprob = ERMProblem(get_loss(entry.synthetic_loss), inst.domain, inst.bounds)
    cache: dict[str, Any] = {}

    def run_on_sample(n: int, g: np.random.Generator) -> tuple[np.ndarray, np.ndarray, Any]:
        idx = g.integers(0, POOL_SIZE, size=n)  # S ~ Dⁿ, D uniform on the pool
        rel = entry.run(PX[idx], Py[idx], sprob, eps, 1.0 / n**2, g, **options)
        return PX[idx], Py[idx], rel

    def population(n: int, g: np.random.Generator) -> tuple[float, Any]:
        _, _, rel = run_on_sample(n, g)
        if "oracle" not in cache:  # the objective's parameters (μ, τ, ρ, r, R) do not depend on n
            obj = spec.build(PX, Py, rel.parameters)
            cache["objective"], cache["oracle"] = obj, spec.minimum(obj)
        return max(cache["objective"].value(rel.output) - cache["oracle"].value, 0.0), rel

    def empirical(n: int, g: np.random.Generator) -> tuple[float, Any]:
        Xs, ys, rel = run_on_sample(n, g)
        obj = spec.build(Xs, ys, rel.parameters)
        return max(obj.value(rel.output) - spec.minimum(obj).value, 0.0), rel

    info = {"distribution": inst.to_dict(), "pool_size": POOL_SIZE, "objective": spec.name}
    return SyntheticSide(f"{inst_name}: D = uniform on {POOL_SIZE} draws", info, inst.domain.radius,
                      population if spec.erm_form else None, empirical, cache)
