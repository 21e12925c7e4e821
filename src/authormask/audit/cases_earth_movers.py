"""Audit cases of Earth Mover's privacy (``emp-bag``, ``emp-text``, ``emp-doc``) and of
``random-sub``, with the samplers that run those mechanisms end to end.

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

* ``emp-doc`` and ``random-sub`` (at rate 1) run end to end through the canonical skeleton
  (:func:`emp_doc_sampler`).

The peer word-level mechanisms reuse :func:`emp_text_sampler`
(:mod:`~authormask.audit.cases_peers`). The table of every mechanism's cases is
:data:`authormask.audit.cases.AUDITORS`.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.case_spec import Context
from authormask.audit.cases_tokens import _token_embeddings
from authormask.audit.core import AuditCase, Sampler
from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError

__all__ = [
    "EMP_EPSILON_GLOVE",
    "EMP_EPSILON_LINE",
    "emp_bag_sampler",
    "emp_doc_sampler",
    "emp_text_sampler",
    "line_embeddings",
]

#: eps of the Earth Mover's cases on the 1-d line (d = 1: stated eps*d = 2).
EMP_EPSILON_LINE = 2.0
#: eps of the Earth Mover's case on real GloVe words (d(man, woman) = 2.60: stated 26.0).
EMP_EPSILON_GLOVE = 10.0
GLOVE_PAIR = ("man", "woman")
LINE_WORDS = ("left", "zero", "one", "right")


def line_embeddings(distance: float = 1.0, margin: float = 0.2) -> Embeddings:
    """The 1-d vocabulary ``left=-margin, zero=0, one=distance, right=distance+margin``.

    Parameters
    ----------
    distance
        Where ``one`` lies (``zero`` is at 0).
    margin
        How far ``left`` and ``right`` lie beyond ``zero`` and ``one``.

    Returns
    -------
    Embeddings
        The four 1-d vectors.

    Raises
    ------
    InvalidParameterError
        If ``distance`` or ``margin`` is not above 0.
    """
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
    bag of N perturbed words, coded as one integer (base = vocabulary size).

    Parameters
    ----------
    mechanism
        The ``emp-bag`` mechanism (its kernel and bag size ``N``).

    Returns
    -------
    Sampler
        The sampler; it raises :class:`~authormask.exceptions.InvalidParameterError` for a bag
        of other than ``N`` words.
    """
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
    independent draw of K); output = the vocabulary row of each released word.

    Parameters
    ----------
    mechanism
        The ``emp-text`` mechanism.

    Returns
    -------
    Sampler
        The sampler; it raises :class:`~authormask.exceptions.InvalidParameterError` for a word
        that is not a content word of the mechanism.
    """
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
    released word (a content word or a function word: both are rows of the embeddings).

    Parameters
    ----------
    mechanism
        The ``emp-doc`` or ``random-sub`` mechanism.

    Returns
    -------
    Sampler
        The sampler; it raises :class:`~authormask.exceptions.InvalidParameterError` for an
        input that is not one word of the mechanism.
    """
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


def _emp_doc_line(name: str, case: str) -> Callable[[Context], AuditCase]:
    """``emp-doc`` (registered as ``name``) on the 1-d line: ``line-1d`` (zero and one are content
    words; function word ``of`` far away), ``line-1d-function`` (every line word is a function word:
    the closed class is the line, perturbed with ``function_epsilon``), ``line-1d-posterior``
    (content words, posterior decoder). The output ``right`` attains the bound in each."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

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
        mech: Any = core_mechanism(name, embeddings=emb, vocab_size=None, **params)
        eps = mech.function_epsilon if function else mech.epsilon
        return AuditCase(
            mechanism=name,
            case=case,
            description=(
                f"{name} end to end, 1-d vocabulary "
                "{left=-0.2, zero=0, one=1, right=1.2}, "
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
    """Earth Mover's privacy on the 1-d line, through the bag's kernel for a mechanism whose
    spec releases a bag (``emp-bag``), end to end otherwise (``emp-text``)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.accounting.emd import word_movers_distance
        from authormask.audit.case_spec import core_mechanism
        from authormask.core import mechanism_spec

        bag = mechanism_spec(kind).release == "bag"
        emb = line_embeddings()
        params: dict[str, Any] = {
            "epsilon": EMP_EPSILON_LINE,
            "embeddings": emb,
            "vocab_size": None,
            "stopwords": "none",
            "decoder": decoder,
        }
        if bag:
            params["length"] = bag_size
        else:
            params["oov_map_to"] = "zero"  # "unknown" is not in this vocabulary (and never used)
        mech: Any = core_mechanism(kind, **params)
        a, b = ("zero",) * bag_size, ("one",) * bag_size
        if bag:
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
            labels=_word_labels(emb, bag_size if bag else 1),
        )

    return build


