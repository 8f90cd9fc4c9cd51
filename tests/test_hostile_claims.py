"""Hostile claim files for ``dpsco audit --claim event:FILE.json`` (issue: verdicts that hold against hostile input).

* An event whose own fields include ``"event"`` (``SelfComposedDpEvent``, ``PoissonSampledDpEvent``, the sampled
  events) is the event itself, not the ``{"event", "event_neighbouring"}`` wrapper: before the fix only its inner
  event was audited, so a true ``SelfComposed(Gaussian(4), 16)`` claim was refuted and a false
  ``PoissonSampled(0.01, Gaussian(1))`` claim passed.
* Out-of-range fields (``count: 0``, ``count: -3``, ``sampling_probability: 1.5``) are refused, naming the field.
* A wrapper whose ``event_neighbouring`` contradicts ``--claim-neighbouring`` is refused (exit 2).
* Every dp_accounting event type round-trips through the file format.

Deterministic (no sampling): no false-failure budget is needed.
"""

from __future__ import annotations

import json

import pytest
from dp_accounting import dp_event as de

from dpsco.reference.privacy import event_from_dict, event_to_dict
from dpsco.verification.cli.audit import parse_claim
from dpsco.verification.cli.usercode import InputError

EVENTS = [
    de.GaussianDpEvent(2.0),
    de.LaplaceDpEvent(1.5),
    de.DiscreteLaplaceDpEvent(0.5, 1),
    de.SelfComposedDpEvent(de.GaussianDpEvent(4.0), 16),
    de.ComposedDpEvent([de.GaussianDpEvent(3.0), de.LaplaceDpEvent(2.0)]),
    de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.0)),
    de.SampledWithReplacementDpEvent(100, 10, de.GaussianDpEvent(1.0)),
    de.SampledWithoutReplacementDpEvent(100, 10, de.GaussianDpEvent(1.0)),
    de.RandomizedResponseDpEvent(0.5, 4),
    de.MixtureOfGaussiansDpEvent(1.0, [0.0, 1.0], [0.5, 0.5]),
    de.ZCDpEvent(0.5, 0.0),
    de.RepeatAndSelectDpEvent(de.GaussianDpEvent(1.0), 3.0, 1.0),
    de.SingleEpochTreeAggregationDpEvent(1.0, [4, 4]),
    de.TruncatedSubsampledGaussianDpEvent(1000, 0.01, 20, 1.0),
    de.NoOpDpEvent(),
    de.NonPrivateDpEvent(),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: type(e).__name__)
def test_every_event_type_round_trips_through_the_file_format(event):
    assert event_from_dict(json.loads(json.dumps(event_to_dict(event)))) == event


def _write(tmp_path, data, name="ev.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return f"event:{path}"


@pytest.mark.parametrize("event", [de.SelfComposedDpEvent(de.GaussianDpEvent(4.0), 16),
                                   de.PoissonSampledDpEvent(0.01, de.GaussianDpEvent(1.0)),
                                   de.ComposedDpEvent([de.SelfComposedDpEvent(de.GaussianDpEvent(2.0), 3)])],
                         ids=lambda e: type(e).__name__)
def test_an_event_with_an_event_field_keeps_its_outer_layer(tmp_path, event):
    kind, curve = parse_claim(_write(tmp_path, event_to_dict(event)))
    assert kind == "curve" and curve.event == event
    # the wrapper around it also keeps it whole
    kind, curve = parse_claim(_write(tmp_path, {"event": event_to_dict(event), "event_neighbouring": "REPLACE_ONE"},
                                     "wrapped.json"))
    assert curve.event == event and curve.event_neighbouring == "REPLACE_ONE"


def test_self_composed_claim_is_the_composition_not_one_step(tmp_path):
    # SelfComposed(Gaussian(4), 16) under REPLACE_ONE: sensitivity 2, μ = √16·2/4 = 2 (hand derivation); one step
    # alone would be μ = 0.5 — the δ(1) of the two differ by orders of magnitude
    _, curve = parse_claim(_write(tmp_path, event_to_dict(de.SelfComposedDpEvent(de.GaussianDpEvent(4.0), 16))))
    from dpsco.verification.papers.harness import gaussian_exact_privacy
    assert curve.delta_of_epsilon(1.0) == pytest.approx(gaussian_exact_privacy(2.0).delta_of_epsilon(1.0), abs=2e-3)
    assert curve.delta_of_epsilon(1.0) > 10 * gaussian_exact_privacy(0.5).delta_of_epsilon(1.0)


@pytest.mark.parametrize("bad, field", [
    ({"class_name": "SelfComposedDpEvent", "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0},
      "count": 0}, "count"),
    ({"class_name": "SelfComposedDpEvent", "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0},
      "count": -3}, "count"),
    ({"class_name": "SelfComposedDpEvent", "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0},
      "count": 2.5}, "count"),
    ({"class_name": "PoissonSampledDpEvent", "sampling_probability": 1.5,
      "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}, "sampling_probability"),
    ({"class_name": "GaussianDpEvent", "noise_multiplier": -1.0}, "noise_multiplier"),
    ({"class_name": "GaussianDpEvent", "noise_multiplier": True}, "noise_multiplier"),
    ({"class_name": "SampledWithReplacementDpEvent", "source_dataset_size": 10, "sample_size": 20,
      "event": {"class_name": "GaussianDpEvent", "noise_multiplier": 1.0}}, "sample_size"),
])
def test_out_of_range_event_fields_are_refused(tmp_path, bad, field):
    with pytest.raises(ValueError, match=field):
        event_from_dict(bad)
    with pytest.raises(InputError, match=field):
        parse_claim(_write(tmp_path, bad))


def test_contradicting_event_neighbouring_is_refused(tmp_path):
    wrapped = {"event": event_to_dict(de.GaussianDpEvent(1.0)), "event_neighbouring": "ADD_OR_REMOVE_ONE"}
    with pytest.raises(InputError, match="contradicts --claim-neighbouring"):
        parse_claim(_write(tmp_path, wrapped), "replace-one")
    kind, curve = parse_claim(_write(tmp_path, wrapped, "b.json"), "add/remove")
    assert curve.event_neighbouring == "ADD_OR_REMOVE_ONE"
    special = {"event": event_to_dict(de.GaussianDpEvent(1.0)), "event_neighbouring": "REPLACE_SPECIAL"}
    assert parse_claim(_write(tmp_path, special, "c.json"), "replace-one")[1].event_neighbouring == "REPLACE_SPECIAL"
    with pytest.raises(InputError, match="contradicts"):
        parse_claim(_write(tmp_path, special, "d.json"), "add/remove")
    # a file that states the claim's relation (PrivacyClaim.to_dict) declares what the event models
    stated = {**wrapped, "neighbouring": "replace-one"}
    assert parse_claim(_write(tmp_path, stated, "e.json"), "replace-one")[1].event_neighbouring == "ADD_OR_REMOVE_ONE"
    with pytest.raises(InputError, match="audit it under the relation it claims"):
        parse_claim(_write(tmp_path, stated, "f.json"), "add/remove")


def test_a_release_claim_file_is_audited_as_written(tmp_path):
    from dpsco.reference.privacy import PrivacyClaim

    claim = PrivacyClaim("GDP", 1.0, 1e-5, "replace-one", "x", mu=1.0, event=de.GaussianDpEvent(2.0),
                         event_neighbouring="REPLACE_ONE")
    kind, curve = parse_claim(_write(tmp_path, claim.to_dict()), "replace-one")
    assert curve.event == de.GaussianDpEvent(2.0)
