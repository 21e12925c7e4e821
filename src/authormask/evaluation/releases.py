"""How an evaluation gets a mechanism's outputs: through the release layer, by registry name,
with the parameters its registry spec declares (never inferred from the mechanism's name or from
the names of its parameters). The protocols and the calibration (``--epsilons auto``) read it;
it imports the release layer only, so it sits below both.

The *noise-off* release of a mechanism is the same mechanism with its noise switched off: its
deterministic preparation (tokenising, stopwords, unknown words mapped or dropped, contractions
split, the canonical skeleton, N words kept and sorted for a bag) and its rendering, with every
unit released as it came in. A mechanism whose registry spec declares its samplers
(:attr:`~authormask.core.registry.MechanismSpec.samplers`: every word-level mechanism) is
built by :func:`~authormask.core.registry.create_noise_off`, which switches them off
(:meth:`~authormask.mechanisms._base.Mechanism.without_noise`), so no noise is drawn and no
exponential mechanism scores the vocabulary; it gives the text the mechanism gives as epsilon
-> infinity (the tests check it word for word against a release at epsilon 1e12). Any other
mechanism is released at the limit epsilon :data:`NOISE_OFF_EPSILON` (for Earth Mover's privacy
the noise then has mean length ``n / 1e12``, nine orders of magnitude below the distance between
any two vectors of the packaged embeddings). A baseline swept over rates has rate 0 as its
noise-off form. It is the baseline row of every protocol ("none") and the form in which
non-adaptive attackers see the known texts, so that a measure compares noise with no noise,
never preparation with none.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import is_dataclass
from typing import Any, Protocol, runtime_checkable

from authormask._version import __version__
from authormask.core import Mechanism, create_mechanism, mechanism_spec
from authormask.core.registry import create_noise_off
from authormask.core.resources import Resources, resource_parameters
from authormask.exceptions import InvalidParameterError
from authormask.text.entities import check_entities_mode

__all__ = [
    "DEFAULT_RATES",
    "EVALUATION_UNKNOWN",
    "IDENTITY_EPSILON",
    "NOISE_OFF_EPSILON",
    "NOISE_OFF_EPSILONS",
    "HasIdentity",
    "build_mechanism",
    "check_rates",
    "identity_of",
    "mechanism_identity",
    "mechanism_parameters",
    "noise_off_by_sampler",
    "public_parameters",
    "releases_bag",
    "sweeps_rate",
    "with_defaults",
]

#: the epsilon of a noise-off release (see module docstring)
NOISE_OFF_EPSILON = 1e12
#: the epsilons a noise-off release tries, largest first: an exponential mechanism whose exact
#: sampler refuses :data:`NOISE_OFF_EPSILON` (``santext``: epsilon times its vocabulary's
#: diameter must stay within 2^40 nats) takes the largest it accepts; at 1e10 every other word
#: has probability below exp(-1e8) relative to the input word's
NOISE_OFF_EPSILONS = (NOISE_OFF_EPSILON, 1e10, 1e8)
#: the epsilon at which :func:`mechanism_identity` reads the statement of a noise-off form's
#: mechanism (any epsilon every mechanism accepts: the statement names the same data at each)
IDENTITY_EPSILON = 1.0
#: the rates a baseline mechanism (:func:`sweeps_rate`) is swept over by default
DEFAULT_RATES = (0.0, 0.25, 0.5, 0.75, 1.0)


#: the fixed word every evaluation feeds in place of an unknown word (:func:`mechanism_parameters`)
EVALUATION_UNKNOWN = "unknown"


def sweeps_rate(name: str) -> bool:
    """Whether mechanism ``name`` is a baseline swept over rates instead of epsilons, as its
    registry spec declares (:attr:`~authormask.core.specs.MechanismSpec.sweeps_rate`:
    ``random-sub``; not ``random-r``, which has no noise to set).

    Parameters
    ----------
    name
        A registered mechanism's name.

    Returns
    -------
    bool
        Whether it is swept over rates.

    Examples
    --------
    >>> sweeps_rate("random-sub"), sweeps_rate("random-r"), sweeps_rate("emp-text")
    (True, False, False)
    """
    return mechanism_spec(name).sweeps_rate


def releases_bag(name: str) -> bool:
    """Whether mechanism ``name`` releases a bag of N words (its spec's ``release`` is
    "bag"), so attackers see sorted bags; otherwise it releases text, and attackers read text.

    Parameters
    ----------
    name
        A registered mechanism's name.

    Returns
    -------
    bool
        Whether it releases a bag of words.

    Examples
    --------
    >>> releases_bag("emp-bag"), releases_bag("tem")
    (True, False)
    """
    return mechanism_spec(name).release == "bag"


def check_rates(rates: Sequence[float]) -> tuple[float, ...]:
    """``rates`` as floats, each in [0, 1], none repeated, at least one; else
    ``InvalidParameterError`` naming the bad value.

    Parameters
    ----------
    rates
        The rates of a baseline swept over rates.

    Returns
    -------
    tuple[float, ...]
        The rates as floats, in the order given.

    Raises
    ------
    InvalidParameterError
        If a rate is not a number in [0, 1], there is none, or one repeats.
    """
    out: list[float] = []
    for r in rates:
        if isinstance(r, bool) or not isinstance(r, int | float) or not 0.0 <= float(r) <= 1.0:
            raise InvalidParameterError(f"rate must be in [0, 1], got {r!r}")
        out.append(float(r))
    if not out:
        raise InvalidParameterError("give at least one rate")
    if len(set(out)) != len(out):
        raise InvalidParameterError("rates must not repeat")
    return tuple(out)


def noise_off_by_sampler(name: str) -> bool:
    """Whether the noise-off release of ``name`` switches its samplers off
    (:func:`~authormask.core.registry.create_noise_off`) rather than releasing it at
    :data:`NOISE_OFF_EPSILON`: its spec declares its samplers (a mechanism whose noise epsilon
    sets, :attr:`~authormask.core.specs.MechanismSpec.has_noise_off`).

    Parameters
    ----------
    name
        A registered mechanism's name.

    Returns
    -------
    bool
        Whether its noise-off release switches its samplers off.

    Examples
    --------
    >>> noise_off_by_sampler("tem"), noise_off_by_sampler("random-sub")
    (True, False)
    """
    return mechanism_spec(name).has_noise_off


def mechanism_parameters(
    name: str,
    epsilon: float | None,
    *,
    embeddings: Any = None,
    length: int | str | None = None,
    entities: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Registry parameters of ``name`` at ``epsilon`` (``None``: noise off, module notes): the
    embeddings go to a mechanism whose spec declares it needs them
    (:func:`~authormask.core.resources.resource_parameters`) and N to one that takes ``length``,
    never read from the mechanism's name. For a rate-swept baseline (:func:`sweeps_rate`)
    ``epsilon`` is the row's rate (``None``: rate 0, its noise-off form), given to the
    parameter its spec declares sets its noise. With the noise off, a mechanism whose samplers
    are switched off (:func:`noise_off_by_sampler`) gets no epsilon (:func:`build_mechanism`
    then builds its noise-off form); any other, :data:`NOISE_OFF_EPSILON`.

    A mechanism that takes ``entities`` gets ``entities`` (default ``None``: its registry
    default, ``"surrogate"``, what a user's release does), so an evaluation measures what the
    user releases unless it says otherwise (issue 46 A: the PAN protocol released with names
    kept, and its retrieval read 0.92 where a user's release reads 0.37); ``extra`` still
    overrides it. A protocol that gives ``"keep"`` says why in its tables (fernandes2019: a
    study's snippets hold exactly N content words, which surrogates outside the vocabulary
    would change). Likewise a mechanism that reads ``oov_map_to`` (under
    ``oov`` "map": :meth:`~authormask.core.specs.MechanismSpec.read`) gets the fixed word
    ``"unknown"`` (where the embeddings have it): a release draws a word in place of each
    unknown one, independently of it and from a root keyed by the release's statement
    (:mod:`authormask.mechanisms.unknown`), so the noise-off row and a very large epsilon would
    differ at those positions; the fixed word also shows an attacker where an unknown word
    stood, which the release does not (the measured attack is, if anything, stronger).

    Parameters
    ----------
    name
        A registered mechanism's name.
    epsilon
        The row's epsilon (a rate-swept baseline's rate), or ``None`` for the noise off.
    embeddings
        The embeddings, passed to a mechanism that takes them.
    length
        N, passed to a mechanism that takes ``length``.
    entities
        ``"surrogate"``, ``"mask"`` or ``"keep"`` for a mechanism that takes ``entities``, or
        ``None`` for its registry default (the user's, ``"surrogate"``).
    extra
        Further registry parameters; they override the evaluation's (the registry checks
        them).

    Returns
    -------
    dict[str, Any]
        The registry parameters (for :func:`build_mechanism`).
    """
    spec = mechanism_spec(name)
    takes = set(spec.parameter_names)
    params: dict[str, Any]
    if spec.sweeps_rate and spec.noise_parameter is not None:
        params = {spec.noise_parameter: 0.0 if epsilon is None else float(epsilon)}
    elif epsilon is None and spec.has_noise_off:
        params = {}
    else:
        params = {"epsilon": NOISE_OFF_EPSILON if epsilon is None else epsilon}
    params |= resource_parameters(spec, Resources(embeddings=embeddings))
    if length is not None and "length" in takes:
        params["length"] = length
    if "entities" in takes:
        declared = spec.parameter("entities")
        params["entities"] = check_entities_mode(
            entities if entities is not None or declared is None else declared.default
        )
    if "oov_map_to" in takes and (embeddings is None or EVALUATION_UNKNOWN in embeddings):
        params["oov_map_to"] = EVALUATION_UNKNOWN
    given = dict(extra or {})
    merged = {**params, **given}
    # what the evaluation gives every mechanism that takes it reaches those that read it; what
    # the caller gives (``extra``) is the registry's to check
    readable = spec.applicable(merged)
    return {k: v for k, v in merged.items() if k in given or k in readable}


