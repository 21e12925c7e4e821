"""The registry of release mechanisms: ``create_mechanism(name, **params)``.

Names are the same everywhere (the CLI's ``--mechanism``, the library, every report):

=========== =====================================================================
emp-bag     Earth Mover's privacy, Algorithm 2: a bag of N noisy words
emp-text    Earth Mover's privacy in place: every content word, skeleton kept
erae        ER-AE: exponential mechanism over a model trained with the reward
ae-dp       AE-DP: the same over a model trained without it
syntf       SynTF: exponential mechanism over word-vector similarity
random-r    Random-R: uniform tokens (0-DP in the words)
mahalanobis Mahalanobis mechanism (Xu et al. 2020): elliptical noise, in place
tem         TEM (Carvalho et al. 2021): truncated exponential mechanism, in place
santext     SanText (Yue et al. 2021): exponential mechanism over distances, in place
emp-doc     Earth Mover's privacy on every word of a canonical skeleton
random-sub  baseline: each word replaced by a random one with probability rate (NO DP)
=========== =====================================================================

Parameters are keyword-only and validated here, in one place; a parameter a mechanism does not
take is refused with the list of those it does. Models and embeddings are loaded and wired in
here, so mechanisms never import them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from authormask.defaults import DEFAULT_LENGTH, DEFAULT_REGULARIZATION
from authormask.exceptions import InvalidParameterError

if TYPE_CHECKING:  # the registry imports no numpy: the command line reads its parameters
    from authormask.mechanisms._base import Mechanism

__all__ = [
    "LINEUPS",
    "MECHANISMS",
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
class Parameter:
    """One public parameter of a mechanism (for validation messages, ``--help`` and APIs)."""

    name: str
    help: str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] | None = None
    minimum: float | None = None
    #: what a value is, for front ends that read it from text: "text", "int", "number", "path"
    #: (a file or folder), or "count" (an int, or the word 'shortest' where the help says so);
    #: its range is checked by :func:`create_mechanism`, never by the front end
    kind: str = "text"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"name": self.name, "help": self.help, "required": self.required}
        if not self.required:
            d["default"] = self.default if _jsonable(self.default) else str(self.default)
        if self.choices is not None:
            d["choices"] = list(self.choices)
        if self.minimum is not None:
            d["minimum"] = self.minimum
        return d


@dataclass(frozen=True)
class MechanismSpec:
    name: str
    title: str
    parameters: tuple[Parameter, ...]
    factory: Callable[[dict[str, Any]], Mechanism]
    #: the short name tables and plots show
    label: str = ""
    #: the kind of guarantee epsilon parameterises: "metric" (metric DP, per word, with a
    #: distance between word vectors), "pure" (pure DP, per output token) or None (no epsilon).
    #: Epsilons of different kinds are on different scales and are never compared.
    privacy: str | None = None
    #: True for a baseline with NO differential-privacy guarantee (``random-sub``): it exists to
    #: be compared with, on frontiers; the page never offers it to protect a text
    baseline: bool = False
    #: the mechanism's samplers: the attributes that hold its per-word kernels. Its noise-off
    #: form (:func:`create_noise_off`) replaces each by the identity and runs the rest as it is
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

    @property
    def has_noise_off(self) -> bool:
        """Whether :func:`create_noise_off` can build this mechanism without its sampler."""
        return bool(self.samplers)

    @property
    def parameter_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.parameters)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "title": self.title,
            "label": self.label,
            "privacy": self.privacy,
            "baseline": self.baseline,
            "parameters": [p.to_dict() for p in self.parameters],
        }


@dataclass(frozen=True)
class Recipe:
    """How a mechanism was made: its registry name and the parameters given. It is what another
    process (a Dask worker) receives to build the same mechanism once and keep it: embeddings
    and models travel as what they were loaded from, never as their matrices (see
    :attr:`authormask.embeddings.Embeddings.origin`)."""

    name: str
    params: dict[str, Any]
    #: the mechanism's noise-off form (:func:`create_noise_off`)
    noise_off: bool = False

    def build(self) -> Mechanism:
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


def _jsonable(value: Any) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


# --- shared parameters ------------------------------------------------------------------------

_EPSILON = Parameter(
    "epsilon",
    "privacy parameter per unit (> 0); smaller is more private",
    required=True,
    minimum=0.0,
    kind="number",
)
_EMBEDDINGS = Parameter(
    "embeddings",
    "word vectors: a packaged name, a vector file path, or a loaded Embeddings",
    default="glove-6b-50d",
)
_VOCAB = Parameter(
    "vocab_size",
    "keep the K most frequent words of the embeddings",
    default=100_000,
    minimum=1,
    kind="int",
)
_CACHE = Parameter("cache_dir", "where parsed vector files are cached", default=None, kind="path")
_STOPWORDS = Parameter(
    "stopwords", "'english', 'none', a file of words, or a set of words", default="english"
)
_OOV_MAP_TO = Parameter(
    "oov_map_to",
    "the fixed vocabulary word unknown words become under oov 'map'",
    default="unknown",
)
_MODEL = Parameter(
    "model",
    "a model directory of `authormask train erae` or a loaded model",
    required=True,
    kind="path",
)
_BATCH = Parameter("batch_size", "segments per model pass", default=256, minimum=1, kind="int")
_OUTPUT_SIZE = Parameter(
    "output_size",
    "output words (the embeddings' most frequent)",
    default=20_000,
    minimum=1,
    kind="int",
)
_MAX_LENGTH = Parameter("max_length", "tokens per segment", default=50, minimum=1, kind="int")
_TEXT_OOV = Parameter(
    "oov",
    "unknown words: map (perturb a fixed word in their place) or keep (NOT protected); drop "
    "would leave holes",
    default="map",
    choices=("map", "keep"),
)
#: the parameters of every in-place word-level text mechanism (emp-text and its peers)
_TEXT_PARAMETERS = (_EPSILON, _EMBEDDINGS, _VOCAB, _CACHE, _STOPWORDS, _TEXT_OOV, _OOV_MAP_TO)
_DECODER = Parameter(
    "decoder",
    "how a noisy vector becomes a word: nearest (the paper's) or posterior (the most probable "
    "word under a public frequency prior; post-processing, same guarantee)",
    default="nearest",
    choices=("nearest", "posterior"),
)
#: emp-doc decodes with the posterior by default (it is not the paper's mechanism)
_DOC_DECODER = Parameter(
    "decoder",
    "how a noisy vector becomes a word: posterior (the most probable word under a public "
    "frequency prior; post-processing, same guarantee) or nearest (the paper's)",
    default="posterior",
    choices=("nearest", "posterior"),
)
_FUNCTION_WORDS = Parameter(
    "stopwords",
    "the function words, perturbed within their own class: 'english', a file of words, or a "
    "set of words",
    default="english",
)
_MARKS = Parameter(
    "marks",
    "punctuation: canonical (each mark normalised, runs reduced) or minimal (every sentence "
    "end as '.', every other mark but quotes as ',')",
    default="minimal",
    choices=("canonical", "minimal"),
)
#: the canonical skeleton's parameters (emp-doc and random-sub)
_CANONICAL_PARAMETERS = (_EMBEDDINGS, _VOCAB, _CACHE, _FUNCTION_WORDS, _OOV_MAP_TO, _MARKS)


def _embeddings(value: Any, vocab_size: int | None, cache_dir: Any) -> Any:
    from authormask.embeddings import Embeddings, load_embeddings
    from authormask.validation import check_positive_int

    if vocab_size is not None:
        vocab_size = check_positive_int(vocab_size, name="vocab_size")
    if isinstance(value, Embeddings):
        return value.restrict(vocab_size)
    if not isinstance(value, (str, Path)):
        raise InvalidParameterError(
            f"embeddings must be a name, a path or an Embeddings object, got {value!r}"
        )
    return load_embeddings(
        str(value), vocab_size=vocab_size, cache_dir=cache_dir if cache_dir else "default"
    )


def _stopwords(value: Any) -> tuple[frozenset[str], str]:
    from authormask.text import load_stopwords

    if isinstance(value, (str, Path)):
        return load_stopwords(str(value))
    if isinstance(value, (set, frozenset, list, tuple)):
        from authormask.text.stopwords import describe_stopwords

        words = frozenset(str(w).lower() for w in value)
        return words, describe_stopwords(words, "a custom list")
    raise InvalidParameterError(
        f"stopwords must be a name, a file or a set of words, got {value!r}"
    )


def _preparer(p: dict[str, Any]) -> tuple[Any, str]:
    from authormask.text import TextPreparer

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    words, described = _stopwords(p["stopwords"])
    return TextPreparer(emb, stopwords=words, oov=p["oov"], oov_map_to=p["oov_map_to"]), described


def _canonical(p: dict[str, Any]) -> tuple[Any, str]:
    from authormask.text.canonical import CanonicalPreparer

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    words, described = _stopwords(p["stopwords"])
    if not any(w in emb for w in words):
        raise InvalidParameterError(
            "the function-word list has no word with a vector in these embeddings (stopwords "
            "'none' leaves no class to perturb function words in)"
        )
    preparer = CanonicalPreparer(
        emb, function_words=words, oov_map_to=p["oov_map_to"], marks=p["marks"]
    )
    return preparer, described


def _emp_doc(p: dict[str, Any]) -> Mechanism:
    from authormask.mechanisms.document import EMPDoc

    preparer, described = _canonical(p)
    return EMPDoc(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        function_words_description=described,
        function_epsilon=p["function_epsilon"],
        decoder=p["decoder"],
    )


def _random_sub(p: dict[str, Any]) -> Mechanism:
    from authormask.mechanisms.baselines import RandomSubstitution

    preparer, described = _canonical(p)
    return RandomSubstitution(
        embeddings=preparer.embeddings,
        rate=p["rate"],
        preparer=preparer,
        function_words_description=described,
    )


def _emp_bag(p: dict[str, Any]) -> Mechanism:
    from authormask.mechanisms.earth_movers import EMPBag

    preparer, described = _preparer(p)
    return EMPBag(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        stopwords_description=described,
        length=p["length"],
        fixed_length=p["fixed_length"],
        decoder=p["decoder"],
    )


def _emp_text(p: dict[str, Any]) -> Mechanism:
    from authormask.mechanisms.earth_movers import EMPText

    preparer, described = _preparer(p)
    return EMPText(
        embeddings=preparer.embeddings,
        epsilon=p["epsilon"],
        preparer=preparer,
        stopwords_description=described,
        decoder=p["decoder"],
    )


def _peer_text(name: str) -> Callable[[dict[str, Any]], Mechanism]:
    """A peer word-level mechanism of :mod:`authormask.mechanisms.peers`, in place like
    emp-text; its own parameter (``regularization``, ``gamma``) is passed when it has one."""

    def factory(p: dict[str, Any]) -> Mechanism:
        from authormask.mechanisms import peers

        cls = {"mahalanobis": peers.MahalanobisText, "tem": peers.TEMText, "santext": peers.SanText}
        preparer, described = _preparer(p)
        own = {k: p[k] for k in ("regularization", "gamma") if k in p}
        mech: Mechanism = cls[name](
            embeddings=preparer.embeddings,
            epsilon=p["epsilon"],
            preparer=preparer,
            stopwords_description=described,
            **own,
        )
        return mech

    return factory


def _load_model(model: Any, *, reward: bool | None = None, name: str = "") -> Any:
    from authormask.models.erae import ERAEModel, load_model

    if isinstance(model, (str, Path)):
        model = load_model(model)
    if not isinstance(model, ERAEModel):
        raise InvalidParameterError(
            f"model must be a model directory or a loaded model, got {model!r}"
        )
    if reward is not None and bool(model.config.uses_reward) != reward:
        other = "ae-dp" if reward else "erae"
        raise InvalidParameterError(
            f"the model was trained {'without' if reward else 'with'} the embedding reward: "
            f"it is an {other} model, not {name}"
        )
    return model


def _token_model(reward: bool, name: str) -> Callable[[dict[str, Any]], Mechanism]:
    def factory(p: dict[str, Any]) -> Mechanism:
        from authormask.mechanisms.generation import ERAEMechanism

        model = _load_model(p["model"], reward=reward, name=name)
        return ERAEMechanism(model, epsilon=p["epsilon"], batch_size=p["batch_size"])

    return factory


def _syntf(p: dict[str, Any]) -> Mechanism:
    from authormask.mechanisms.generation import SynTFMechanism

    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    return SynTFMechanism(
        emb, epsilon=p["epsilon"], output_size=p["output_size"], max_length=p["max_length"]
    )


def _random_r(p: dict[str, Any]) -> Mechanism:
    from authormask.mechanisms.generation import RandomReplacement
    from authormask.validation import check_positive_int

    if p["model"] is not None:
        model = _load_model(p["model"])
        length = model.config.max_length if p["max_length"] is None else p["max_length"]
        return RandomReplacement(model.vocab.words, max_length=length)
    size = check_positive_int(p["output_size"], name="`output_size`")
    emb = _embeddings(p["embeddings"], p["vocab_size"], p["cache_dir"])
    length = 50 if p["max_length"] is None else p["max_length"]
    return RandomReplacement(emb.words[:size], max_length=length)


MECHANISMS: dict[str, MechanismSpec] = {
    spec.name: spec
    for spec in (
        MechanismSpec(
            "emp-bag",
            "Earth Mover's privacy (Fernandes et al. 2019, Algorithm 2): a bag of N noisy words",
            (
                _EPSILON,
                _EMBEDDINGS,
                _VOCAB,
                _CACHE,
                Parameter(
                    "length",
                    "N, the number of words per bag (a public parameter), or 'shortest' (the "
                    "smallest document of the release; the statement says what that reveals)",
                    default=DEFAULT_LENGTH,
                    minimum=1,
                    kind="count",
                ),
                Parameter(
                    "fixed_length",
                    "truncate (first N content words) or sample (N draws with replacement)",
                    default="truncate",
                    choices=("truncate", "sample"),
                ),
                _STOPWORDS,
                Parameter(
                    "oov",
                    "unknown words: drop, keep (NOT protected) or map",
                    default="drop",
                    choices=("drop", "keep", "map"),
                ),
                _OOV_MAP_TO,
                _DECODER,
            ),
            _emp_bag,
            label="Earth Mover's (bag)",
            privacy="metric",
            samplers=("kernel",),
            per_word_form="emp-text",
        ),
        MechanismSpec(
            "emp-text",
            "Earth Mover's privacy in place: every content word perturbed, the skeleton kept",
            (*_TEXT_PARAMETERS, _DECODER),
            _emp_text,
            label="Earth Mover's (text)",
            privacy="metric",
            samplers=("kernel",),
        ),
        MechanismSpec(
            "erae",
            "ER-AE (Bo et al. 2021): tokens drawn by the exponential mechanism from a model "
            "trained with the embedding reward",
            (_EPSILON, _MODEL, _BATCH),
            _token_model(True, "erae"),
            label="ER-AE",
            privacy="pure",
            model_kind="reward",
        ),
        MechanismSpec(
            "ae-dp",
            "AE-DP: tokens drawn by the exponential mechanism from a model trained without the "
            "embedding reward",
            (_EPSILON, _MODEL, _BATCH),
            _token_model(False, "ae-dp"),
            label="AE-DP",
            privacy="pure",
            model_kind="plain",
        ),
        MechanismSpec(
            "syntf",
            "SynTF: tokens drawn by the exponential mechanism over word-vector similarity",
            (_EPSILON, _EMBEDDINGS, _VOCAB, _CACHE, _OUTPUT_SIZE, _MAX_LENGTH),
            _syntf,
            label="SynTF",
            privacy="pure",
        ),
        MechanismSpec(
            "random-r",
            "Random-R: uniform tokens from a fixed vocabulary (0-DP in the words)",
            (
                Parameter(
                    "model",
                    "take the output vocabulary and segment length from this model",
                    kind="path",
                ),
                _EMBEDDINGS,
                _VOCAB,
                _CACHE,
                _OUTPUT_SIZE,
                Parameter(
                    "max_length",
                    "tokens per segment (default: the model's, or 50)",
                    default=None,
                    minimum=1,
                    kind="int",
                ),
            ),
            _random_r,
            label="Random-R",
            privacy=None,
        ),
        # the peer mechanisms come after the first six: a mechanism's index in this table is
        # its fixed code in the evaluation's seed derivations
        MechanismSpec(
            "mahalanobis",
            "Mahalanobis mechanism (Xu et al. 2020): elliptical noise shaped by the vectors' "
            "regularized covariance, every content word replaced in place",
            (
                *_TEXT_PARAMETERS,
                Parameter(
                    "regularization",
                    "lambda in [0, 1]: the noise is shaped by lambda*Sigma + (1 - lambda)*I, "
                    "Sigma the vectors' covariance scaled to trace n (0: Earth Mover's noise)",
                    default=DEFAULT_REGULARIZATION,
                    minimum=0.0,
                    kind="number",
                ),
            ),
            _peer_text("mahalanobis"),
            label="Mahalanobis",
            privacy="metric",
            samplers=("kernel",),
        ),
        MechanismSpec(
            "tem",
            "TEM (Carvalho et al. 2021): truncated exponential mechanism over Euclidean "
            "distances, every content word replaced in place",
            (
                *_TEXT_PARAMETERS,
                Parameter(
                    "gamma",
                    "truncation threshold (> 0): words farther than gamma all get the weight of "
                    "gamma; default (2/epsilon) ln((1 - beta)(K - 1)/beta), beta = 0.001",
                    default=None,
                    minimum=0.0,
                    kind="number",
                ),
            ),
            _peer_text("tem"),
            label="TEM",
            privacy="metric",
            samplers=("kernel",),
        ),
        MechanismSpec(
            "santext",
            "SanText (Yue et al. 2021): exponential mechanism over Euclidean distances of word "
            "vectors, every content word replaced in place",
            _TEXT_PARAMETERS,
            _peer_text("santext"),
            label="SanText",
            privacy="metric",
            samplers=("kernel",),
        ),
        MechanismSpec(
            "emp-doc",
            "Earth Mover's privacy on every word of a canonical skeleton: content words over the "
            "vocabulary, function words within their class; layout, marks and casing normalised",
            (
                _EPSILON,
                Parameter(
                    "function_epsilon",
                    "epsilon per function word (> 0; default: epsilon / 4: function words carry "
                    "style more than meaning)",
                    default=None,
                    minimum=0.0,
                    kind="number",
                ),
                *_CANONICAL_PARAMETERS,
                _DOC_DECODER,
            ),
            _emp_doc,
            label="Earth Mover's (doc)",
            privacy="metric",
            samplers=("kernel", "function_kernel"),
        ),
        MechanismSpec(
            "random-sub",
            "Baseline with NO differential privacy: each word of the canonical skeleton replaced "
            "with probability rate by a uniformly random word of its class",
            (
                Parameter(
                    "rate",
                    "probability in [0, 1] that a word is replaced (0: the canonical form)",
                    required=True,
                    minimum=0.0,
                    kind="number",
                ),
                *_CANONICAL_PARAMETERS,
            ),
            _random_sub,
            label="Random substitution",
            privacy=None,
            baseline=True,
        ),
    )
}


#: the mechanisms each evaluation protocol and front end runs when none are named, in the order
#: of its tables: Fernandes et al. (2019), Table 1 (bag and text); Bo et al. (2021), Table 1
#: (Random-R, AE-DP, SynTF, ER-AE, with Earth Mover's text mode beside them); the PAN protocol;
#: ``obfuscate`` (the paper's Algorithm 2) and the web page (readable text)
LINEUPS: dict[str, tuple[str, ...]] = {
    "fernandes2019": ("emp-bag", "emp-text"),
    "bo2021": ("random-r", "ae-dp", "syntf", "erae", "emp-text"),
    "pan": ("emp-text",),
    "obfuscate": ("emp-bag",),
    "serve": ("emp-text",),
}


def lineup(name: str) -> tuple[str, ...]:
    """The default mechanisms of protocol or front end ``name`` (:data:`LINEUPS`).

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
    """The registered names, in a fixed order."""
    return tuple(MECHANISMS)


