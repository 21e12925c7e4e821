"""``toy-rr``: k-ary randomized response on every word of a public vocabulary, a mechanism from
another package (``docs/adding-a-mechanism.md``).

Each word of the text that is in :data:`VOCABULARY` (k words, public) is released as itself
with probability ``e^eps / (e^eps + k - 1)``, else as one of the k - 1 other words, uniformly
(Warner's randomized response, k-ary: Kairouz et al. 2016, eq. 3). For any two vocabulary words
w, w' and any output v, ``P(v | w) <= e^eps P(v | w')``: pure epsilon-DP per word, with no
distance and no word vectors. A word outside the vocabulary is withheld (``___``); the layout,
the punctuation and which positions hold a word are released unchanged.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from authormask.accounting.statement import PrivacyStatement
from authormask.core.specs import EPSILON, MechanismSpec
from authormask.exceptions import InputError
from authormask.mechanisms._base import IdentityKernel, Mechanism, Output
from authormask.randomness import SEEDED, UNSEEDED
from authormask.text.clean import clean_text
from authormask.text.tokens import tokenize

__version__ = "0.1.0"

#: the public vocabulary: every word the mechanism may release
VOCABULARY = tuple(
    sorted(
        set(
            """
            afternoon age air animal answer area art autumn baby bank bed bird boat body book
            box boy bread bridge brother building bus car cat chair child children church city
            class coast cold colour country day debate dinner doctor dog door dream earth
            engine evening eye face family farm father field fire fish floor flower food forest
            friend fruit game garden girl glass gold government grass ground group hall hand
            harbour head heart hill history home honey horse hospital hotel house idea island
            job key kitchen lake land language law letter library life light line lunch machine
            man map market meat milk money month moon morning mother mountain museum music name
            nation news night nurse ocean office oil paper park party peace people picture plan
            plant police power question rain river road rock room school sea season ship shop
            sister sky snow son song spring square star station stone story street student
            summer sun table teacher tea town train tree valley village wall war water week
            wind window winter woman wood word work world year
            """.split()
        )
    )
)
#: each vocabulary word's position
INDEX = {w: i for i, w in enumerate(VOCABULARY)}
#: what stands where a word outside the vocabulary was
WITHHELD = "___"
TITLE = "Randomized response per word over a public vocabulary (a plugin's example)"
REFERENCE = (
    "Warner, Randomized response (JASA 1965); Kairouz, Oh & Viswanath, Extremal mechanisms for "
    "local differential privacy (NeurIPS 2014 / JMLR 2016)"
)


class RRKernel:
    """k-ary randomized response on words of :data:`VOCABULARY` (module docstring)."""

    def __init__(self, epsilon: float) -> None:
        k = len(VOCABULARY)
        # e^eps / (e^eps + k - 1), written so that a large epsilon does not overflow
        self.keep = 1.0 / (1.0 + (k - 1) * math.exp(-epsilon))
        self.index = INDEX

    def perturb_documents(
        self,
        documents: Sequence[Sequence[str]],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[tuple[str, ...]]:
        """Each document's words, each kept or replaced with the document's own generator."""
        k = len(VOCABULARY)
        out = []
        for words, rng in zip(documents, rngs, strict=True):
            released = []
            for w in words:
                if rng.random() < self.keep:
                    released.append(w)
                else:  # one of the k - 1 other words, uniformly
                    j = int(rng.integers(k - 1))
                    released.append(VOCABULARY[j if j < self.index[w] else j + 1])
            out.append(tuple(released))
        if progress is not None:
            progress(sum(len(d) for d in documents))
        return out


@dataclass(frozen=True)
class Unit:
    """A prepared text: the vocabulary words and their spans, the other words' spans."""

    text: str
    spans: tuple[tuple[int, int], ...]
    words: tuple[str, ...]
    withheld: tuple[tuple[int, int], ...]


