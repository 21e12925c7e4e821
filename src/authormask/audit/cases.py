"""Neighbouring inputs and samplers for every registered mechanism.

Each case runs the real mechanism object (built by
:func:`~authormask.release.registry.create_mechanism` wherever no trained model is needed) on two
neighbouring inputs, and states the epsilon its guarantee gives between them:

* **Earth Mover's privacy** (``emp-bag``, ``emp-text``; Fernandes, Dras & McIver 2019,
  Theorem 2 and Algorithm 2): the guarantee between two words is ``eps * d(Vec(w), Vec(w'))``
  (metric DP with the Euclidean distance), between two bags of N words ``eps * N * E(b, b')``
  (Theorem 4).

  - ``line-1d``: a 1-d vocabulary ``left=-m, zero=0, one=d, right=d+m``. The cell of ``right``
    (``z > d + m/2``) lies to the right of both inputs ``zero`` and ``one``, where the 1-d Laplace
    densities differ by exactly ``exp(eps * d)``; so ``P[right | one] / P[right | zero] =
    exp(eps * d)`` (and symmetrically for ``left``): the bound is attained, so the audit must
    come close to it (its power).
  - ``line-1d-N2`` (``emp-bag``): the bags ``{zero, zero}`` and ``{one, one}``, ``E = d``; the
    output ``{right, right}`` attains ``exp(eps * 2 * d)``.
  - ``glove``: two real GloVe words (``man``/``woman`` of glove-6b-50d, 20,000 words), where the
    50-d bound is loose (the audit's bound is far below it, as expected).

  ``emp-text`` is run end to end (``prepare`` then ``perturb`` of a text made of the input word
  repeated: every content position is an independent draw of the per-word mechanism);
  ``emp-bag`` through its ``kernel`` on bags of N words, released in sorted order as
  ``EMPBag.perturb`` does.

* **Exponential mechanism** (``erae``, ``ae-dp``, ``syntf``; Bo et al. 2021, Eq. 6 and
  Algorithm 1; Weggenmann & Kerschbaum 2018): each token is one exponential-mechanism draw,
  ``epsilon``-DP per token. The cases use K outputs and the two rating vectors at the extreme of
  the allowed change, ``r = [hi, lo, ..., lo]`` and ``r' = [lo, hi, ..., hi]`` (every rating
  moves by the full sensitivity), whose privacy loss tends to ``epsilon`` as K grows: the worst
  case over *all* models. ``erae`` and ``ae-dp`` need no trained model: the ratings are fed to
  :class:`~authormask.mechanisms.generation.ERAEMechanism`'s own ``draw`` (its clip to [0, 1]
  and sensitivity 1), exactly as it configures the exponential mechanism for any model.
  ``syntf`` runs end to end (``prepare`` and ``perturb``) on a 2-d embedding whose cosine
  ratings are exactly +-1 (sensitivity 2). ``K10`` has the most power; ``K1000`` gives
  token 0 probability 3.7e-4 under ``r'`` (below 2^-10) and 2.7e-3 under ``r``, where a sampler
  that cannot reach small-probability outputs (Ilvento 2020; Mironov 2012) would show.

* **Random-R** (``random-r``): stated epsilon 0 (the words of the output do not depend on the
  input), run end to end on two different input texts.

* **Peer word-level mechanisms** (:mod:`authormask.mechanisms.peers`), all end to end through
  ``prepare`` and ``perturb`` (:func:`emp_text_sampler`):

  - ``mahalanobis`` (Xu et al. 2020): ``line-1d`` (in one dimension ``Sigma_lambda = 1``, so
    ``d_R = d`` and the bound ``eps * d`` is attained by the output ``right``, as for
    ``emp-text``) and ``glove`` (``man``/``woman``, stated ``eps * d_R``; loose).
  - ``santext`` (Yue et al. 2021) and ``tem`` (Carvalho et al. 2021): an exponential mechanism
    attains its bound only when the two inputs' normalisers differ as much as they can, so the
    ``cluster-1d`` vocabulary puts ``zero`` at 0, ``one`` and 100 more words at 1, and 10 far
    words at 4: ``P[zero | zero] / P[zero | one]`` is ``e^{eps/2} Z(one) / Z(zero)``, within 3%
    of ``e^eps`` at eps = 2 (stated ``eps * d = 2``; for TEM gamma = 1.5, and the far words
    beyond gamma are reached through the bottom element). ``tem`` also has ``truncated-1d``
    (gamma = 0.5 < d = 1: the stated bound is ``eps * gamma = 1``, TEM's own, stronger than
    ``eps * d``, and attained the same way) and both have ``glove`` (1,000 GloVe words,
    ``man``/``woman``, stated ``eps * d``; loose). Their declared slack is the sampler's and the
    certified distances' (:meth:`~authormask.mechanisms.peers.SanTextMechanism.slack`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.core import AuditCase, Sampler
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError

__all__ = [
    "AUDITORS",
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "EXP_EPSILON",
    "PEER_EPSILON_LINE",
    "CaseSpec",
    "cluster_embeddings",
    "emp_bag_sampler",
    "emp_text_sampler",
    "extreme_ratings",
    "line_embeddings",
    "token_draw_sampler",
    "token_text_sampler",
]

#: eps of the Earth Mover's cases on the 1-d line (d = 1: stated eps*d = 2).
EMP_EPSILON_LINE = 2.0
#: eps of the Earth Mover's case on real GloVe words (d(man, woman) = 2.60: stated 26.0).
EMP_EPSILON_GLOVE = 10.0
GLOVE_PAIR = ("man", "woman")
GLOVE_VOCAB = 20_000
#: Per-token epsilon of the exponential-mechanism cases.
EXP_EPSILON = 2.0
LINE_WORDS = ("left", "zero", "one", "right")
SYNTF_INPUTS = ("alpha", "omega")
DRAW_BLOCK = 50_000  # ratings per draw() call of token_draw_sampler
TOKEN_TEXT_LENGTH = 50  # segment length of the stand-in ER-AE configuration


@dataclass(frozen=True)
class Context:
    """What building a case may need (where GloVe is cached)."""

    cache_dir: Path | str | None = "default"

    def glove(self) -> Embeddings:
        return _load_glove(str(self.cache_dir) if self.cache_dir is not None else None)


@functools.lru_cache(maxsize=2)
def _load_glove(cache_dir: str | None) -> Embeddings:
    from authormask.embeddings import load_embeddings

    return load_embeddings("glove-6b-50d", vocab_size=GLOVE_VOCAB, cache_dir=cache_dir)


@dataclass(frozen=True)
class CaseSpec:
    """A case's names and its (lazy) builder."""

    mechanism: str
    case: str
    build: Callable[[Context], AuditCase]


