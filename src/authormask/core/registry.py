"""The registry of release mechanisms: ``create_mechanism(name, **params)``.

Names are the same everywhere (the CLI's ``--mechanism``, the library, every report):

============ =====================================================================
emp-bag      Earth Mover's privacy, Algorithm 2: a bag of N noisy words
emp-text     Earth Mover's privacy in place: every content word, skeleton kept
erae         ER-AE: exponential mechanism over a model trained with the reward
ae-dp        AE-DP: the same over a model trained without it
syntf        SynTF: exponential mechanism over word-vector similarity
random-r     Random-R: uniform tokens (0-DP in the words)
mahalanobis  Mahalanobis mechanism (Xu et al. 2020): elliptical noise, in place
tem          TEM (Carvalho et al. 2021): truncated exponential mechanism, in place
santext      SanText (Yue et al. 2021): exponential mechanism over distances, in place
emp-doc      Earth Mover's privacy on every word of a canonical skeleton
random-sub   baseline: each word replaced by a random one with probability rate (NO DP)
emp-write    Earth Mover's privacy on the content words; the rest written by a public model
emp-sentence Earth Mover's privacy on sentences (a public bank's) and on their nouns
emp-event    Earth Mover's privacy on the events (agent, verb, theme), written as sentences
============ =====================================================================

Each :class:`MechanismSpec` declares what a front end needs (what the release is, what epsilon
measures, whether it is a baseline, its seed code, its noise-off form, its audit cases, its help
text): the command line, the page, the audit and the evaluation protocols read these
declarations, never a mechanism's name or the names of its parameters. Parameters are
keyword-only and validated here, in one place, against their declared intervals and choices
(:func:`check_parameters`); a parameter a mechanism does not take is refused with the list of
those it does. The spec types and shared parameters are in :mod:`~authormask.core.specs`.
Each built-in mechanism's spec and factory (which loads its models and embeddings and wires
them in, so that its class never loads them) lie in its mechanism's module of
:mod:`authormask.mechanisms`, and are registered as a plugin's are
(:data:`BUILTIN_ENTRY_POINTS`).
"""

from __future__ import annotations

import logging
import pkgutil
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authormask._distributions import may_declare
from authormask.core.factories import with_entities
from authormask.core.specs import MechanismSpec, Parameter
from authormask.exceptions import InvalidParameterError

if TYPE_CHECKING:  # the registry imports no numpy: the command line reads its parameters
    from authormask.mechanisms._base import Mechanism

__all__ = [
    "LINEUPS",
    "MECHANISMS",
    "PLUGIN_GROUP",
    "MechanismSpec",
    "Parameter",
    "ParameterMismatchError",
    "Recipe",
    "check_parameters",
    "create_mechanism",
    "create_noise_off",
    "lineup",
    "mechanism_names",
    "mechanism_spec",
]


@dataclass(frozen=True)
class Recipe:
    """How a mechanism was made: its registry name and the parameters given. It is what another
    process (a Dask worker) receives to build the same mechanism once and keep it: embeddings
    and models travel as what they were loaded from, never as their matrices (see
    :attr:`authormask.embeddings.Embeddings.origin`).

    Attributes
    ----------
    name
        The mechanism's registered name.
    params
        The parameters given (those that are not None).
    noise_off
        Whether it is the mechanism's noise-off form (:func:`create_noise_off`).
    """

    name: str
    params: dict[str, Any]
    #: the mechanism's noise-off form (:func:`create_noise_off`)
    noise_off: bool = False

    def build(self) -> Mechanism:
        """A new mechanism built from the recipe.

        Returns
        -------
        Mechanism
            The mechanism (or its noise-off form).
        """
        if self.noise_off:
            return create_noise_off(self.name, **self.params)
        return create_mechanism(self.name, **self.params)


def recipe_of(mechanism: Mechanism) -> Recipe:
    """The :class:`Recipe` of a mechanism made by :func:`create_mechanism`."""
    recipe = mechanism.recipe
    if not isinstance(recipe, Recipe):
        raise InvalidParameterError(
            "this mechanism was not made by create_mechanism: the dask engine rebuilds it on "
            "each worker from its name and parameters"
        )
    return recipe


logger = logging.getLogger(__name__)

#: the entry point group another package registers its mechanisms in: each entry point's object
#: is a :class:`MechanismSpec`, or a callable of no argument that returns one
PLUGIN_GROUP = "authormask.mechanisms"

