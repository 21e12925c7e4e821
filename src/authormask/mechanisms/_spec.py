"""What the registry knows of a mechanism, declared once: its public parameters
(:class:`Parameter`: typed intervals and choices, as scikit-learn's ``_parameter_constraints``,
checked by :meth:`Parameter.check` at the boundary, :func:`~authormask.core.registry.
check_parameters`) and its spec (:class:`MechanismSpec`: what it releases, what epsilon
measures, whether it is a baseline, its seed code, its noise-off form, its audit cases, its help
text), with the parameters several mechanisms share. Front ends read these declarations; none
infers what a mechanism is from its name or from the names of its parameters. Imports no numpy.

It lies below the mechanisms, which declare their specs beside their classes (a module of
:mod:`authormask.mechanisms` imports nothing of the release layer);
:mod:`authormask.core.specs` is where front ends and other packages import it from.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authormask.defaults import EVENT_EPSILON, RECOMMENDED_EPSILON, SENTENCE_EPSILON
from authormask.exceptions import InvalidParameterError
from authormask.validation import check_number, describe_interval, in_interval

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = [
    "COUNT_WORDS",
    "EPSILON_UNITS",
    "GUARANTEES",
    "KINDS",
    "RELEASES",
    "RESOURCES",
    "MechanismSpec",
    "Parameter",
]

#: what a parameter's value is (:attr:`Parameter.kind`): "text", "int", "number", "path" (a file
#: or folder) or "count" (an int, or one of :data:`COUNT_WORDS`)
KINDS = ("text", "int", "number", "path", "count")
#: the words a ``count`` parameter takes besides a whole number (``length`` 'shortest': the
#: smallest document of the release)
COUNT_WORDS = ("shortest",)
#: what a release is (:attr:`MechanismSpec.release`): "text" (readable text made of the input's
#: own words, each released where it stands: emp-text and its peers, emp-doc, emp-write,
#: random-sub), "bag" (a bag of N of the input's words, sorted: emp-bag) or "generated" (a token
#: sequence drawn afresh, not word by word from the input: ER-AE, AE-DP, SynTF, Random-R)
RELEASES = ("text", "bag", "generated")
#: what epsilon measures (:attr:`MechanismSpec.epsilon_per`): "word" (metric DP per word, with
#: the distance between word vectors), "token" (pure DP per output token) or "none" (no epsilon)
EPSILON_UNITS = ("word", "token", "none")
#: the kind of guarantee a mechanism declares (:attr:`MechanismSpec.guarantee`): "metric"
#: (metric DP: epsilon times a distance between units), "pure" (pure epsilon-DP per unit) or
#: "none" (no differential-privacy guarantee in epsilon: no epsilon)
GUARANTEES = ("metric", "pure", "none")
#: the guarantee a spec that declares none has, by what its epsilon measures (the built-ins'
#: convention, kept for specs written before :attr:`MechanismSpec.guarantee` was declared:
#: per word, distances between word vectors; per token, the exponential mechanism's pure DP)
_GUARANTEE_OF_UNIT = {"word": "metric", "token": "pure", "none": "none"}
#: what a front end holds and gives to the mechanisms that declare they need it
#: (:attr:`Parameter.resource`; :func:`~authormask.core.resources.resource_parameters`):
#: "embeddings" (word vectors: a name, a file or a loaded Embeddings), "vocabulary" (how many of
#: their most frequent words are kept), "model" (a trained model: of the spec's
#: :attr:`~MechanismSpec.model_kind` where it requires one; where it only may take one, the
#: model's words replace the embeddings') and "cache" (the folder of prepared files: parsed
#: vectors, vocabularies, emp-write's lexicon and writer classes)
RESOURCES = ("embeddings", "vocabulary", "model", "cache")


def _shown(value: Any) -> str:
    """``repr(value)`` for an error message: short, and never an error itself."""
    try:
        text = repr(value)
    except ValueError:  # an int of more than 4300 digits
        return "a number too large to print"
    return text if len(text) <= 80 else text[:77] + "..."


@dataclass(frozen=True)
class Parameter:
    """One public parameter of a mechanism (for validation, ``--help``, the page and APIs).

    A number's allowed values are an interval: ``minimum`` and ``maximum`` (either may be
    None: unbounded), each end closed unless ``exclusive_minimum`` / ``exclusive_maximum``
    (``epsilon``: (0, inf), ``rate``: [0, 1]); a text's may be ``choices``. :meth:`check` is
    the one check of a value against them, made once, when a front end's values reach the
    registry (:func:`~authormask.core.registry.check_parameters`).

    Attributes
    ----------
    name
        The parameter's name.
    help
        What it is, in one line.
    default
        Its default value.
    required
        Whether it must be given.
    choices
        The values a text parameter allows, or None.
    minimum
        The smallest value allowed, or (``exclusive_minimum``) the bound every value must exceed.
    exclusive_minimum
        Whether ``minimum`` itself is excluded.
    maximum
        The largest value allowed, or (``exclusive_maximum``) the bound every value stays below.
    exclusive_maximum
        Whether ``maximum`` itself is excluded.
    kind
        What a value is (:data:`KINDS`).
    only_with
        ``(parameter, value)``: read only when that parameter has that value, or None.
    resource
        The resource a front end supplies to it (:data:`RESOURCES`), or None: a value only the
        user gives.
    """

    name: str
    help: str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] | None = None
    #: the smallest value allowed, or (``exclusive_minimum``) the bound every value must exceed
    minimum: float | None = None
    exclusive_minimum: bool = False
    #: the largest value allowed, or (``exclusive_maximum``) the bound every value stays below
    maximum: float | None = None
    exclusive_maximum: bool = False
    #: what a value is (:data:`KINDS`), for front ends that read it from text and for
    #: :meth:`check`
    kind: str = "text"
    #: ``(parameter, value)``: this parameter is read only when the mechanism's parameter of
    #: that name has that value (``oov_map_to``: only under ``oov`` "map"), and a value given
    #: otherwise is refused; a mechanism without that parameter always reads it
    only_with: tuple[str, str] | None = None
    #: the resource a front end supplies to this parameter (:data:`RESOURCES`), or None: front
    #: ends decide what to pass from this declaration, never from the parameter's name
    resource: str | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"parameter {self.name}: kind must be one of {KINDS}")
        if self.resource is not None and self.resource not in RESOURCES:
            raise ValueError(f"parameter {self.name}: resource must be one of {RESOURCES}")
        if (self.minimum is not None or self.maximum is not None) and self.kind not in (
            "int",
            "number",
            "count",
        ):
            raise ValueError(f"parameter {self.name}: a range needs a numeric kind")

    def to_dict(self) -> dict[str, Any]:
        """JSON: every field (JSON Schema's names for the bounds: ``minimum`` or
        ``exclusive_minimum``, ``maximum`` or ``exclusive_maximum``); :meth:`from_dict` reads
        it back.

        Returns
        -------
        dict[str, Any]
            The parameter as JSON.
        """
        d: dict[str, Any] = {
            "name": self.name,
            "help": self.help,
            "kind": self.kind,
            "required": self.required,
        }
        if not self.required:
            d["default"] = self.default if _jsonable(self.default) else str(self.default)
        if self.choices is not None:
            d["choices"] = list(self.choices)
        if self.minimum is not None:  # JSON Schema's names: the bound is excluded or not
            d["exclusive_minimum" if self.exclusive_minimum else "minimum"] = self.minimum
        if self.maximum is not None:
            d["exclusive_maximum" if self.exclusive_maximum else "maximum"] = self.maximum
        if self.only_with is not None:
            d["only_with"] = {self.only_with[0]: self.only_with[1]}
        if self.resource is not None:
            d["resource"] = self.resource
        return d

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Parameter:
        """The parameter of :meth:`to_dict`'s ``d`` (a default that is not JSON comes back as
        its text).

        Parameters
        ----------
        d
            A dict of :meth:`to_dict`.

        Returns
        -------
        Parameter
            The parameter.
        """
        return cls(
            d["name"],
            d["help"],
            default=None if d["required"] else d["default"],
            required=d["required"],
            choices=tuple(d["choices"]) if "choices" in d else None,
            minimum=d.get("exclusive_minimum", d.get("minimum")),
            exclusive_minimum="exclusive_minimum" in d,
            maximum=d.get("exclusive_maximum", d.get("maximum")),
            exclusive_maximum="exclusive_maximum" in d,
            kind=d["kind"],
            only_with=next(iter(d["only_with"].items())) if "only_with" in d else None,
            resource=d.get("resource"),
        )

    def describe_range(self) -> str | None:
        """The allowed range in words (``> 0``, ``>= 1``, ``in [0, 1]``, ``<= 5``), or None.

        Returns
        -------
        str | None
            The range in words, or None for no bound.

        Examples
        --------
        >>> EPSILON.describe_range(), VOCAB.describe_range()
        ('> 0', '>= 1')
        """
        return describe_interval(
            self.minimum,
            self.maximum,
            exclusive_minimum=self.exclusive_minimum,
            exclusive_maximum=self.exclusive_maximum,
        )

    def contains(self, value: float) -> bool:
        """Whether number ``value`` lies in the parameter's interval.

        Parameters
        ----------
        value
            A number.

        Returns
        -------
        bool
            True if ``value`` is within the bounds.
        """
        return in_interval(
            value,
            self.minimum,
            self.maximum,
            exclusive_minimum=self.exclusive_minimum,
            exclusive_maximum=self.exclusive_maximum,
        )

    def check(self, value: Any) -> Any:
        """``value`` as the parameter takes it (a number as a float, a whole number as an int,
        a choice as itself), or ``InvalidParameterError``: one line that names the parameter
        between backquotes, what is allowed and the value. A value of a text or path parameter
        without choices (word vectors, a model, a word list: a name, a path or a loaded
        object) is the mechanism's to read and is returned as it is.

        Parameters
        ----------
        value
            The value given.

        Returns
        -------
        Any
            The value as the parameter takes it.

        Raises
        ------
        InvalidParameterError
            If the value is not one of the choices, or not a number in the interval.

        Examples
        --------
        >>> EPSILON.check(2)
        2.0
        >>> EPSILON.check(0)
        Traceback (most recent call last):
        ...
        authormask.exceptions.InvalidParameterError: `epsilon` must be a finite number > 0, got 0
        """
        if self.choices is not None:
            if isinstance(value, str) and value in self.choices:
                return value
            raise InvalidParameterError(
                f"`{self.name}` must be one of {', '.join(self.choices)}, got {_shown(value)} "
                f"({self.help})"
            )
        if self.kind == "number":
            return self._number(value)
        if self.kind == "int":
            return self._whole(value, words=())
        if self.kind == "count":
            return self._whole(value, words=COUNT_WORDS)
        return value

    def _refuse(self, what: str, value: Any) -> InvalidParameterError:
        bounds = self.describe_range()
        allowed = f"{what} {bounds}" if bounds else what
        return InvalidParameterError(f"`{self.name}` must be {allowed}, got {_shown(value)}")

    def _number(self, value: Any) -> float:
        """The one check of a number (:func:`~authormask.validation.check_number`) over this
        parameter's interval: epsilon's, given to any front end, is checked here."""
        return check_number(
            value,
            name=f"`{self.name}`",
            minimum=self.minimum,
            maximum=self.maximum,
            exclusive_minimum=self.exclusive_minimum,
            exclusive_maximum=self.exclusive_maximum,
        )

    def _whole(self, value: Any, *, words: tuple[str, ...]) -> int | str:
        what = "an integer"
        if words:
            what = f"{what} {self.describe_range()} or {' or '.join(repr(w) for w in words)}"
        if isinstance(value, str) and value in words:
            return value
        number: int | None = None
        if isinstance(value, bool):
            number = None
        elif isinstance(value, int):
            number = value
        elif isinstance(value, float):
            number = int(value) if value.is_integer() else None
        else:
            try:
                number = int(str(value))
            except ValueError:
                number = None
        if number is None or not self.contains(number):
            if words:
                raise InvalidParameterError(f"`{self.name}` must be {what}, got {_shown(value)}")
            raise self._refuse(what, value)
        return number


@dataclass(frozen=True)
class MechanismSpec:
    """Everything a front end needs to know of a mechanism, declared (never inferred from its
    name or from the names of its parameters): the command line's options and help, the page's
    controls, the audit's list, the statement and the evaluation protocols' line-ups read it.

    A mechanism registered from another package gives one of these and nothing else: its
    ``factory`` builds it, its ``audit`` names its audit cases, its ``help`` is its line in
    ``authormask obfuscate --help``.

    Attributes
    ----------
    name
        The registered name.
    title
        The mechanism's title.
    parameters
        Its public parameters.
    factory
        Builds the mechanism from its checked parameters (every one, defaults filled in).
    label
        The short name tables and plots show.
    release
        What the release is (:data:`RELEASES`): "text", "bag" or "generated".
    epsilon_per
        What epsilon measures (:data:`EPSILON_UNITS`): "word", "token" or "none".
    guarantee
        The kind of guarantee (:data:`GUARANTEES`): "metric", "pure" or "none"; "" (the
        default): the built-ins' convention for its ``epsilon_per`` (per word metric, per
        token pure).
    baseline
        True for a baseline with no differential-privacy guarantee.
    noise_parameter
        The parameter that sets how much noise there is, or None.
    seed_code
        The fixed code in the evaluations' seed derivations, or None (from the name's hash).
    samplers
        The samplers its noise-off form replaces by the identity (empty: no noise-off form).
    model_kind
        The kind of trained model it requires ("reward" or "plain"), or None.
    per_word_form
        The registry mechanism that applies the same per-word kernel in place, or None.
    audit
        Where its audit cases are: ``"module:function"``, or None.
    help
        Its line in ``authormask obfuscate --help`` (default: its title).
    """

    name: str
    title: str
    parameters: tuple[Parameter, ...]
    #: builds the mechanism from its checked parameters (every one, defaults filled in)
    factory: Callable[[dict[str, Any]], Mechanism]
    #: the short name tables and plots show
    label: str = ""
    #: what the release is (:data:`RELEASES`): "text", "bag" or "generated"
    release: str = "text"
    #: what epsilon measures (:data:`EPSILON_UNITS`): "word", "token" or "none". Epsilons per
    #: word and per token are on different scales and are never compared.
    epsilon_per: str = "none"
    #: the kind of guarantee epsilon parameterises (:data:`GUARANTEES`): "metric" (metric DP,
    #: epsilon times a distance between units), "pure" (pure epsilon-DP per unit) or "none";
    #: "" (the default) is read as the built-ins' convention for :attr:`epsilon_per` (per
    #: word: metric over word-vector distances; per token: pure), and stored as that. A
    #: mechanism whose guarantee is pure DP per word declares "pure".
    guarantee: str = ""
    #: True for a baseline with NO differential-privacy guarantee (``random-sub``): it exists to
    #: be compared with, on frontiers; the page never offers it to protect a text
    baseline: bool = False
    #: the parameter that sets how much noise there is, which an evaluation sweeps: "epsilon"
    #: (whenever ``epsilon_per`` is not "none"), a baseline's own (``random-sub``: "rate", 0 its
    #: noise-off form) or None (no noise to set: ``random-r``)
    noise_parameter: str | None = None
    #: the mechanism's fixed code in the evaluations' seed derivations (so a cell's noise never
    #: depends on the order in which mechanisms are listed or registered); None: the first 4
    #: bytes of the SHA-256 of its name (:attr:`code`), for a mechanism registered from another
    #: package. The built-in codes are 0 to 13 and never change: every seeded evaluation
    #: output depends on them.
    seed_code: int | None = None
    #: the mechanism's samplers (the per-word kernels), which its noise-off form replaces by
    #: the identity (:meth:`~authormask.mechanisms._base.Mechanism.without_noise`, then
    #: :func:`~authormask.core.registry.create_noise_off`), running the rest as it is
    #: (preparation, rendering); empty (the default): it has no noise-off form without its
    #: sampler, and an evaluation releases it at a very large epsilon instead
    samplers: tuple[str, ...] = ()
    #: the kind of trained model it requires (its ``model`` parameter): "reward" (a model
    #: trained with the embedding reward, ER-AE) or "plain" (without it, AE-DP); None: it
    #: requires none (``random-r`` may take any model's vocabulary)
    model_kind: str | None = None
    #: the registry mechanism that applies the same per-word kernel in place, keeping every
    #: word's position (``emp-bag``: ``emp-text``): a bag's word-change rate is measured on it
    per_word_form: str | None = None
    #: where its audit cases are: ``"module:function"``, a function of no argument that returns
    #: its :class:`~authormask.audit.case_spec.CaseSpec` tuple (the audit refuses to run without
    #: one); a name, not a function, so that the registry never imports the audit
    audit: str | None = None
    #: its line in ``authormask obfuscate --help`` (default: its title)
    help: str = ""

    def __post_init__(self) -> None:
        names = self.parameter_names
        where = f"mechanism spec {self.name!r}"
        if len(set(names)) != len(names):
            raise ValueError(f"{where}: a parameter is listed twice")
        if self.release not in RELEASES:
            raise ValueError(f"{where}: release must be one of {RELEASES}")
        if self.epsilon_per not in EPSILON_UNITS:
            raise ValueError(f"{where}: epsilon_per must be one of {EPSILON_UNITS}")
        if self.guarantee == "":
            object.__setattr__(self, "guarantee", _GUARANTEE_OF_UNIT[self.epsilon_per])
        if self.guarantee not in GUARANTEES:
            raise ValueError(f"{where}: guarantee must be one of {GUARANTEES}")
        if (self.guarantee == "none") != (self.epsilon_per == "none"):
            raise ValueError(
                f"{where}: a guarantee in epsilon (metric or pure) needs an epsilon unit "
                "(epsilon_per), and an epsilon unit a guarantee"
            )
        declared = [p.resource for p in self.parameters if p.resource is not None]
        if len(set(declared)) != len(declared):
            raise ValueError(f"{where}: a resource is declared by two parameters")
        if self.noise_parameter is not None and self.noise_parameter not in names:
            raise ValueError(f"{where}: noise_parameter {self.noise_parameter!r} is no parameter")
        if (self.epsilon_per != "none") != (self.noise_parameter == "epsilon"):
            raise ValueError(
                f"{where}: epsilon measures something (epsilon_per) exactly when epsilon sets "
                "the noise (noise_parameter 'epsilon')"
            )
        if ("epsilon" in names) != (self.noise_parameter == "epsilon"):
            raise ValueError(f"{where}: takes epsilon exactly when noise_parameter is 'epsilon'")
        if self.samplers and self.noise_parameter != "epsilon":
            raise ValueError(f"{where}: a noise-off form switches off an epsilon's samplers")
        if self.model_kind is not None and not any(
            p.resource == "model" and p.required for p in self.parameters
        ):
            raise ValueError(f"{where}: a model kind needs a required parameter of the model")
        if self.audit is not None and self.audit.count(":") != 1:
            raise ValueError(f"{where}: audit must be 'module:function'")

    @property
    def privacy(self) -> str | None:
        """The kind of guarantee epsilon parameterises, as the spec declares it
        (:attr:`guarantee`): "metric", "pure" or None (no epsilon)."""
        return None if self.guarantee == "none" else self.guarantee

    @property
    def resources(self) -> tuple[str, ...]:
        """The resources it declares it needs (:data:`RESOURCES`), in its parameters' order."""
        return tuple(p.resource for p in self.parameters if p.resource is not None)

    def resource_parameter(self, resource: str) -> Parameter | None:
        """The parameter that takes ``resource`` (:data:`RESOURCES`), or None.

        Parameters
        ----------
        resource
            A resource.

        Returns
        -------
        Parameter | None
            Its parameter, or None if the mechanism does not declare it.
        """
        return next((p for p in self.parameters if p.resource == resource), None)

    @property
    def takes_epsilon(self) -> bool:
        """Whether epsilon sets its noise (:attr:`noise_parameter`)."""
        return self.noise_parameter == "epsilon"

    @property
    def sweeps_rate(self) -> bool:
        """Whether an evaluation sweeps it over rates instead of epsilons: a baseline whose
        noise is set by its ``rate`` (``random-sub``; not ``random-r``, which has no noise to
        set)."""
        return self.baseline and self.noise_parameter == "rate"

    @property
    def word_level(self) -> bool:
        """Whether it releases the input's own words, in place or as a bag (:attr:`release`
        "text" or "bag"), rather than a generated sequence."""
        return self.release in ("text", "bag")

    @property
    def has_noise_off(self) -> bool:
        """Whether :func:`~authormask.core.registry.create_noise_off` can build this
        mechanism without its samplers."""
        return bool(self.samplers)

    @property
    def code(self) -> int:
        """Its code in seed derivations: :attr:`seed_code`, or the first 4 bytes of the SHA-256
        of its name where none is declared."""
        if self.seed_code is not None:
            return self.seed_code
        return int.from_bytes(hashlib.sha256(self.name.encode()).digest()[:4], "big")

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def parameter(self, name: str) -> Parameter | None:
        """Its parameter ``name``, or None if it takes none of that name.

        Parameters
        ----------
        name
            The parameter's name.

        Returns
        -------
        Parameter | None
            The parameter, or None.
        """
        return next((p for p in self.parameters if p.name == name), None)

    def read(self, p: Parameter, values: Mapping[str, Any]) -> bool:
        """Whether it reads parameter ``p`` given the other ``values`` (each parameter not in
        them at its default): always, unless ``p`` is declared :attr:`Parameter.only_with`
        another parameter's value that it does not have.

        Parameters
        ----------
        p
            One of its parameters.
        values
            The other parameters' values, by name.

        Returns
        -------
        bool
            Whether the mechanism reads ``p``.
        """
        if p.only_with is None:
            return True
        other = self.parameter(p.only_with[0])
        if other is None:
            return True
        return bool(values.get(other.name, other.default) == p.only_with[1])

    def applicable(self, params: Mapping[str, Any]) -> dict[str, Any]:
        """``params`` without those it does not read (:meth:`read`): what an evaluation gives
        every mechanism that takes a parameter (its fixed word for unknown words) reaches only
        the mechanisms that read it.

        Parameters
        ----------
        params
            Parameter values, by name.

        Returns
        -------
        dict[str, Any]
            Those it reads (and those it does not take, for its check to refuse).
        """
        return {
            k: v
            for k, v in params.items()
            if (p := self.parameter(k)) is None or self.read(p, params)
        }

    def describe(self) -> str:
        """Its line in a command's help: ``name: help``.

        Returns
        -------
        str
            ``name: help`` (or the title).
        """
        return f"{self.name}: {self.help or self.title}"

    def to_dict(self) -> dict[str, Any]:
        """JSON: every declaration but the factory (:meth:`from_dict` reads it back, given the
        factory).

        Returns
        -------
        dict[str, Any]
            The spec as JSON.
        """
        return {
            "name": self.name,
            "title": self.title,
            "label": self.label,
            "help": self.help,
            "release": self.release,
            "epsilon_per": self.epsilon_per,
            "guarantee": self.guarantee,
            "privacy": self.privacy,
            "resources": list(self.resources),
            "baseline": self.baseline,
            "noise_parameter": self.noise_parameter,
            "seed_code": self.seed_code,
            "samplers": list(self.samplers),
            "model_kind": self.model_kind,
            "per_word_form": self.per_word_form,
            "audit": self.audit,
            "parameters": [p.to_dict() for p in self.parameters],
        }

    @classmethod
    def from_dict(
        cls, d: Mapping[str, Any], *, factory: Callable[[dict[str, Any]], Mechanism]
    ) -> MechanismSpec:
        """The spec of :meth:`to_dict`'s ``d``, built by ``factory``.

        Parameters
        ----------
        d
            A dict of :meth:`to_dict`.
        factory
            Builds the mechanism from its checked parameters.

        Returns
        -------
        MechanismSpec
            The spec.
        """
        return cls(
            d["name"],
            d["title"],
            tuple(Parameter.from_dict(p) for p in d["parameters"]),
            factory,
            label=d["label"],
            help=d["help"],
            release=d["release"],
            epsilon_per=d["epsilon_per"],
            guarantee=d.get("guarantee", ""),
            baseline=d["baseline"],
            noise_parameter=d["noise_parameter"],
            seed_code=d["seed_code"],
            samplers=tuple(d["samplers"]),
            model_kind=d["model_kind"],
            per_word_form=d["per_word_form"],
            audit=d["audit"],
        )


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