class RRMechanism(Mechanism):
    """``toy-rr`` (module docstring)."""

    name = "toy-rr"
    title = TITLE
    reference = REFERENCE

    def __init__(self, epsilon: float) -> None:
        self.epsilon = float(epsilon)
        self.kernel: Any = RRKernel(self.epsilon)

    def prepare(self, text: str) -> Unit:
        text = clean_text(text)
        spans, words, withheld = [], [], []
        for t in tokenize(text):
            if not t.is_word:
                continue
            if t.lower in INDEX:
                spans.append((t.start, t.end))
                words.append(t.lower)
            else:
                withheld.append((t.start, t.end))
        if not spans and not withheld:
            raise InputError("the text has no word")
        return Unit(text, tuple(spans), tuple(words), tuple(withheld))

    def perturb(
        self,
        documents: Sequence[Any],
        rngs: Sequence[np.random.Generator],
        *,
        progress: Callable[[int], None] | None = None,
    ) -> list[Output]:
        released = self.kernel.perturb_documents(
            [d.words for d in documents], rngs, progress=progress
        )
        return [Output(_render(d, r), tuple(r)) for d, r in zip(documents, released, strict=True)]

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        k = len(VOCABULARY)
        return PrivacyStatement(
            mechanism=self.name,
            title=TITLE,
            reference=REFERENCE,
            epsilon=self.epsilon,
            epsilon_unit=f"per word (pure epsilon-DP: randomized response over a public "
            f"vocabulary of {k} words)",
            guarantee=(
                f"each released word: for any two vocabulary words w, w' and any output v, "
                f"P(v | w) <= e^epsilon P(v | w') (kept with probability e^epsilon / "
                f"(e^epsilon + {k - 1}), else one of the {k - 1} others uniformly)"
            ),
            document_bound="epsilon times the number of vocabulary words in which two texts "
            "of the same layout differ (composition over positions)",
            released_unchanged="the layout, the punctuation, and which positions hold a word; "
            f"a word outside the vocabulary is withheld ({WITHHELD})",
            parameters={"vocabulary": f"{k} public words (authormask-rr {__version__})"},
            embeddings=None,
            model=None,
            policies={"words outside the vocabulary": f"withheld, shown as {WITHHELD}"},
            floating_point="the keep probability is a double; the draws are numpy's",
            randomness=SEEDED if seeded else UNSEEDED,
            version=f"authormask-rr {__version__}",
        )

    def diagnostics(self, document: Any) -> dict[str, Any]:
        return {"words": len(document.words), "withheld": len(document.withheld)}

    def units(self, document: Any) -> int:
        return len(document.words)

    def released_words(self, document: Any) -> tuple[str, ...]:
        return tuple(document.words)

    def without_noise(self) -> RRMechanism:
        off = copy.copy(self)
        off.kernel = IdentityKernel(None)
        return off


def _render(unit: Unit, words: Sequence[str]) -> str:
    """The text with each vocabulary word replaced by its released word, the others withheld."""
    edits = [(s, e, w) for (s, e), w in zip(unit.spans, words, strict=True)]
    edits += [(s, e, WITHHELD) for s, e in unit.withheld]
    out, at = [], 0
    for s, e, w in sorted(edits):
        out.append(unit.text[at:s])
        out.append(w)
        at = e
    out.append(unit.text[at:])
    return "".join(out)


def build(params: dict[str, Any]) -> RRMechanism:
    """The mechanism from its checked parameters."""
    return RRMechanism(params["epsilon"])


def audit(name: str) -> tuple[Any, ...]:
    """Its audit case: the kernel on two vocabulary words, every output word an event (the
    audit is imported here, when it runs, never when the registry loads this module)."""
    from authormask.audit.case_spec import CaseSpec
    from authormask.audit.core import AuditCase

    def case(ctx: Any) -> AuditCase:
        kernel = RRKernel(2.0)

        def sampler(word: str, n: int, rng: np.random.Generator) -> np.ndarray:
            (out,) = kernel.perturb_documents([[word] * n], [rng])
            return np.array([kernel.index[w] for w in out])

        return AuditCase(
            mechanism=name,
            case="rr-eps2",
            description="randomized response at epsilon 2, inputs river vs market",
            epsilon_stated=2.0,
            neighbours=("river", "market"),
            sampler=sampler,
            labels=lambda i: VOCABULARY[i],
        )

    return (CaseSpec(name, "rr-eps2", case),)


SPEC = MechanismSpec(
    "toy-rr",
    TITLE,
    (EPSILON,),
    build,
    label="Toy RR",
    release="text",
    epsilon_per="word",
    guarantee="pure",
    noise_parameter="epsilon",
    samplers=("kernel",),
    audit="authormask_rr:audit",
    help="randomized response per word over a public vocabulary (a plugin's example).",
)