#: the built-in mechanisms, in their fixed order (their seed codes are 0 to 13): each an entry
#: point's "module:attribute" reference to its spec, which lies beside its class and its factory
#: in its mechanism's module, as a plugin's does. They are loaded as a plugin's entry points are
#: (:func:`_plugin_spec`), from this table and never from an installed package's metadata (an
#: install that is out of date keeps them all), the first time :data:`BUILTIN` is read
BUILTIN_ENTRY_POINTS: dict[str, str] = {
    "emp-bag": "authormask.mechanisms.earth_movers_spec:EMP_BAG",
    "emp-text": "authormask.mechanisms.earth_movers_spec:EMP_TEXT",
    "erae": "authormask.mechanisms.generation_spec:ERAE",
    "ae-dp": "authormask.mechanisms.generation_spec:AE_DP",
    "syntf": "authormask.mechanisms.generation_spec:SYNTF",
    "random-r": "authormask.mechanisms.generation_spec:RANDOM_R",
    "mahalanobis": "authormask.mechanisms.peers_spec:MAHALANOBIS",
    "tem": "authormask.mechanisms.peers_spec:TEM",
    "santext": "authormask.mechanisms.peers_spec:SANTEXT",
    "emp-doc": "authormask.mechanisms.document_spec:SPEC",
    "random-sub": "authormask.mechanisms.baselines_spec:SPEC",
    "emp-write": "authormask.mechanisms.written_spec:SPEC",
    "emp-sentence": "authormask.mechanisms.sentences_spec:SPEC",
    "emp-event": "authormask.mechanisms.events_spec:SPEC",
}


def _check_codes(specs: Mapping[str, MechanismSpec]) -> None:
    """Every registered mechanism has its own seed code (:attr:`MechanismSpec.code`)."""
    owners: dict[int, str] = {}
    for spec in specs.values():
        owner = owners.setdefault(spec.code, spec.name)
        if owner != spec.name:
            raise ValueError(f"mechanisms {owner} and {spec.name} have the same seed code")


def _builtin_specs(entry_points: Mapping[str, str]) -> dict[str, MechanismSpec]:
    """The specs ``entry_points`` (:data:`BUILTIN_ENTRY_POINTS`) refer to, in their order, each
    loaded as a plugin's (:func:`_plugin_spec`). A built-in mechanism that fails to load, or
    whose spec has another name or a seed code already taken, is an error of this package:
    raised, never skipped. Each is loaded as :meth:`importlib.metadata.EntryPoint.load` loads
    a ``module:attribute`` reference, without importing :mod:`importlib.metadata`."""
    specs: dict[str, MechanismSpec] = {}
    for name, value in entry_points.items():
        spec = _plugin_spec(_BuiltinEntryPoint(value))
        if spec.name != name:
            raise ValueError(f"built-in mechanism {name!r} ({value}) gives {spec.name!r}")
        specs[name] = spec
    _check_codes(specs)
    return specs


class _Loaded(Mapping[str, MechanismSpec]):
    """Specs by name, loaded the first time they are read (:meth:`_all`)."""

    #: the name its ``repr`` gives
    _shown = ""

    def _all(self) -> Mapping[str, MechanismSpec]:
        raise NotImplementedError

    def __getitem__(self, name: str) -> MechanismSpec:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __repr__(self) -> str:
        return f"{self._shown}({list(self._all())})"


class _Builtin(_Loaded):
    """The built-in mechanisms (:func:`_builtin_specs` of :data:`BUILTIN_ENTRY_POINTS`), loaded
    the first time they are read: importing the registry imports no mechanism module."""

    _shown = "BUILTIN"

    def __init__(self, entry_points: Mapping[str, str]) -> None:
        self._entry_points = entry_points
        self._specs: dict[str, MechanismSpec] | None = None

    def _all(self) -> Mapping[str, MechanismSpec]:
        if self._specs is None:
            self._specs = _builtin_specs(self._entry_points)
        return self._specs


#: the built-in mechanisms by name, in their fixed order (their seed codes are 0 to 13), loaded
#: from :data:`BUILTIN_ENTRY_POINTS` the first time it is read
BUILTIN: Mapping[str, MechanismSpec] = _Builtin(BUILTIN_ENTRY_POINTS)


class _BuiltinEntryPoint:
    """A built-in mechanism's ``module:attribute`` reference (:data:`BUILTIN_ENTRY_POINTS`)."""

    def __init__(self, value: str) -> None:
        self.value = value

    def load(self) -> Any:
        """The attribute, its module imported (:func:`pkgutil.resolve_name`)."""
        return pkgutil.resolve_name(self.value)