# --- shared parameters ------------------------------------------------------------------------

EPSILON = Parameter(
    "epsilon",
    "privacy parameter per unit (> 0); smaller is more private",
    required=True,
    minimum=0.0,
    exclusive_minimum=True,
    kind="number",
)
#: ``emp-write``'s epsilon: the same, with the recommended start as its default
RECOMMENDED = Parameter(
    "epsilon",
    f"privacy parameter per content word (> 0); smaller is more private; default "
    f"{RECOMMENDED_EPSILON:g}, the recommended start for readable text",
    default=RECOMMENDED_EPSILON,
    minimum=0.0,
    exclusive_minimum=True,
    kind="number",
)
#: ``emp-sentence``'s epsilon: the same, with the point chosen on pan19-en as its default
SENTENCE_RECOMMENDED = Parameter(
    "epsilon",
    f"privacy parameter per noun (> 0; each sentence gets sentence_weight times it, each name "
    f"name_weight times it); smaller is more private; default {SENTENCE_EPSILON:g}, chosen on "
    "pan19-en's tuning problems",
    default=SENTENCE_EPSILON,
    minimum=0.0,
    exclusive_minimum=True,
    kind="number",
)
EVENT_RECOMMENDED = Parameter(
    "epsilon",
    f"privacy parameter per unit of word distance at every agent, theme and verb (> 0; each "
    f"name gets name_weight times it, each frame frame_weight times it); smaller is more "
    f"private; default {EVENT_EPSILON:g}",
    default=EVENT_EPSILON,
    minimum=0.0,
    exclusive_minimum=True,
    kind="number",
)
EMBEDDINGS = Parameter(
    "embeddings",
    "word vectors: a packaged name, a vector file path, or a loaded Embeddings",
    default="glove-6b-50d",
    resource="embeddings",
)
VOCAB = Parameter(
    "vocab_size",
    "keep the K most frequent words of the embeddings",
    default=100_000,
    minimum=1,
    kind="int",
    resource="vocabulary",
)
CACHE = Parameter(
    "cache_dir",
    "where parsed vector files are cached",
    default=None,
    kind="path",
    resource="cache",
)
STOPWORDS = Parameter(
    "stopwords", "'english', 'none', a file of words, or a set of words", default="english"
)
OOV_MAP_TO = Parameter(
    "oov_map_to",
    "under oov 'map', the fixed vocabulary word unknown words become; default: for each, a "
    "content word drawn at random (Zipf), never a fixed placeholder",
    default=None,
    only_with=("oov", "map"),
)
MODEL = Parameter(
    "model",
    "a model directory of `authormask train erae` or a loaded model",
    required=True,
    kind="path",
    resource="model",
)
BATCH = Parameter("batch_size", "segments per model pass", default=256, minimum=1, kind="int")
OUTPUT_SIZE = Parameter(
    "output_size",
    "output words (the embeddings' most frequent)",
    default=20_000,
    minimum=1,
    kind="int",
)
MAX_LENGTH = Parameter("max_length", "tokens per segment", default=50, minimum=1, kind="int")
TEXT_OOV = Parameter(
    "oov",
    "unknown words: map (perturb a fixed word in their place) or keep (NOT protected); drop "
    "would leave holes",
    default="map",
    choices=("map", "keep"),
)
#: the parameters of every in-place word-level text mechanism (emp-text and its peers)
TEXT_PARAMETERS = (EPSILON, EMBEDDINGS, VOCAB, CACHE, STOPWORDS, TEXT_OOV, OOV_MAP_TO)
DECODER = Parameter(
    "decoder",
    "how a noisy vector becomes a word: nearest (the paper's) or posterior (the most probable "
    "word under a public frequency prior; post-processing, same guarantee)",
    default="nearest",
    choices=("nearest", "posterior"),
)
#: emp-doc decodes with the posterior by default (it is not the paper's mechanism)
DOC_DECODER = Parameter(
    "decoder",
    "how a noisy vector becomes a word: posterior (the most probable word under a public "
    "frequency prior; post-processing, same guarantee) or nearest (the paper's)",
    default="posterior",
    choices=("nearest", "posterior"),
)
FUNCTION_WORDS = Parameter(
    "stopwords",
    "the function words, perturbed within their own class: 'english', a file of words, or a "
    "set of words",
    default="english",
)
MARKS = Parameter(
    "marks",
    "punctuation: canonical (each mark normalised, runs reduced) or minimal (every sentence "
    "end as '.', every other mark but quotes as ',')",
    default="minimal",
    choices=("canonical", "minimal"),
)
#: the canonical skeleton's parameters (emp-doc and random-sub)
CANONICAL_PARAMETERS = (EMBEDDINGS, VOCAB, CACHE, FUNCTION_WORDS, OOV_MAP_TO, MARKS)
#: what is done with names, numbers and links before the mechanism runs (every mechanism that
#: reads the text takes it; random-r releases no word of it)
ENTITIES = Parameter(
    "entities",
    "names, places, organisations, numbers, dates, e-mail addresses, URLs, phone numbers, "
    "handles, hashtags and codes, "
    "before the mechanism runs: surrogate (each replaced by a random one of its type from "
    "public lists, drawn afresh for every document), mask (replaced by its type, [PERSON]) or "
    "keep (given to the mechanism; NOT protected beyond its noise)",
    default="surrogate",
    choices=("surrogate", "keep", "mask"),
)
