"""How a protocol gets a mechanism's outputs: :mod:`authormask.evaluation.releases`, which the
calibration reads too and which therefore lives below the protocols; its names are kept here
for the protocols and reports that import them from this module."""

from __future__ import annotations

from authormask.evaluation.releases import (
    DEFAULT_RATES,
    EVALUATION_UNKNOWN,
    NOISE_OFF_EPSILON,
    NOISE_OFF_EPSILONS,
    build_mechanism,
    check_rates,
    identity_of,
    mechanism_parameters,
    noise_off_by_sampler,
    public_parameters,
    releases_bag,
    sweeps_rate,
)

__all__ = [
    "DEFAULT_RATES",
    "EVALUATION_UNKNOWN",
    "NOISE_OFF_EPSILON",
    "NOISE_OFF_EPSILONS",
    "build_mechanism",
    "check_rates",
    "identity_of",
    "mechanism_parameters",
    "noise_off_by_sampler",
    "public_parameters",
    "releases_bag",
    "sweeps_rate",
]
