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
those it does. The specs and shared parameters are in :mod:`~authormask.core.specs`; how
each mechanism is built (models and embeddings loaded and wired in, so mechanisms never import
them) in :mod:`~authormask.core.factories`.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authormask.core.factories import (
    emp_bag,
    emp_doc,
    emp_event,
    emp_sentence,
    emp_text,
    emp_write,
    peer_text,
    random_r,
    random_sub,
    syntf,
    token_model,
    with_entities,
)
from authormask.core.specs import (
    BATCH,
    CACHE,
    CANONICAL_PARAMETERS,
    DECODER,
    DOC_DECODER,
    EMBEDDINGS,
    EPSILON,
    EVENT_RECOMMENDED,
    MAX_LENGTH,
    MODEL,
    OOV_MAP_TO,
    OUTPUT_SIZE,
    RECOMMENDED,
    SENTENCE_RECOMMENDED,
    STOPWORDS,
    TEXT_PARAMETERS,
    VOCAB,
    MechanismSpec,
    Parameter,
)
from authormask.defaults import (
    CONTENT,
    DEFAULT_LENGTH,
    DEFAULT_REGULARIZATION,
    FRAME_WEIGHT,
    MAX_WEIGHT,
    NAME_WEIGHT,
    PRIOR_WEIGHT,
    SENTENCE_WEIGHT,
)
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