def _plugin_spec(entry_point: Any) -> MechanismSpec:
    """The spec entry point ``entry_point`` gives (its object, or what it returns when called)."""
    obj = entry_point.load()
    spec = obj if isinstance(obj, MechanismSpec) or not callable(obj) else obj()
    if not isinstance(spec, MechanismSpec):
        raise TypeError(f"it gives a {type(spec).__name__}, not a MechanismSpec")
    return spec


def load_plugins(
    builtin: Mapping[str, MechanismSpec], group: str = PLUGIN_GROUP
) -> dict[str, MechanismSpec]:
    """The mechanisms other packages register in entry point group ``group``
    (:data:`PLUGIN_GROUP`), in the order of their entry point names. A plugin that fails to
    load, gives no :class:`MechanismSpec`, or whose name or seed code (:attr:`MechanismSpec.code`)
    is already taken is skipped with one warning line naming it: a broken plugin never breaks
    the registry."""
    loaded: dict[str, MechanismSpec] = {}
    if not may_declare(group):  # none registers any (importlib.metadata not imported)
        return loaded
    from importlib.metadata import entry_points

    codes = {spec.code: name for name, spec in builtin.items()}
    for entry_point in sorted(entry_points(group=group), key=lambda e: (e.name, e.value)):
        where = f"mechanism plugin {entry_point.name!r} ({entry_point.value})"
        try:
            spec = _plugin_spec(entry_point)
        except Exception as exc:  # any error of another package's code
            reason = " ".join(f"{type(exc).__name__}: {exc}".split())
            logger.warning("authormask: warning: %s skipped: failed to load: %s", where, reason)
            continue
        if spec.name in builtin or spec.name in loaded:
            logger.warning(
                "authormask: warning: %s skipped: mechanism %r is already registered",
                where,
                spec.name,
            )
            continue
        if spec.code in codes:
            logger.warning(
                "authormask: warning: %s skipped: its seed code %d is %s's",
                where,
                spec.code,
                codes[spec.code],
            )
            continue
        codes[spec.code] = spec.name
        loaded[spec.name] = spec
    return loaded


class _Registry(_Loaded):
    """The registered mechanisms: the built-in ones, then those of plugins
    (:func:`load_plugins`), loaded the first time the registry is read."""

    _shown = "MECHANISMS"

    def __init__(self, builtin: Mapping[str, MechanismSpec]) -> None:
        self._builtin = builtin
        self._specs: dict[str, MechanismSpec] | None = None
        self._loading = False

    def _all(self) -> Mapping[str, MechanismSpec]:
        if self._specs is None:
            if self._loading:  # read while a plugin's module is imported: the built-in ones
                return self._builtin
            self._loading = True
            try:
                self._specs = {**self._builtin, **load_plugins(self._builtin)}
            finally:
                self._loading = False
        return self._specs


#: every registered mechanism by name: the built-in ones (:data:`BUILTIN`), then those other
#: packages register in entry point group :data:`PLUGIN_GROUP`, loaded on first read
MECHANISMS: Mapping[str, MechanismSpec] = _Registry(BUILTIN)


#: the mechanisms each evaluation protocol and front end runs when none are named, in the order
#: of its tables: Fernandes et al. (2019), Table 1 (bag and text); Bo et al. (2021), Table 1
#: (Random-R, AE-DP, SynTF, ER-AE, with Earth Mover's text mode beside them); the PAN protocol;
#: ``obfuscate`` (the paper's Algorithm 2) and the web page (readable text)
LINEUPS: dict[str, tuple[str, ...]] = {
    "fernandes2019": ("emp-bag", "emp-text"),
    "bo2021": ("random-r", "ae-dp", "syntf", "erae", "emp-text"),
    "pan": ("emp-write",),
    "obfuscate": ("emp-write",),
    "serve": ("emp-write",),
}


def lineup(name: str) -> tuple[str, ...]:
    """The default mechanisms of protocol or front end ``name`` (:data:`LINEUPS`).

    Parameters
    ----------
    name
        The protocol's or front end's name.

    Returns
    -------
    tuple[str, ...]
        The mechanisms' registered names.

    Raises
    ------
    InvalidParameterError
        If there is no line-up named ``name``.

    Examples
    --------
    >>> lineup("fernandes2019")
    ('emp-bag', 'emp-text')
    """
    try:
        return LINEUPS[name]
    except KeyError:
        raise InvalidParameterError(
            f"no line-up named {name!r}; choose one of {', '.join(LINEUPS)}"
        ) from None