def mechanism_spec(name: str) -> MechanismSpec:
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
    """The parameters of mechanism ``name`` with the defaults filled in, checked: every one is
    a parameter of its spec, every required one is given, every value with choices is one of
    them (a ``None`` value means the default). The one validator of what a front end gives
    (:func:`create_mechanism` calls it; ranges are checked when the mechanism is built).

    Raises :class:`ParameterMismatchError` (unknown or missing parameters) or
    ``InvalidParameterError`` (a value that is not one of the choices).
    """
    spec = mechanism_spec(name)
    allowed = tuple(p.name for p in spec.parameters)
    unknown = tuple(k for k in params if k not in allowed)
    if unknown:
        raise ParameterMismatchError(name, unknown=unknown, takes=allowed)
    missing = tuple(p.name for p in spec.parameters if p.required and params.get(p.name) is None)
    if missing:
        raise ParameterMismatchError(name, missing=missing)
    for p in spec.parameters:
        value = params.get(p.name)
        if p.choices is not None and value is not None and value not in p.choices:
            raise InvalidParameterError(
                f"{p.name} of {name} must be one of {', '.join(p.choices)}, got {value!r} "
                f"({p.help})"
            )
    given = {k: v for k, v in params.items() if v is not None}  # None means the default
    return {p.name: p.default for p in spec.parameters} | given