#: the built-in mechanisms, in their fixed order (their seed codes are 0 to 11)
BUILTIN: dict[str, MechanismSpec] = {
    spec.name: spec
    for spec in (
        MechanismSpec(
            "emp-bag",
            "Earth Mover's privacy (Fernandes et al. 2019, Algorithm 2): a bag of N noisy words",
            (
                EPSILON,
                EMBEDDINGS,
                VOCAB,
                CACHE,
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
                STOPWORDS,
                Parameter(
                    "oov",
                    "unknown words: drop, keep (NOT protected) or map",
                    default="drop",
                    choices=("drop", "keep", "map"),
                ),
                OOV_MAP_TO,
                DECODER,
                ENTITIES,
            ),
            emp_bag,
            label="Earth Mover's (bag)",
            release="bag",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=0,
            samplers=("kernel",),
            per_word_form="emp-text",
            audit="authormask.audit.by_mechanism:emp_bag",
            help="a bag of N noisy words (Fernandes et al., Algorithm 2; guarantee epsilon*N*E "
            "over bags).",
        ),
        MechanismSpec(
            "emp-text",
            "Earth Mover's privacy in place: every content word perturbed, the skeleton kept",
            (*TEXT_PARAMETERS, DECODER, ENTITIES),
            emp_text,
            label="Earth Mover's (text)",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=1,
            samplers=("kernel",),
            audit="authormask.audit.by_mechanism:emp_text",
            help="every content word replaced in place, stopwords, punctuation and layout kept "
            "(readable).",
        ),
        MechanismSpec(
            "erae",
            "ER-AE (Bo et al. 2021): tokens drawn by the exponential mechanism from a model "
            "trained with the embedding reward",
            (EPSILON, MODEL, BATCH, ENTITIES),
            token_model(True, "erae"),
            label="ER-AE",
            release="generated",
            epsilon_per="token",
            noise_parameter="epsilon",
            seed_code=2,
            model_kind="reward",
            audit="authormask.audit.by_mechanism:erae",
            help="text generated by a model trained with the embedding reward (`model`), each "
            "token drawn by the exponential mechanism (Bo et al. 2021).",
        ),
        MechanismSpec(
            "ae-dp",
            "AE-DP: tokens drawn by the exponential mechanism from a model trained without the "
            "embedding reward",
            (EPSILON, MODEL, BATCH, ENTITIES),
            token_model(False, "ae-dp"),
            label="AE-DP",
            release="generated",
            epsilon_per="token",
            noise_parameter="epsilon",
            seed_code=3,
            model_kind="plain",
            audit="authormask.audit.by_mechanism:ae_dp",
            help="the same with a model trained without the embedding reward (`model`).",
        ),
        MechanismSpec(
            "syntf",
            "SynTF: tokens drawn by the exponential mechanism over word-vector similarity",
            (EPSILON, EMBEDDINGS, VOCAB, CACHE, OUTPUT_SIZE, MAX_LENGTH, ENTITIES),
            syntf,
            label="SynTF",
            release="generated",
            epsilon_per="token",
            noise_parameter="epsilon",
            seed_code=4,
            audit="authormask.audit.by_mechanism:syntf",
            help="tokens drawn by the exponential mechanism over word-vector similarity.",
        ),
        MechanismSpec(
            "random-r",
            "Random-R: uniform tokens from a fixed vocabulary (0-DP in the words)",
            (
                Parameter(
                    "model",
                    "take the output vocabulary and segment length from this model",
                    kind="path",
                    resource="model",
                ),
                EMBEDDINGS,
                VOCAB,
                CACHE,
                OUTPUT_SIZE,
                Parameter(
                    "max_length",
                    "tokens per segment (default: the model's, or 50)",
                    default=None,
                    minimum=1,
                    kind="int",
                ),
            ),
            random_r,
            label="Random-R",
            release="generated",
            epsilon_per="none",
            noise_parameter=None,
            seed_code=5,
            audit="authormask.audit.by_mechanism:random_r",
            help="uniform tokens (takes no epsilon).",
        ),
        MechanismSpec(
            "mahalanobis",
            "Mahalanobis mechanism (Xu et al. 2020): elliptical noise shaped by the vectors' "
            "regularized covariance, every content word replaced in place",
            (
                *TEXT_PARAMETERS,
                Parameter(
                    "regularization",
                    "lambda in [0, 1]: the noise is shaped by lambda*Sigma + (1 - lambda)*I, "
                    "Sigma the vectors' covariance scaled to trace n (0: Earth Mover's noise)",
                    default=DEFAULT_REGULARIZATION,
                    minimum=0.0,
                    maximum=1.0,
                    kind="number",
                ),
                ENTITIES,
            ),
            peer_text("mahalanobis"),
            label="Mahalanobis",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=6,
            samplers=("kernel",),
            audit="authormask.audit.by_mechanism:mahalanobis",
            help="in place like emp-text (Xu et al. 2020): elliptical noise shaped by the "
            "vectors' covariance (`regularization`).",
        ),
        MechanismSpec(
            "tem",
            "TEM (Carvalho et al. 2021): truncated exponential mechanism over Euclidean "
            "distances, every content word replaced in place",
            (
                *TEXT_PARAMETERS,
                Parameter(
                    "gamma",
                    "truncation threshold (> 0): words farther than gamma all get the weight of "
                    "gamma; default (2/epsilon) ln((1 - beta)(K - 1)/beta), beta = 0.001",
                    default=None,
                    minimum=0.0,
                    exclusive_minimum=True,
                    # far beyond any distance between word vectors: no truncation
                    maximum=1e6,
                    kind="number",
                ),
                ENTITIES,
            ),
            peer_text("tem"),
            label="TEM",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=7,
            samplers=("kernel",),
            audit="authormask.audit.by_mechanism:tem",
            help="in place like emp-text (Carvalho et al. 2021): truncated exponential mechanism "
            "(`gamma`).",
        ),
        MechanismSpec(
            "santext",
            "SanText (Yue et al. 2021): exponential mechanism over Euclidean distances of word "
            "vectors, every content word replaced in place",
            (*TEXT_PARAMETERS, ENTITIES),
            peer_text("santext"),
            label="SanText",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=8,
            samplers=("kernel",),
            audit="authormask.audit.by_mechanism:santext",
            help="in place like emp-text (Yue et al. 2021): exponential mechanism over "
            "word-vector distances.",
        ),
        MechanismSpec(
            "emp-doc",
            "Earth Mover's privacy on every word of a canonical skeleton: content words over the "
            "vocabulary, function words within their class; layout, marks and casing normalised",
            (
                EPSILON,
                Parameter(
                    "function_epsilon",
                    "epsilon per function word (> 0; default: epsilon / 4: function words carry "
                    "style more than meaning)",
                    default=None,
                    minimum=0.0,
                    exclusive_minimum=True,
                    kind="number",
                ),
                *CANONICAL_PARAMETERS,
                DOC_DECODER,
                ENTITIES,
            ),
            emp_doc,
            label="Earth Mover's (doc)",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=9,
            samplers=("kernel", "function_kernel"),
            audit="authormask.audit.by_mechanism:emp_doc",
            help="readable text whose guarantee covers style: every word perturbed (function "
            "words within their class, `function_epsilon`), layout, marks and casing made "
            "canonical; its skeleton (where function words and marks stand) is released "
            "unchanged.",
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
                    maximum=1.0,
                    kind="number",
                ),
                *CANONICAL_PARAMETERS,
                ENTITIES,
            ),
            random_sub,
            label="Random substitution",
            release="text",
            epsilon_per="none",
            baseline=True,
            noise_parameter="rate",
            seed_code=10,
            audit="authormask.audit.by_mechanism:random_sub",
            help="a baseline with NO privacy guarantee (`rate`), for comparisons only.",
        ),
        MechanismSpec(
            "emp-write",
            "Earth Mover's privacy on the content words, in order; function words, punctuation "
            "and sentence boundaries written by a public language model from the released words",
            (
                RECOMMENDED,
                EMBEDDINGS,
                VOCAB,
                CACHE,
                Parameter(
                    "stopwords",
                    "the function words, never released (the public writer writes its own): "
                    "'english', a file of words, or a set of words",
                    default="english",
                ),
                Parameter(
                    "content",
                    "which words are released: nouns (only the nouns of a public lexicon; the "
                    "public writer writes everything else, verbs and adjectives too) or words "
                    "(every content word)",
                    default=CONTENT,
                    choices=("nouns", "words"),
                ),
                Parameter(
                    "decoder",
                    "how the noisy vectors become words: context (the most probable word "
                    "sequence under a public language model), posterior or nearest; all "
                    "post-processing, same guarantee",
                    default="context",
                    choices=("context", "posterior", "nearest"),
                ),
                Parameter(
                    "prior_weight",
                    "weight (> 0) of the public language model against the noise in the context "
                    "decoder: above 1, common words are kept and rare ones replaced more often "
                    "(post-processing, same guarantee)",
                    default=PRIOR_WEIGHT,
                    minimum=0.0,
                    exclusive_minimum=True,
                    maximum=MAX_WEIGHT,
                    kind="number",
                ),
                ENTITIES,
            ),
            emp_write,
            label="Earth Mover's (written)",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=11,
            samplers=("kernel",),
            audit="authormask.audit.by_mechanism:emp_write",
            help="readable text whose guarantee covers the skeleton: only the content words are "
            "perturbed and released, in order; function words, punctuation and sentence "
            "boundaries are written by a public language model from the released words "
            "(`decoder` context).",
        ),
        MechanismSpec(
            "emp-sentence",
            "Earth Mover's privacy on each sentence (snapped to a real sentence of a public "
            "bank) and on each noun (put in that sentence's noun slots), in order",
            (
                SENTENCE_RECOMMENDED,
                EMBEDDINGS,
                VOCAB,
                CACHE,
                Parameter(
                    "stopwords",
                    "the function words, never released as nouns: 'english', a file of words, "
                    "or a set of words",
                    default="english",
                ),
                Parameter(
                    "decoder",
                    "how the nouns' noisy vectors become words: context (the most probable "
                    "sequence under a public language model), posterior or nearest; all "
                    "post-processing, same guarantee",
                    default="context",
                    choices=("context", "posterior", "nearest"),
                ),
                Parameter(
                    "prior_weight",
                    "weight (> 0) of the public language model against the noise in the context "
                    "decoder (post-processing, same guarantee)",
                    default=PRIOR_WEIGHT,
                    minimum=0.0,
                    exclusive_minimum=True,
                    maximum=MAX_WEIGHT,
                    kind="number",
                ),
                Parameter(
                    "sentence_weight",
                    "weight (> 0) of a sentence's distance against a noun's: each sentence gets "
                    "sentence_weight * epsilon per unit of sentence distance",
                    default=SENTENCE_WEIGHT,
                    minimum=0.0,
                    exclusive_minimum=True,
                    maximum=MAX_WEIGHT,
                    kind="number",
                ),
                Parameter(
                    "name_weight",
                    "weight (> 0) of a name changed against a unit of noun distance: each name "
                    "of the public name lists goes through randomized response at name_weight * "
                    "epsilon",
                    default=NAME_WEIGHT,
                    minimum=0.0,
                    exclusive_minimum=True,
                    maximum=MAX_WEIGHT,
                    kind="number",
                ),
                ENTITIES,
            ),
            emp_sentence,
            label="Earth Mover's (sentences)",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=12,
            samplers=("kernel", "sentence_noise", "name_noise"),
            audit="authormask.audit.by_mechanism:emp_sentence",
            help="readable text made of real sentences: each sentence snapped, after "
            "Earth Mover's noise, to a sentence of a public bank, with the document's noisy "
            "nouns in its noun slots (`sentence_weight`).",
        ),
        MechanismSpec(
            "emp-event",
            "Earth Mover's privacy on each event of the text (its agent, verb and theme; names "
            "and frames by randomized response), written as plain sentences",
            (
                EVENT_RECOMMENDED,
                EMBEDDINGS,
                VOCAB,
                CACHE,
                Parameter(
                    "stopwords",
                    "the function words, never released as nouns or verbs: 'english', a file "
                    "of words, or a set of words",
                    default="english",
                ),
                Parameter(
                    "name_weight",
                    "weight (> 0) of a name changed against a unit of word distance: each name "
                    "of the public name lists goes through randomized response at name_weight * "
                    "epsilon",
                    default=NAME_WEIGHT,
                    minimum=0.0,
                    exclusive_minimum=True,
                    maximum=MAX_WEIGHT,
                    kind="number",
                ),
                Parameter(
                    "frame_weight",
                    "weight (> 0) of a frame changed (direct object, a preposition, none) "
                    "against a unit of word distance: randomized response at frame_weight * "
                    "epsilon",
                    default=FRAME_WEIGHT,
                    minimum=0.0,
                    exclusive_minimum=True,
                    maximum=MAX_WEIGHT,
                    kind="number",
                ),
                ENTITIES,
            ),
            emp_event,
            label="Earth Mover's (events)",
            release="text",
            epsilon_per="word",
            noise_parameter="epsilon",
            seed_code=13,
            samplers=("argument_kernel", "verb_kernel", "name_noise", "frame_noise"),
            audit="authormask.audit.by_mechanism:emp_event",
            help="readable text of the text's own events: each clause's agent, verb and theme "
            "perturbed (Earth Mover's noise) and written as a plain sentence in the past tense.",
        ),
    )
}