def mechanism_names() -> tuple[str, ...]:
    """The registered names, in a fixed order.

    Returns
    -------
    tuple[str, ...]
        The names of :data:`MECHANISMS`.
    """
    return tuple(MECHANISMS)


def mechanism_spec(name: str) -> MechanismSpec:
    """The spec of the registered mechanism ``name``.

    Parameters
    ----------
    name
        The mechanism's registered name.

    Returns
    -------
    MechanismSpec
        Its spec.

    Raises
    ------
    InvalidParameterError
        If no mechanism is registered as ``name``.
    """
    try:
        return MECHANISMS[name]
    except KeyError:
        raise InvalidParameterError(
            f"unknown mechanism {name!r}; choose one of {', '.join(MECHANISMS)}"
        ) from None


class ParameterMismatchError(InvalidParameterError):
    """Parameters that mechanism ``mechanism`` does not take (``unknown``, with the names it
    ``takes``) or needs and was not given (``missing``)."""

    def __init__(
        self,
        mechanism: str,
        *,
        unknown: tuple[str, ...] = (),
        missing: tuple[str, ...] = (),
        takes: tuple[str, ...] = (),
    ) -> None:
        self.mechanism = mechanism
        self.unknown = unknown
        self.missing = missing
        self.takes = takes
        if unknown:
            message = (
                f"{mechanism} does not take {', '.join(repr(k) for k in unknown)}; it takes: "
                f"{', '.join(takes)}"
            )
        else:
            message = f"{mechanism} needs {', '.join(missing)}"
        super().__init__(message)


def check_parameters(name: str, /, **params: Any) -> dict[str, Any]:
    """The parameters of mechanism ``name`` with the defaults filled in, checked here, at the
    boundary every front end passes: every one is a parameter of its spec, every required one
    is given, and every value lies in what its :class:`Parameter` declares (one of its choices,
    a number in its interval, a whole number for an ``int``: :meth:`Parameter.check`, which
    also gives each number its type). A ``None`` value means the default.
    :func:`create_mechanism` calls it; what no interval can say (SanText's epsilon times its
    vocabulary's diameter, a model's vocabulary) is checked when the mechanism is built.

    Epsilon is checked by one function, :func:`authormask.validation.check_number`, which
    :meth:`Parameter.check` calls with the spec's interval; no front end has a rule of its own.
    The command line's ``--epsilon`` (to answer at once, before a mechanism is chosen) and a
    mechanism's or sampler's constructor (the guard of one built directly from Python) call the
    same function, through :func:`~authormask.validation.check_epsilon`.

    Raises :class:`ParameterMismatchError` (unknown or missing parameters) or
    ``InvalidParameterError`` (a value outside what its parameter allows, naming it between
    backquotes).

    Parameters
    ----------
    name
        The mechanism's registered name.
    **params
        The parameters given, by name.

    Returns
    -------
    dict[str, Any]
        Every parameter of the mechanism, checked, the defaults filled in.

    Examples
    --------
    >>> check_parameters("emp-text", epsilon=0)
    Traceback (most recent call last):
    ...
    authormask.exceptions.InvalidParameterError: `epsilon` must be a finite number > 0, got 0
    """
    return _checked(mechanism_spec(name), params)


def _checked(
    spec: MechanismSpec, params: dict[str, Any], *, without: tuple[str, ...] = ()
) -> dict[str, Any]:
    """:func:`check_parameters` of ``spec``, the parameters named in ``without`` (the
    noise-off form's ``epsilon``) neither required nor filled in."""
    allowed = tuple(p.name for p in spec.parameters if p.name not in without)
    unknown = tuple(k for k in params if k not in allowed)
    if unknown:
        raise ParameterMismatchError(spec.name, unknown=unknown, takes=allowed)
    missing = tuple(
        p.name
        for p in spec.parameters
        if p.required and p.name not in without and params.get(p.name) is None
    )
    if missing:
        raise ParameterMismatchError(spec.name, missing=missing)
    values: dict[str, Any] = {}
    for p in spec.parameters:
        if p.name in without:
            continue
        value = params.get(p.name)
        values[p.name] = p.default if value is None else p.check(value)
    for p in spec.parameters:
        if params.get(p.name) is not None and not spec.read(p, values):
            other, wanted = p.only_with or ("", "")
            raise InvalidParameterError(
                f"`{p.name}` is read only under `{other}` {wanted!r}, got {other} "
                f"{values[other]!r}: leave it out, or give {other} {wanted!r}"
            )
    return values


