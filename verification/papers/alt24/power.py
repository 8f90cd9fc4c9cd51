"""Why a check of Asi, Liu & Tian (2024)'s suites cannot fail at the campaign's inputs: the reasons the suite tasks
state as ``uninformative_at_inputs`` (``dpsco.verification.checks.power`` then labels a pass "uninformative"),
computed from each check's own numbers so they stay true when the budget changes.  None: the check is informative.
"""

from __future__ import annotations

from typing import Any

__all__ = ["bound_above_range", "radius_covers_domain", "stated_reason"]


def stated_reason(reason: str | None) -> dict[str, Any]:
    """{"uninformative_at_inputs": reason} when ``reason`` is not None (``checks.power``), else {}."""
    return {} if reason is None else {"uninformative_at_inputs": reason}


def radius_covers_domain(radius: float, diameter: float) -> str | None:
    """The reason a success-probability check "‖x̂ − x*‖ ≤ radius" cannot fail: x̂ and x* both lie in a domain of
    diameter ``diameter`` ≤ radius, so every run succeeds (None when the radius is smaller)."""
    if radius >= diameter:
        return (f"cannot fail: the radius {radius:.3g} is at least the diameter {diameter:.3g} of the domain that "
                "holds both the output and x*, so every run succeeds")
    return None


def bound_above_range(bound: float, top: float) -> str | None:
    """The reason a check "P(excess > bound) ≤ δ" cannot fail: the excess never exceeds ``top`` ≤ bound."""
    if bound >= top:
        return (f"cannot fail: the bound {bound:.3g} is at least the largest excess {top:.3g} the domain allows "
                "(2R‖μ‖ for the linear loss), so no run exceeds it")
    return None