def _check_codes(specs: dict[str, MechanismSpec]) -> None:
    """Every registered mechanism has its own seed code (:attr:`MechanismSpec.code`)."""
    owners: dict[int, str] = {}
    for spec in specs.values():
        owner = owners.setdefault(spec.code, spec.name)
        if owner != spec.name:
            raise ValueError(f"mechanisms {owner} and {spec.name} have the same seed code")


_check_codes(BUILTIN)


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
    from importlib.metadata import entry_points

    loaded: dict[str, MechanismSpec] = {}
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


class _Registry(Mapping[str, MechanismSpec]):
    """The registered mechanisms: the built-in ones, then those of plugins
    (:func:`load_plugins`), loaded the first time the registry is read."""

    def __init__(self, builtin: dict[str, MechanismSpec]) -> None:
        self._builtin = builtin
        self._specs: dict[str, MechanismSpec] | None = None
        self._loading = False

    def _all(self) -> dict[str, MechanismSpec]:
        if self._specs is None:
            if self._loading:  # read while a plugin's module is imported: the built-in ones
                return self._builtin
            self._loading = True
            try:
                self._specs = {**self._builtin, **load_plugins(self._builtin)}
            finally:
                self._loading = False
        return self._specs

    def __getitem__(self, name: str) -> MechanismSpec:
        return self._all()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._all())

    def __len__(self) -> int:
        return len(self._all())

    def __contains__(self, name: object) -> bool:
        return name in self._all()

    def __repr__(self) -> str:
        return f"MECHANISMS({list(self._all())})"


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
    """The parameters of mechanism ``name`` with the defaults filled in, checked once, here, at
    the boundary every front end passes: every one is a parameter of its spec, every required
    one is given, and every value lies in what its :class:`Parameter` declares (one of its
    choices, a number in its interval, a whole number for an ``int``: :meth:`Parameter.check`,
    which also gives each number its type). A ``None`` value means the default.
    :func:`create_mechanism` calls it; what no interval can say (SanText's epsilon times its
    vocabulary's diameter, a model's vocabulary) is checked when the mechanism is built.

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