def build_mechanism(name: str, params: Mapping[str, Any]) -> Mechanism:
    """The mechanism of :func:`mechanism_parameters`' ``params``: its noise-off form
    (:func:`~authormask.core.registry.create_noise_off`) when they hold no epsilon for a
    mechanism whose samplers can be switched off, else :func:`~authormask.core.
    create_mechanism`.

    Parameters
    ----------
    name
        A registered mechanism's name.
    params
        Its registry parameters (:func:`mechanism_parameters`).

    Returns
    -------
    Mechanism
        The mechanism, built by the registry.
    """
    if "epsilon" not in params and noise_off_by_sampler(name):
        return create_noise_off(name, **dict(params))
    return create_mechanism(name, **dict(params))


@runtime_checkable
class HasIdentity(Protocol):
    """An object with an ``identity``: the embeddings, a trained model, the fluency judge, a
    source. Throughout the package ``identity`` is a read-only property, never a method: the
    embeddings' and the models' give a frozen dataclass with ``to_dict()``, a source's its file
    as ``(device, inode)`` or None. ``isinstance(value, HasIdentity)`` is true of any object
    with an ``identity`` attribute."""

    @property
    def identity(self) -> Any: ...


def identity_of(value: HasIdentity) -> Any:
    """What a release depends on through ``value``, an object with an identity, as JSON: its
    ``identity`` property by its ``to_dict()`` when that is a dataclass with one (the
    embeddings', a model's), else as it is.

    Parameters
    ----------
    value
        An object with an ``identity``.

    Returns
    -------
    Any
        Its identity's ``to_dict()``, or its identity as it is.

    Examples
    --------
    >>> from dataclasses import dataclass
    >>> @dataclass(frozen=True)
    ... class Identity:
    ...     weights_sha256: str
    ...     def to_dict(self):
    ...         return {"weights_sha256": self.weights_sha256}
    >>> class Model:
    ...     @property
    ...     def identity(self):
    ...         return Identity("ab12")
    >>> identity_of(Model())
    {'weights_sha256': 'ab12'}
    """
    identity = value.identity
    if is_dataclass(identity) and not isinstance(identity, type) and hasattr(identity, "to_dict"):
        return identity.to_dict()
    return identity


