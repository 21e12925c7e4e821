"""What the registry knows of a mechanism: its public parameters (:class:`Parameter`), its
spec (:class:`MechanismSpec`: name, parameters, kind of guarantee, what it needs and can
report) and the parameters several mechanisms share. Imports no numpy."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from authormask.defaults import RECOMMENDED_EPSILON

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["MechanismSpec", "Parameter"]


@dataclass(frozen=True)
class Parameter:
    """One public parameter of a mechanism (for validation messages, ``--help`` and APIs)."""

    name: str
    help: str
    default: Any = None
    required: bool = False
    choices: tuple[str, ...] | None = None
    #: the smallest value allowed, or (``exclusive_minimum``) the bound every value must exceed
    minimum: float | None = None
    exclusive_minimum: bool = False
    maximum: float | None = None
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
        if self.minimum is not None:  # JSON Schema's names: the bound is excluded or not
            d["exclusive_minimum" if self.exclusive_minimum else "minimum"] = self.minimum
        if self.maximum is not None:
            d["maximum"] = self.maximum
        return d

    def describe_range(self) -> str | None:
        """The allowed range in words (``> 0``, ``>= 1``, ``in [0, 1]``), or None."""
        if self.minimum is None:
            return None
        low = f"{self.minimum:g}"
        if self.maximum is not None:
            return f"in {'(' if self.exclusive_minimum else '['}{low}, {self.maximum:g}]"
        return f"{'>' if self.exclusive_minimum else '>='} {low}"


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
EMBEDDINGS = Parameter(
    "embeddings",
    "word vectors: a packaged name, a vector file path, or a loaded Embeddings",
    default="glove-6b-50d",
)
VOCAB = Parameter(
    "vocab_size",
    "keep the K most frequent words of the embeddings",
    default=100_000,
    minimum=1,
    kind="int",
)
CACHE = Parameter("cache_dir", "where parsed vector files are cached", default=None, kind="path")
STOPWORDS = Parameter(
    "stopwords", "'english', 'none', a file of words, or a set of words", default="english"
)
OOV_MAP_TO = Parameter(
    "oov_map_to",
    "under oov 'map', the fixed vocabulary word unknown words become; default: for each, a "
    "content word drawn at random (Zipf), never a fixed placeholder",
    default=None,
)
MODEL = Parameter(
    "model",
    "a model directory of `authormask train erae` or a loaded model",
    required=True,
    kind="path",
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