# --- Earth Mover's privacy ----------------------------------------------------------------------


def line_embeddings(distance: float = 1.0, margin: float = 0.2) -> Embeddings:
    """The 1-d vocabulary ``left=-margin, zero=0, one=distance, right=distance+margin``."""
    if not (distance > 0 and margin > 0):
        raise InvalidParameterError("distance and margin must be > 0")
    vectors = np.array([[-margin], [0.0], [distance], [distance + margin]], dtype=np.float32)
    return Embeddings(
        name="audit-line-1d", source="authormask.audit", words=LINE_WORDS, vectors=vectors
    )


def _word_labels(embeddings: Embeddings, bag_size: int = 1) -> Callable[[int], str]:
    size = len(embeddings.words)

    def label(code: int) -> str:
        rows = []
        for _ in range(bag_size):
            rows.append(embeddings.words[code % size])
            code //= size
        return "+".join(reversed(rows)) if bag_size > 1 else rows[0]

    return label


def emp_bag_sampler(mechanism: Any) -> Sampler:
    """Sampler of an ``emp-bag`` mechanism: input = a bag (tuple of N words), output = the sorted
    bag of N perturbed words, coded as one integer (base = vocabulary size)."""
    kernel = mechanism.kernel
    emb = kernel.embeddings
    size = len(emb.words)
    n_words = int(mechanism.length)

    def sample(bag: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        words = tuple(bag)
        if len(words) != n_words:
            raise InvalidParameterError(f"the bag must have N={n_words} words, got {len(words)}")
        rows = np.tile(np.array([emb.index_of(w) for w in words], dtype=np.intp), n)
        out = np.asarray(kernel.perturb_indices(rows, random_state=rng), dtype=np.int64)
        released = np.sort(out.reshape(n, n_words), axis=1)  # EMPBag releases the sorted bag
        code = np.zeros(n, dtype=np.int64)
        for j in range(n_words):
            code = code * size + released[:, j]
        return code

    return sample


def emp_text_sampler(mechanism: Any) -> Sampler:
    """Sampler of an ``emp-text`` mechanism, end to end: input = a word; ``n`` draws = one text
    of the word repeated ``n`` times, prepared and perturbed (each content position is an
    independent draw of K); output = the vocabulary row of each released word."""
    emb = mechanism.embeddings

    @functools.lru_cache(maxsize=8)
    def prepared(word: str, n: int) -> Any:
        doc = mechanism.prepare(" ".join([word] * n))
        if len(doc.content_words) != n:
            raise InvalidParameterError(f"{word!r} is not a content word of the mechanism")
        return doc

    def sample(word: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        out = mechanism.perturb([prepared(str(word), n)], [rng])[0]
        return np.array([emb.index_of(w) for w in out.words], dtype=np.int64)

    return sample


def emp_doc_sampler(mechanism: Any) -> Sampler:
    """Sampler of an ``emp-doc`` (or ``random-sub``) mechanism, end to end: input = a word;
    ``n`` draws = one text of the word repeated ``n`` times, made canonical, cut into units and
    perturbed (each word position an independent draw); output = the vocabulary row of each
    released word (a content word or a function word: both are rows of the embeddings)."""
    emb = mechanism.embeddings

    @functools.lru_cache(maxsize=8)
    def prepared(word: str, n: int) -> Any:
        units = list(mechanism.prepare_parts([" ".join([word] * n)]))
        if sum(u.words for u in units) != n:
            raise InvalidParameterError(f"{word!r} is not one word of the mechanism")
        return units

    def sample(word: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        units = prepared(str(word), n)
        outs = mechanism.perturb(units, [rng] * len(units))
        return np.array([emb.index_of(w) for o in outs for w in o.words], dtype=np.int64)

    return sample


#: where the extra word of emp-doc's 1-d cases lies (far from the line)
LINE_FAR_FUNCTION = 50.0


def _emp_doc_line(case: str) -> Callable[[Context], AuditCase]:
    """``emp-doc`` on the 1-d line: ``line-1d`` (zero and one are content words; function word
    ``of`` far away), ``line-1d-function`` (every line word is a function word: the closed class
    is the line, perturbed with ``function_epsilon``), ``line-1d-posterior`` (content words,
    posterior decoder). The output ``right`` attains the bound in each."""

    def build(ctx: Context) -> AuditCase:
        from authormask.release import create_mechanism

        function = case == "line-1d-function"
        if function:  # the line is the function-word class; "unknown" a far content word
            emb = _line_plus("unknown", -LINE_FAR_FUNCTION)
            params: dict[str, Any] = {
                "epsilon": 7.0,
                "function_epsilon": EMP_EPSILON_LINE,
                "stopwords": set(LINE_WORDS),
            }
        else:  # zero and one are content words; "of" a far function word
            emb = _line_plus("of", LINE_FAR_FUNCTION)
            params = {"epsilon": EMP_EPSILON_LINE, "stopwords": {"of"}, "oov_map_to": "zero"}
        params["decoder"] = "posterior" if case == "line-1d-posterior" else "nearest"
        mech: Any = create_mechanism("emp-doc", embeddings=emb, vocab_size=None, **params)
        eps = mech.function_epsilon if function else mech.epsilon
        return AuditCase(
            mechanism="emp-doc",
            case=case,
            description=(
                "emp-doc end to end, 1-d vocabulary {left=-0.2, zero=0, one=1, right=1.2}, "
                f"zero vs one as {'function' if function else 'content'} words"
                + (", posterior decoder" if case == "line-1d-posterior" else "")
                + f", eps*d = {eps:g}*1 (attained by the output right)"
            ),
            epsilon_stated=eps * 1.0,
            neighbours=("zero", "one"),
            sampler=emp_doc_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def _line_plus(word: str, at: float) -> Embeddings:
    """The ``line-1d`` vocabulary and one more ``word`` far away, at ``at``."""
    line = line_embeddings()
    return Embeddings(
        name=f"audit-line-1d+{word}",
        source="authormask.audit",
        words=(*line.words, word),
        vectors=np.vstack([line.vectors, [[at]]]).astype(np.float32),
    )


def _emp_line(
    kind: str, bag_size: int = 1, decoder: str = "nearest"
) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.accounting.emd import word_movers_distance
        from authormask.release import create_mechanism

        emb = line_embeddings()
        params: dict[str, Any] = {
            "epsilon": EMP_EPSILON_LINE,
            "embeddings": emb,
            "vocab_size": None,
            "stopwords": "none",
            "decoder": decoder,
        }
        if kind == "emp-bag":
            params["length"] = bag_size
        else:
            params["oov_map_to"] = "zero"  # "unknown" is not in this vocabulary (and never used)
        mech: Any = create_mechanism(kind, **params)
        a, b = ("zero",) * bag_size, ("one",) * bag_size
        if kind == "emp-bag":
            e = word_movers_distance(a, b, emb).distance
            stated = mech.epsilon * bag_size * e
            sampler = emp_bag_sampler(mech)
            neighbours: tuple[Any, Any] = (a, b)
            what = (
                f"bags {{{', '.join(a)}}} vs {{{', '.join(b)}}}, "
                f"eps*N*E = {mech.epsilon:g}*{bag_size}*{e:g}"
            )
        else:
            e = word_movers_distance(a, b, emb).distance
            stated = mech.epsilon * e
            sampler = emp_text_sampler(mech)
            neighbours = (a[0], b[0])
            what = f"words zero vs one, eps*d = {mech.epsilon:g}*{e:g}"
        name = "line-1d" if bag_size == 1 else f"line-1d-N{bag_size}"
        post = decoder == "posterior"
        return AuditCase(
            mechanism=kind,
            case=name + ("-posterior" if post else ""),
            description=f"1-d vocabulary {{left=-0.2, zero=0, one=1, right=1.2}}, {what} "
            + ("(posterior decoder; " if post else "(")
            + "attained by the output right)",
            epsilon_stated=stated,
            neighbours=neighbours,
            sampler=sampler,
            labels=_word_labels(emb, bag_size if kind == "emp-bag" else 1),
        )

    return build


def _emp_glove(kind: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.release import create_mechanism

        emb = ctx.glove()
        params: dict[str, Any] = {
            "epsilon": EMP_EPSILON_GLOVE,
            "embeddings": emb,
            "vocab_size": None,
            "stopwords": "none",
        }
        if kind == "emp-bag":
            params["length"] = 1
        mech: Any = create_mechanism(kind, **params)
        w, w2 = GLOVE_PAIR
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        return AuditCase(
            mechanism=kind,
            case="glove",
            description=f"{emb.identity.name} ({len(emb.words)} words, {emb.dimension}-d), "
            f"{w} vs {w2}, eps*d = {mech.epsilon:g}*{d:.4f} (loose in 50 dimensions)",
            epsilon_stated=mech.epsilon * d,
            neighbours=((w,), (w2,)) if kind == "emp-bag" else (w, w2),
            sampler=emp_bag_sampler(mech) if kind == "emp-bag" else emp_text_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


# --- exponential mechanism ----------------------------------------------------------------------


def extreme_ratings(
    n_outputs: int, *, low: float, high: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``r = [high, low, ..., low]`` and ``r' = [low, high, ..., high]``: every rating moves by
    ``high - low`` (the full sensitivity), the worst case of the exponential mechanism."""
    if n_outputs < 2:
        raise InvalidParameterError(f"need at least 2 outputs, got {n_outputs}")
    r = np.full(n_outputs, low, dtype=np.float64)
    r[0] = high
    rp = np.full(n_outputs, high, dtype=np.float64)
    rp[0] = low
    return r, rp


def token_draw_sampler(mechanism: Any) -> Sampler:
    """Sampler of a token mechanism's ``draw(rating, rng)``: input = one rating vector over the
    K outputs; ``n`` draws = ``draw`` on ``n`` copies of it; output = the token index."""

    def sample(rating: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        row = np.asarray(rating, dtype=np.float64)
        block = max(1, DRAW_BLOCK // row.size)  # rows per call: keeps the matrices in cache
        parts = [
            np.asarray(mechanism.draw(np.broadcast_to(row, (min(block, n - i), row.size)), rng))
            for i in range(0, n, block)
        ]
        return np.concatenate(parts).astype(np.int64, copy=False)

    return sample


def token_text_sampler(mechanism: Any) -> Sampler:
    """Sampler of a token mechanism end to end: input = a word; ``n`` draws = a text of the word
    repeated ``n`` times (cut into segments), prepared and perturbed; output = the index of
    each released token in the output vocabulary."""
    index = {w: i for i, w in enumerate(mechanism.output_words)}

    @functools.lru_cache(maxsize=8)
    def prepared(word: str, n: int) -> Any:
        seg = mechanism.prepare(" ".join([word] * n))  # cut into segments of max_length tokens
        if seg.tokens != n:
            raise InvalidParameterError(f"{word!r} is not a single token")
        return seg

    def sample(word: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        out = mechanism.perturb([prepared(str(word), n)], [rng])[0]
        return np.array([index[w] for w in out.words], dtype=np.int64)

    return sample


class _RatingsOnlyModel:
    """Stands in for a trained ER-AE model in :class:`ERAEMechanism`: it only supplies the output
    vocabulary size and the configuration (reward or not); the audit hands the ratings to
    ``draw`` itself, so no model is ever evaluated."""

    def __init__(self, n_outputs: int, *, reward: bool) -> None:
        self.vocab = SimpleNamespace(words=tuple(f"t{i}" for i in range(n_outputs)))
        self.config = SimpleNamespace(max_length=TOKEN_TEXT_LENGTH, uses_reward=reward)

    def ratings(self, ids: Any, *, batch_size: int = 256) -> Any:
        raise NotImplementedError("the audit feeds ratings to draw() directly")

    def overlap(self, segments: Any) -> int:
        return 0

    def identity(self) -> dict[str, Any]:
        return {"model": "audit stand-in (ratings fed directly)"}


def _token_labels(prefix: str) -> Callable[[int], str]:
    return lambda code: f"{prefix}{code}"


def _erae(kind: str, n_outputs: int) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.mechanisms.generation import ERAEMechanism

        mech = ERAEMechanism(
            _RatingsOnlyModel(n_outputs, reward=kind == "erae"), epsilon=EXP_EPSILON
        )
        if mech.name != kind:  # pragma: no cover - guards the stand-in
            raise RuntimeError(f"built {mech.name}, wanted {kind}")
        low = mech.rating_low
        r, rp = extreme_ratings(n_outputs, low=low, high=low + mech.rating_range)
        return AuditCase(
            mechanism=kind,
            case=f"extreme-K{n_outputs}",
            description=f"exponential mechanism as {kind} configures it (sensitivity "
            f"{mech.sensitivity:g}, ratings in [{low:g}, {low + mech.rating_range:g}]), "
            f"K={n_outputs}, ratings [1,0,...,0] vs [0,1,...,1] (worst case over all models), "
            f"per-token epsilon {mech.epsilon:g}",
            epsilon_stated=mech.epsilon,
            neighbours=(r, rp),
            sampler=token_draw_sampler(mech),
            slack=2.0 * mech.slack(),
            labels=_token_labels("token "),
        )

    return build


def _token_embeddings(n_outputs: int) -> Embeddings:
    """``n_outputs`` output words (``o0`` at (1, 0), the others at (-1, 0)) and two input words
    ``alpha`` = (1, 0) and ``omega`` = (-1, 0): cosine ratings exactly [1,-1,...] / [-1,1,...]."""
    words = (*(f"o{i}" for i in range(n_outputs)), *SYNTF_INPUTS)
    vectors = np.zeros((len(words), 2), dtype=np.float32)
    vectors[:, 0] = -1.0
    vectors[0, 0] = 1.0
    vectors[n_outputs, 0] = 1.0
    return Embeddings(
        name=f"audit-tokens-{n_outputs}", source="authormask.audit", words=words, vectors=vectors
    )


def _syntf(n_outputs: int) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.release import create_mechanism

        mech: Any = create_mechanism(
            "syntf",
            epsilon=EXP_EPSILON,
            embeddings=_token_embeddings(n_outputs),
            vocab_size=None,
            output_size=n_outputs,
        )
        return AuditCase(
            mechanism="syntf",
            case=f"extreme-K{n_outputs}",
            description=f"syntf end to end (sensitivity {mech.sensitivity:g}, cosine ratings "
            f"in [-1, 1]), K={n_outputs}, inputs alpha vs omega rated exactly [1,-1,...,-1] vs "
            f"[-1,1,...,1] (the worst case), per-token epsilon {mech.epsilon:g}",
            epsilon_stated=mech.epsilon,
            neighbours=SYNTF_INPUTS,
            sampler=token_text_sampler(mech),
            slack=2.0 * mech.slack(),
            labels=_token_labels("o"),
        )

    return build


def _emp_doc_glove(ctx: Context) -> AuditCase:
    from authormask.release import create_mechanism

    emb = ctx.glove()
    mech: Any = create_mechanism(
        "emp-doc", epsilon=EMP_EPSILON_GLOVE, embeddings=emb, vocab_size=None
    )
    w, w2 = GLOVE_PAIR
    d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
    return AuditCase(
        mechanism="emp-doc",
        case="glove",
        description=f"emp-doc end to end, {emb.identity.name} ({len(emb.words)} words), {w} vs "
        f"{w2} as content words, eps*d = {mech.epsilon:g}*{d:.4f} (loose in 50 dimensions)",
        epsilon_stated=mech.epsilon * d,
        neighbours=(w, w2),
        sampler=emp_doc_sampler(mech),
        labels=_word_labels(emb),
    )


def _random_sub(ctx: Context) -> AuditCase:
    """``random-sub`` at rate 1, the one rate at which its words do not depend on the input
    (stated 0; below 1 the statement declares no guarantee, and none holds)."""
    from authormask.release import create_mechanism

    emb = _token_embeddings(1000)
    mech: Any = create_mechanism(
        "random-sub",
        rate=1.0,
        embeddings=emb,
        vocab_size=None,
        stopwords={emb.words[-1]},
        oov_map_to=emb.words[0],
    )
    return AuditCase(
        mechanism="random-sub",
        case="rate-1",
        description=f"random-sub end to end at rate 1, K={len(emb)} content words, input words "
        f"{emb.words[1]} vs {emb.words[2]}; every word replaced by a uniform one (epsilon 0)",
        epsilon_stated=0.0,
        neighbours=(emb.words[1], emb.words[2]),
        sampler=emp_doc_sampler(mech),
        labels=_word_labels(emb),
    )


def _random_r(n_outputs: int) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.release import create_mechanism

        mech: Any = create_mechanism(
            "random-r",
            embeddings=_token_embeddings(n_outputs),
            vocab_size=None,
            output_size=n_outputs,
        )
        return AuditCase(
            mechanism="random-r",
            case=f"uniform-K{n_outputs}",
            description=f"random-r end to end, K={n_outputs}, input texts alpha vs omega; the "
            "words of the output do not depend on the input (epsilon 0)",
            epsilon_stated=0.0,
            neighbours=SYNTF_INPUTS,
            sampler=token_text_sampler(mech),
            slack=2.0 * mech.slack(),
            labels=_token_labels("o"),
        )

    return build


# --- peer word-level mechanisms ---------------------------------------------------------------

#: eps of the peer mechanisms' 1-d cases (stated eps * d = 2 between zero and one)
PEER_EPSILON_LINE = 2.0
#: the ``cluster-1d`` vocabulary: words piled at ``one`` and far words beyond TEM's gamma
CLUSTER_SIZE = 100
FAR_WORDS = 10
FAR_AT = 4.0
#: TEM's gamma in ``cluster-1d`` (>= d = 1) and ``truncated-1d`` (< d)
TEM_GAMMA_CLUSTER = 1.5
TEM_GAMMA_TRUNCATED = 0.5
#: GloVe words of the peer exponential mechanisms' ``glove`` case (K draws cost K each)
PEER_GLOVE_VOCAB = 1_000


def _letters(i: int) -> str:
    """``i`` written in the letters a-z (``aa``, ``ab``, ...): alphabetic words for any index."""
    return chr(97 + i // 26) + chr(97 + i % 26)


def cluster_embeddings() -> Embeddings:
    """``zero`` = 0, ``one`` = 1, ``CLUSTER_SIZE`` words ``c..`` at 1 and ``FAR_WORDS`` words
    ``f..`` at ``FAR_AT`` (1-d)."""
    words = (
        "zero",
        "one",
        *(f"c{_letters(i)}" for i in range(CLUSTER_SIZE)),
        *(f"f{_letters(i)}" for i in range(FAR_WORDS)),
    )
    vectors = np.ones((len(words), 1), dtype=np.float32)
    vectors[0, 0] = 0.0
    vectors[2 + CLUSTER_SIZE :, 0] = FAR_AT
    return Embeddings(
        name="audit-cluster-1d", source="authormask.audit", words=words, vectors=vectors
    )


def _peer_params(emb: Embeddings, epsilon: float, **own: Any) -> dict[str, Any]:
    return {
        "epsilon": epsilon,
        "embeddings": emb,
        "vocab_size": None,
        "stopwords": "none",
        "oov_map_to": emb.words[0],  # never used: every input word is in the vocabulary
        **own,
    }


def _mahalanobis(case: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.release import create_mechanism

        if case == "line-1d":
            emb, epsilon, (w, w2) = line_embeddings(), PEER_EPSILON_LINE, ("zero", "one")
            where = "1-d vocabulary {left=-0.2, zero=0, one=1, right=1.2} (Sigma_lambda = 1)"
        else:
            emb, epsilon, (w, w2) = ctx.glove(), EMP_EPSILON_GLOVE, GLOVE_PAIR
            where = f"{emb.identity.name} ({len(emb.words)} words, {emb.dimension}-d)"
        mech: Any = create_mechanism("mahalanobis", **_peer_params(emb, epsilon))
        d = mech.kernel.distance(w, w2)
        return AuditCase(
            mechanism="mahalanobis",
            case=case,
            description=f"{where}, lambda={mech.regularization:g}, {w} vs {w2}, eps*d_R = "
            f"{mech.epsilon:g}*{d:.4f}"
            + (" (attained by the output right)" if case == "line-1d" else " (loose)"),
            epsilon_stated=mech.epsilon * d,
            neighbours=(w, w2),
            sampler=emp_text_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def _vocabulary_exponential(kind: str, case: str) -> Callable[[Context], AuditCase]:
    def build(ctx: Context) -> AuditCase:
        from authormask.release import create_mechanism

        own: dict[str, Any] = {}
        if case == "glove":
            emb, epsilon, (w, w2) = (
                ctx.glove().restrict(PEER_GLOVE_VOCAB),
                EMP_EPSILON_GLOVE,
                GLOVE_PAIR,
            )
            where = f"{emb.identity.name} ({len(emb.words)} words, {emb.dimension}-d)"
        else:
            emb, epsilon, (w, w2) = cluster_embeddings(), PEER_EPSILON_LINE, ("zero", "one")
            where = (
                f"1-d vocabulary zero=0, one and {CLUSTER_SIZE} words at 1, {FAR_WORDS} at "
                f"{FAR_AT:g}"
            )
            if kind == "tem":
                own["gamma"] = TEM_GAMMA_CLUSTER if case == "cluster-1d" else TEM_GAMMA_TRUNCATED
        mech: Any = create_mechanism(kind, **_peer_params(emb, epsilon, **own))
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        if kind == "tem":
            unit = f"min(d, gamma) = min({d:.4f}, {mech.gamma:g})"
            stated = mech.epsilon * min(d, mech.gamma)
        else:
            unit, stated = f"d = {d:.4f}", mech.epsilon * d
        return AuditCase(
            mechanism=kind,
            case=case,
            description=f"{kind} end to end, {where}, {w} vs {w2}, eps*{unit}, eps = "
            f"{mech.epsilon:g}" + (" (loose)" if case == "glove" else " (nearly attained)"),
            epsilon_stated=stated,
            neighbours=(w, w2),
            sampler=emp_text_sampler(mech),
            slack=mech.kernel.slack(),
            labels=_word_labels(emb),
        )

    return build


def _specs() -> dict[str, tuple[CaseSpec, ...]]:
    out: dict[str, tuple[CaseSpec, ...]] = {
        "emp-bag": (
            CaseSpec("emp-bag", "line-1d", _emp_line("emp-bag")),
            CaseSpec("emp-bag", "line-1d-N2", _emp_line("emp-bag", 2)),
            CaseSpec("emp-bag", "line-1d-posterior", _emp_line("emp-bag", 1, "posterior")),
            CaseSpec("emp-bag", "glove", _emp_glove("emp-bag")),
        ),
        "emp-text": (
            CaseSpec("emp-text", "line-1d", _emp_line("emp-text")),
            CaseSpec("emp-text", "line-1d-posterior", _emp_line("emp-text", 1, "posterior")),
            CaseSpec("emp-text", "glove", _emp_glove("emp-text")),
        ),
        "emp-doc": (
            *(
                CaseSpec("emp-doc", case, _emp_doc_line(case))
                for case in ("line-1d", "line-1d-function", "line-1d-posterior")
            ),
            CaseSpec("emp-doc", "glove", _emp_doc_glove),
        ),
        "random-sub": (CaseSpec("random-sub", "rate-1", _random_sub),),
    }
    for kind in ("erae", "ae-dp"):
        out[kind] = tuple(CaseSpec(kind, f"extreme-K{k}", _erae(kind, k)) for k in (10, 1000))
    out["syntf"] = tuple(CaseSpec("syntf", f"extreme-K{k}", _syntf(k)) for k in (10, 1000))
    out["random-r"] = (CaseSpec("random-r", "uniform-K1000", _random_r(1000)),)
    out["mahalanobis"] = tuple(
        CaseSpec("mahalanobis", case, _mahalanobis(case)) for case in ("line-1d", "glove")
    )
    out["tem"] = tuple(
        CaseSpec("tem", case, _vocabulary_exponential("tem", case))
        for case in ("cluster-1d", "truncated-1d", "glove")
    )
    out["santext"] = tuple(
        CaseSpec("santext", case, _vocabulary_exponential("santext", case))
        for case in ("cluster-1d", "glove")
    )
    return out


#: The audit cases of every mechanism name (each must be a registered name, and every
#: registered name must have at least one case: :func:`authormask.audit.audit_mechanisms`
#: refuses to run otherwise).
AUDITORS: dict[str, tuple[CaseSpec, ...]] = _specs()