def _emp_text_unknown(name: str) -> Callable[[Context], AuditCase]:
    """``emp-text`` (registered as ``name``) with an unknown word (``qzxv``, no vector) vs
    ``one`` on the 1-d line: the unknown word is fed as a word drawn by Zipf's law
    (:mod:`authormask.mechanisms.unknown`), so its output law is a mixture of the per-word laws;
    stated bound ``eps * max_u d(u, one)`` (``left``, 1.2 away)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        emb = line_embeddings()
        mech: Any = core_mechanism(
            name, epsilon=EMP_EPSILON_LINE, embeddings=emb, vocab_size=None, stopwords="none"
        )
        vectors = emb.vectors.astype(np.float64)
        one = vectors[emb.index_of("one")]
        farthest = float(np.max(np.linalg.norm(vectors - one, axis=1)))
        return AuditCase(
            mechanism=name,
            case="line-1d-unknown",
            description="1-d vocabulary {left=-0.2, zero=0, one=1, right=1.2}, an unknown word "
            "(drawn by Zipf's law in its place) vs one, "
            f"eps*max_u d(u, one) = {mech.epsilon:g}*{farthest:g}",
            epsilon_stated=mech.epsilon * farthest,
            neighbours=("qzxv", "one"),
            sampler=emp_text_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def _emp_glove(kind: str) -> Callable[[Context], AuditCase]:
    """Earth Mover's privacy on two GloVe words (a bag of one word for a mechanism whose spec
    releases a bag)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism
        from authormask.core import mechanism_spec

        bag = mechanism_spec(kind).release == "bag"
        emb = ctx.glove()
        params: dict[str, Any] = {
            "epsilon": EMP_EPSILON_GLOVE,
            "embeddings": emb,
            "vocab_size": None,
            "stopwords": "none",
        }
        if bag:
            params["length"] = 1
        mech: Any = core_mechanism(kind, **params)
        w, w2 = GLOVE_PAIR
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        return AuditCase(
            mechanism=kind,
            case="glove",
            description=f"{emb.identity.name} ({len(emb.words)} words, {emb.dimension}-d), "
            f"{w} vs {w2}, eps*d = {mech.epsilon:g}*{d:.4f} (loose in 50 dimensions)",
            epsilon_stated=mech.epsilon * d,
            neighbours=((w,), (w2,)) if bag else (w, w2),
            sampler=emp_bag_sampler(mech) if bag else emp_text_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def _emp_doc_glove(name: str) -> Callable[[Context], AuditCase]:
    """``emp-doc`` (registered as ``name``) end to end on two GloVe content words."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        emb = ctx.glove()
        mech: Any = core_mechanism(name, epsilon=EMP_EPSILON_GLOVE, embeddings=emb, vocab_size=None)
        w, w2 = GLOVE_PAIR
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        return AuditCase(
            mechanism=name,
            case="glove",
            description=f"{name} end to end, {emb.identity.name} ({len(emb.words)} words), {w} "
            f"vs {w2} as content words, eps*d = {mech.epsilon:g}*{d:.4f} (loose in 50 "
            "dimensions)",
            epsilon_stated=mech.epsilon * d,
            neighbours=(w, w2),
            sampler=emp_doc_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def _random_sub(name: str) -> Callable[[Context], AuditCase]:
    """``random-sub`` (registered as ``name``) at rate 1, the one rate at which its words do not
    depend on the input (stated 0; below 1 the statement declares no guarantee, and none
    holds)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        emb = _token_embeddings(1000)
        mech: Any = core_mechanism(
            name,
            rate=1.0,
            embeddings=emb,
            vocab_size=None,
            stopwords={emb.words[-1]},
            oov_map_to=emb.words[0],
        )
        return AuditCase(
            mechanism=name,
            case="rate-1",
            description=f"{name} end to end at rate 1, K={len(emb)} content words, input "
            f"words {emb.words[1]} vs {emb.words[2]}; every word replaced by a uniform one "
            "(epsilon 0)",
            epsilon_stated=0.0,
            neighbours=(emb.words[1], emb.words[2]),
            sampler=emp_doc_sampler(mech),
            labels=_word_labels(emb),
        )

    return build


def emp_write_sampler(mechanism: Any) -> Sampler:
    """Sampler of an ``emp-write`` mechanism: input = a word, or a tuple of K words (a document
    of K content words); ``n`` draws = ``n`` such documents, prepared by the mechanism and
    released through its kernel (Earth Mover's noise in word order, then its decoder on each
    document's noisy vectors alone, so the context decoder couples the K words); output = the
    released rows, one integer (base = vocabulary size). The writer, which only writes function
    words and marks around the released words, is left out: it is post-processing of this
    output, and that the skeleton reaches nothing is checked exactly, not statistically (the
    same release for two texts with the same content words, ``tests/mechanisms``)."""
    emb = mechanism.embeddings
    kernel = mechanism.kernel
    size = len(emb.words)

    def sample(words: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        doc = (str(words),) if isinstance(words, str) else tuple(str(w) for w in words)
        if mechanism.prepare(" ".join(doc)).words != doc:
            raise InvalidParameterError(f"{words!r} are not content words of the mechanism")
        k = len(doc)
        noisy = kernel.noisy_vectors([emb.index_of(w) for w in doc] * n, random_state=rng)
        rows = kernel.snap_sequences([noisy[i * k : (i + 1) * k] for i in range(n)])
        code = np.zeros(n, dtype=np.int64)
        for j in range(k):
            code = code * size + np.array([int(r[j]) for r in rows], dtype=np.int64)
        return code

    return sample


def _emp_write(name: str, case: str) -> Callable[[Context], AuditCase]:
    """``emp-write`` (registered as ``name``): ``line-1d`` (the 1-d line, the context decoder),
    ``line-1d-nearest`` (the paper's decoder: the output ``right`` attains the bound),
    ``line-1d-K2`` (the documents "zero zero" vs "one one", the context decoder over both words:
    stated 2 * eps * d), ``glove`` (man vs woman) and ``glove-nouns`` (the same under
    ``content="nouns"``: the decoder sends only the nouns of the public lexicon)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.audit.case_spec import core_mechanism

        glove = case.startswith("glove")
        nouns = case == "glove-nouns"
        emb = ctx.glove() if glove else line_embeddings()
        eps = EMP_EPSILON_GLOVE if glove else EMP_EPSILON_LINE
        decoder = "nearest" if case == "line-1d-nearest" else "context"
        mech: Any = core_mechanism(
            name,
            epsilon=eps,
            embeddings=emb,
            vocab_size=None,
            stopwords="none",
            decoder=decoder,
            content="nouns" if nouns else "words",
        )
        w, w2 = GLOVE_PAIR if glove else ("zero", "one")
        if nouns and not {w, w2} <= mech.released[0]:
            raise InvalidParameterError(f"{w} and {w2} must be nouns of the lexicon")
        d = float(np.linalg.norm(emb.lookup([w])[0].astype(np.float64) - emb.lookup([w2])[0]))
        where = (
            f"{emb.identity.name} ({len(emb.words)} words)"
            if glove
            else "1-d vocabulary {left=-0.2, zero=0, one=1, right=1.2}"
        )
        k = 2 if case == "line-1d-K2" else 1
        return AuditCase(
            mechanism=name,
            case=case,
            description=f"{name}'s kernel and {decoder} decoder"
            + (" (content nouns)" if nouns else "")
            + f", {where}, "
            f"{' '.join([w] * k)} vs {' '.join([w2] * k)}, eps*K*d = {eps:g}*{k}*{d:.4f}",
            epsilon_stated=eps * k * d,
            neighbours=(w, w2) if k == 1 else ((w,) * k, (w2,) * k),
            sampler=emp_write_sampler(mech),
            labels=_word_labels(emb, k),
        )

    return build


#: the entity step's cases (``emp-write`` as the user runs it, names replaced): two texts that
#: differ only in what the recogniser reads, and the epsilon of the words it then gives
ENTITY_PAIRS = {
    # the recogniser takes DOG for an organisation: the position holds a listed word instead
    "entities-casing": ("The dog ran.", "The DOG ran."),
    # SAID is taken into the name, but emp-write never releases it: the same K, the same words
    "entities-unreleased": ("NASA said it.", "NASA SAID it."),
}


def entity_step_sampler(mechanism: Any) -> Sampler:
    """Sampler of a text mechanism with its entity step (an
    :class:`~authormask.mechanisms.inputs.EntityInputs` over ``emp-write``): input = a text;
    ``n`` draws = ``n`` releases, each with its own generator (its surrogates drawn by the
    entity step as a release draws them, :meth:`~authormask.mechanisms.inputs.EntityInputs.
    stepped_text`), the words the step gives the mechanism then released through its kernel
    and decoder in one batch; output = the released rows, one integer (base = vocabulary
    size). The number of words given must be the same for every draw (the entity step never
    changes it): a draw that changes it is an error, not an output."""
    inner = mechanism.inner
    emb = inner.embeddings
    kernel = inner.kernel
    size = len(emb.words)

    def sample(text: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        rows: list[tuple[str, ...]] = []
        for child in rng.spawn(n):
            stepped = mechanism.stepped_text(str(text), child)
            rows.append(tuple(w for u in inner.prepare_parts([stepped]) for w in u.words))
        k = len(rows[0])
        if any(len(r) != k for r in rows):
            raise InvalidParameterError(f"the entity step changed K on {text!r}")
        noisy = kernel.noisy_vectors([emb.index_of(w) for r in rows for w in r], random_state=rng)
        snapped = kernel.snap_sequences([noisy[i * k : (i + 1) * k] for i in range(n)])
        code = np.zeros(n, dtype=np.int64)
        for j in range(k):
            code = code * size + np.array([int(r[j]) for r in snapped], dtype=np.int64)
        return code

    return sample


def _emp_write_entities(name: str, case: str) -> Callable[[Context], AuditCase]:
    """``emp-write`` (registered as ``name``) as the user runs it, with its entity step
    (``entities="surrogate"``), on GloVe: the two texts of :data:`ENTITY_PAIRS` ``[case]``.
    The step gives the mechanism the same number of words for both (tested exactly in
    ``tests/mechanisms``); what the recogniser decides is which of them are listed words. For
    a pair the step gives the mechanism as the same words with the same draws of listed
    words, the stated epsilon is 0; where it gives a word ``w`` for one text and a listed
    word ``s`` for the other, it is ``eps * max_s d(w, s)`` over every listed word the step can
    draw there (a mixture of ``eps * d``-private releases: the largest ratio bounds it)."""

    def build(ctx: Context) -> AuditCase:
        from authormask.core import create_mechanism

        emb = ctx.glove()
        eps = EMP_EPSILON_GLOVE
        mech: Any = create_mechanism(
            name, epsilon=eps, embeddings=emb, vocab_size=None, entities="surrogate"
        )
        a, b = ENTITY_PAIRS[case]
        given = [
            {mech.stepped_text(t, np.random.default_rng(s)) for s in range(64)} for t in (a, b)
        ]
        if case == "entities-unreleased":
            stated = 0.0
            words = "the same words"
        else:
            word = "dog"  # the word "The dog ran." gives; "The DOG ran." a listed word there
            drawn = {
                w
                for t in given[1]
                for u in mech.inner.prepare_parts([t])
                for w in u.words
                if w != "ran"
            }
            pool = set(mech.kinds.pool("any", "content")) | drawn
            v = emb.lookup([word])[0].astype(np.float64)
            far = max(
                float(np.linalg.norm(emb.lookup([p.lower()])[0].astype(np.float64) - v))
                for p in pool
                if p.lower() in emb
            )
            stated = eps * far
            words = f"'{word}' vs a listed word (max distance {far:.3f} over {len(pool)})"
        return AuditCase(
            mechanism=name,
            case=case,
            description=f"{name} with its entity step (surrogate), {emb.identity.name}, "
            f"{a!r} vs {b!r}: {words}",
            epsilon_stated=stated,
            neighbours=(a, b),
            sampler=entity_step_sampler(mech),
            labels=_word_labels(emb, 1),
        )

    return build