def create_mechanism(name: str, /, **params: Any) -> Mechanism:
    """Build the mechanism ``name`` with validated keyword-only parameters.

    Defaults are those of the mechanism's :class:`Parameter` specs (a ``None`` value means the
    default); see :data:`MECHANISMS` or ``authormask obfuscate --help``.

    >>> create_mechanism("emp-text", epsilon=10, lenght=5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    authormask.release.registry.ParameterMismatchError: emp-text does not take 'lenght'...
    """
    values = check_parameters(name, **params)
    mechanism = mechanism_spec(name).factory(values)
    mechanism.recipe = Recipe(name, {k: v for k, v in params.items() if v is not None})
    return mechanism


#: the epsilon a noise-off form is built with before its samplers are replaced: it reaches no
#: output (no sampler that reads it is left)
_PLACEHOLDER_EPSILON = 1.0


def create_noise_off(name: str, /, **params: Any) -> Mechanism:
    """The mechanism ``name`` with its noise switched off (:class:`~authormask.mechanisms.
    _base.NoiseOff`): its own preparation and rendering, every unit released as itself, no
    sampler run. The parameters are those of :func:`create_mechanism` but ``epsilon`` (there is
    no noise). It gives the text of the mechanism at epsilon -> infinity; its statement says it
    has no guarantee. For evaluation baselines, never to protect a text.

    Raises ``InvalidParameterError`` for a mechanism whose spec declares no samplers
    (:attr:`MechanismSpec.samplers`) or if ``epsilon`` is given.

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
    inner = create_mechanism(name, epsilon=_PLACEHOLDER_EPSILON, **given)
    off = NoiseOff(inner, samplers=spec.samplers)
    off.recipe = Recipe(name, {k: v for k, v in given.items() if v is not None}, noise_off=True)
    return off