def with_defaults(name: str, params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with every other parameter the registry declares for mechanism ``name`` at
    its default, for cache keys: a release or score cached under one default is never read
    as another's after the default changes (emp-write's prior weight went from 1 to 0.25).

    Parameters
    ----------
    name
        A registered mechanism's name.
    params
        The parameters given.

    Returns
    -------
    dict[str, Any]
        The given parameters and, for every other declared one, its default.
    """
    out = {p.name: p.default for p in mechanism_spec(name).parameters if p.name not in params}
    out.update(params)
    return out


def public_parameters(params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` as JSON (an object such as the embeddings or a model by its identity,
    :func:`identity_of`), for cache keys.

    Parameters
    ----------
    params
        Registry parameters.

    Returns
    -------
    dict[str, Any]
        Each parameter as JSON: plain values as they are, sets sorted, objects with an
        identity by it, sequences as lists, anything else by its ``repr``.
    """
    out: dict[str, Any] = {}
    for k, v in params.items():
        if isinstance(v, (str, int, float, bool)) or v is None:
            out[k] = v
        elif isinstance(v, (set, frozenset)):
            out[k] = sorted(v)
        elif isinstance(v, HasIdentity):
            out[k] = identity_of(v)
        elif isinstance(v, Sequence):
            out[k] = list(v)
        else:
            out[k] = repr(v)
    return out