def create_mechanism(name: str, /, **params: Any) -> Mechanism:
    """Build the mechanism ``name`` with validated keyword-only parameters.

    Defaults are those of the mechanism's :class:`Parameter` specs (a ``None`` value means the
    default); see :data:`MECHANISMS` or ``authormask obfuscate --help``.

    Parameters
    ----------
    name
        The mechanism's registered name.
    **params
        Its parameters, by name (see :func:`check_parameters`).

    Returns
    -------
    Mechanism
        The mechanism, with its :class:`Recipe`.

    Examples
    --------
    >>> create_mechanism("emp-text", epsilon=10, lenght=5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    authormask.core.registry.ParameterMismatchError: emp-text does not take 'lenght'...
    """
    values = check_parameters(name, **params)
    spec = mechanism_spec(name)
    try:
        mechanism = spec.factory(values)
        if "entities" in values:  # names, numbers and links replaced before it runs
            mechanism = with_entities(mechanism, values)
    except InvalidParameterError as exc:
        raise _named(exc, spec) from None
    mechanism.recipe = Recipe(name, {k: v for k, v in params.items() if v is not None})
    return mechanism


#: the epsilon the factory builds a mechanism with before :meth:`~authormask.mechanisms._base.
#: Mechanism.without_noise` discards its samplers (the factories build every sampler from an
#: epsilon); the noise-off form keeps no sampler that reads it and says it has no epsilon
_BUILD_EPSILON = 1.0


def create_noise_off(name: str, /, **params: Any) -> Mechanism:
    """The mechanism ``name`` with its noise switched off (:class:`~authormask.mechanisms.
    _base.NoiseOff` of its :meth:`~authormask.mechanisms._base.Mechanism.without_noise`): its
    own preparation and rendering, every unit released as itself, no sampler run. The
    parameters are those of :func:`create_mechanism` but ``epsilon`` (there is no noise),
    checked the same way. It gives the text of the mechanism at epsilon -> infinity; it has
    no epsilon, and its statement says it has no guarantee. For evaluation baselines, never to
    protect a text.

    Raises ``InvalidParameterError`` for a mechanism whose spec declares no samplers
    (:attr:`MechanismSpec.samplers`) or if ``epsilon`` is given.

    Parameters
    ----------
    name
        The mechanism's registered name.
    **params
        Its parameters but ``epsilon``, by name.

    Returns
    -------
    Mechanism
        The noise-off form, with its :class:`Recipe`.

    Raises
    ------
    InvalidParameterError
        If the mechanism has no noise-off form, or ``epsilon`` is given.

    Examples
    --------
    >>> create_noise_off("erae", model="m")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    authormask.exceptions.InvalidParameterError: erae has no noise-off form without its sampler...
    """
    from authormask.mechanisms._base import NoiseOff

    spec = mechanism_spec(name)
    if not spec.has_noise_off:
        raise InvalidParameterError(
            f"{name} has no noise-off form without its sampler (its spec declares none)"
        )
    if params.get("epsilon") is not None:
        raise InvalidParameterError(f"the noise-off form of {name} takes no epsilon")
    given = {k: v for k, v in params.items() if k != "epsilon"}
    values = _checked(spec, given, without=("epsilon",))
    try:
        inner = spec.factory({**values, "epsilon": _BUILD_EPSILON})
        off: Mechanism = NoiseOff(inner)
        if "entities" in values:  # the noise is off, the entities are replaced as in a release
            off = with_entities(off, values)
    except InvalidParameterError as exc:
        raise _named(exc, spec) from None
    off.recipe = Recipe(name, {k: v for k, v in given.items() if v is not None}, noise_off=True)
    return off


def _named(exc: InvalidParameterError, spec: MechanismSpec) -> InvalidParameterError:
    """A parameter error raised while building a mechanism that does not name its parameter
    the library's way (``max length must be an integer >= 1``), with the parameter between
    backquotes (`` `max_length` must be ...``): every front end then shows it as its own (the
    command line: ``--max-length``). Any other error is returned as it is."""
    message = str(exc)
    if type(exc) is not InvalidParameterError or "`" in message:
        return exc
    for p in sorted(spec.parameters, key=lambda p: -len(p.name)):
        for form in (p.name, p.name.replace("_", " ")):
            if message.startswith(form + " "):
                return InvalidParameterError(f"`{p.name}`{message[len(form) :]}")
    return exc