_IDENTITIES: dict[tuple[str, str], str] = {}
_IDENTITIES_LOCK = threading.Lock()


def mechanism_identity(name: str, params: Mapping[str, Any]) -> str:
    """The SHA-256 of the public statement of the mechanism ``params`` build (and, for a
    noise-off form, whose statement names no data, of the mechanism it switches the noise of,
    at :data:`IDENTITY_EPSILON`): what a release depends on besides its
    texts and seed, the packaged data the mechanism reads included (its embeddings, emp-write's
    noun lexicon and writer), which its registry parameters alone do not name. A protocol's
    cache keys hold it, so a release or cell made with other packaged data is never reused.
    Built once per process for each (mechanism, public parameters).

    Parameters
    ----------
    name
        A registered mechanism's name.
    params
        Its registry parameters (:func:`mechanism_parameters`).

    Returns
    -------
    str
        The statement's SHA-256 (of its sorted JSON), in hexadecimal; for a mechanism whose
        statement waits for the texts (``emp-bag`` with N ``"shortest"``), of its class and the
        package version.
    """
    noise_off = "epsilon" not in params and noise_off_by_sampler(name)
    # with_defaults fills in a default epsilon: the noise-off form is told apart by itself
    memo = (
        f"{name}{' (noise off)' if noise_off else ''}",
        json.dumps(public_parameters(with_defaults(name, params)), sort_keys=True),
    )
    with _IDENTITIES_LOCK:
        known = _IDENTITIES.get(memo)
    if known is not None:
        return known
    built = [build_mechanism(name, params)]
    if noise_off:
        # a noise-off form's statement names no data: the data of the mechanism it switches
        # the noise of, as its statement at a reference epsilon names them
        built.append(create_mechanism(name, **{**params, "epsilon": IDENTITY_EPSILON}))
    layers: list[dict[str, Any]] = []
    for mechanism in built:
        try:
            layers.append(mechanism.statement(seeded=True).to_dict())
        except InvalidParameterError as exc:  # a statement that waits for the texts (emp-bag's
            # N "shortest"): its class and version, beside the public parameters in the key
            kind = type(mechanism)
            layers.append(
                {
                    "class": f"{kind.__module__}.{kind.__qualname__}",
                    "version": __version__,
                    "unresolved": str(exc),
                }
            )
    statement = {"statements": layers}
    digest = hashlib.sha256(json.dumps(statement, sort_keys=True).encode()).hexdigest()
    with _IDENTITIES_LOCK:
        _IDENTITIES[memo] = digest
    return digest
