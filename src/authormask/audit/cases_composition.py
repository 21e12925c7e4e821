"""Audit cases of one secret seed used for two releases (issue 30 B): one text twice, and two
different texts.

Every release draws its noise from a root keyed by the secret seed *and* the release's public
parameters (:func:`~authormask.randomness.release_root`), so two releases of one text with one
seed at two epsilons are two independent draws, and their joint output is
``(eps_1 + eps_2) * d``-private (basic composition). Were the root the seed's alone, the Gamma
radius and direction would be shared and only scaled by ``1/eps``: on a 1-d line, the pair of
outputs ``(zero, one)`` is then impossible from ``zero`` and possible from ``one`` (an unbounded
privacy loss), which this case finds.

* ``line-1d-twice`` (``emp-text``): the 1-d vocabulary of :func:`line_embeddings`, the words
  ``zero`` and ``one`` (``d = 1``), released at epsilon 2 and 3 with the same seed through the
  public derivation (the statement's JSON, :func:`~authormask.randomness.release_root`, the
  document's generator, ``prepare`` and ``perturb``); the output is the pair of released words,
  the stated bound ``(2 + 3) * 1 = 5``. A block of draws is one text of the word repeated
  (every content position an independent draw), released at both epsilons under one fresh seed.
* ``line-1d-two-texts`` (``emp-text``): two *different* texts released with one seed and the
  same public parameters (epsilon 2), each the first document of its own release, through the
  public API (:func:`authormask.core.release`): a public text (the word ``left`` repeated) and
  the audited one (``zero`` or ``one`` repeated). The output is the pair of released words at
  each position; the public text's release does not depend on the audited word, so the stated
  bound is ``2 * d = 2``. A document's noise keyed by the seed, the parameters and its position
  alone would be the same in both releases, and the public text's release would tell where the
  noise put the other (an unbounded loss on the line), which this case finds.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray

from authormask.audit.case_spec import Context
from authormask.audit.cases_earth_movers import line_embeddings
from authormask.audit.core import AuditCase, Sampler
from authormask.randomness import document_generator, release_root

__all__ = ["TWICE_EPSILONS", "TWO_TEXTS_EPSILON", "twice_sampler", "two_texts_sampler"]

#: the two epsilons of the two releases
TWICE_EPSILONS = (2.0, 3.0)
#: the epsilon of both releases of the two-texts case
TWO_TEXTS_EPSILON = 2.0
#: the public text's word in the two-texts case
PUBLIC_WORD = "left"
#: draws per block (one text, one seed)
BLOCK = 2_000

Root = Callable[[int, str], np.random.SeedSequence]


def twice_sampler(mechanisms: tuple[Any, Any], *, root: Root = release_root) -> Sampler:
    """Sampler of two ``emp-text`` releases (on :func:`line_embeddings`) of one text with one
    seed: input = a word; output =
    the pair of released words' rows, coded ``row_1 * K + row_2``. ``root(seed, statement)``
    derives a release's root (the project's :func:`~authormask.randomness.release_root`; a
    test passes a broken one to show the case catches it).

    Parameters
    ----------
    mechanisms
        The two ``emp-text`` mechanisms, one per release.
    root
        Derives a release's root generator from its seed and statement.

    Returns
    -------
    Sampler
        The sampler of the pair of releases.
    """
    first = mechanisms[0]
    emb = line_embeddings()
    size = len(emb.words)
    keys = tuple(m.statement(seeded=True).to_json() for m in mechanisms)

    @functools.lru_cache(maxsize=8)
    def prepared(word: str, n: int) -> Any:
        return first.prepare(" ".join([word] * n))

    def sample(word: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        codes: list[NDArray[np.int64]] = []
        left = n
        while left > 0:
            b = min(BLOCK, left)
            doc = prepared(str(word), b)
            seed = int(rng.integers(2**63))
            rows = []
            for mech, key in zip(mechanisms, keys, strict=True):
                gen = document_generator(root(seed, key), 0)
                out = mech.perturb([doc], [gen])[0]
                rows.append(np.array([emb.index_of(w) for w in out.words], dtype=np.int64))
            codes.append(rows[0] * size + rows[1])
            left -= b
        return np.concatenate(codes)

    return sample


def twice_mechanisms(name: str, epsilons: tuple[float, float] = TWICE_EPSILONS) -> tuple[Any, Any]:
    """``emp-text`` (registered as ``name``) on the 1-d line at the two ``epsilons``."""
    from authormask.core import create_mechanism

    emb = line_embeddings()
    made = tuple(
        create_mechanism(
            name,
            epsilon=eps,
            embeddings=emb,
            vocab_size=None,
            stopwords="none",
            decoder="nearest",
            oov_map_to="zero",
            entities="keep",  # "zero" and "one" are the words audited, not numbers to replace
        )
        for eps in epsilons
    )
    return made[0], made[1]


def two_texts_sampler(mechanism: Any) -> Sampler:
    """Sampler of two ``emp-text`` releases (on :func:`line_embeddings`) with one seed and the
    same parameters, of a public text and of the audited one: input = a word; output = the pair
    (the public text's released word, the audited text's) at each position, coded
    ``row_1 * K + row_2``. Both go through :func:`authormask.core.release`, as a user's would.

    Parameters
    ----------
    mechanism
        The ``emp-text`` mechanism of both releases.

    Returns
    -------
    Sampler
        The sampler of the pair of releases.
    """
    from authormask.core import release

    emb = line_embeddings()
    size = len(emb.words)

    def sample(word: Any, n: int, rng: np.random.Generator) -> NDArray[np.int64]:
        codes: list[NDArray[np.int64]] = []
        left = n
        while left > 0:
            b = min(BLOCK, left)
            seed = int(rng.integers(2**63))
            rows = []
            for text_word in (PUBLIC_WORD, str(word)):
                out = release([" ".join([text_word] * b)], mechanism, random_state=seed)
                words = out.documents[0].words
                rows.append(np.array([emb.index_of(w) for w in words], dtype=np.int64))
            codes.append(rows[0] * size + rows[1])
            left -= b
        return np.concatenate(codes)

    return sample


def _two_texts(name: str) -> Callable[[Context], AuditCase]:
    """The case ``line-1d-two-texts`` of ``emp-text`` (registered as ``name``)."""

    def build(ctx: Context) -> AuditCase:
        mech = twice_mechanisms(name, (TWO_TEXTS_EPSILON, TWO_TEXTS_EPSILON))[0]
        stated = TWO_TEXTS_EPSILON * _zero_one()
        return AuditCase(
            mechanism=name,
            case="line-1d-two-texts",
            description=(
                f"two different texts released with one seed at epsilon {TWO_TEXTS_EPSILON:g}: "
                f"'{PUBLIC_WORD}' repeated (public) and zero vs one on the 1-d line, the pair of "
                f"outputs, eps * d = {stated:g} (the public text's release is independent)"
            ),
            epsilon_stated=stated,
            neighbours=("zero", "one"),
            sampler=two_texts_sampler(mech),
            labels=_line_labels(),
        )

    return build


def _line_labels() -> Callable[[int], str]:
    """The labels of pair codes ``row_1 * K + row_2`` on the 1-d line."""
    words = tuple(line_embeddings().words)
    size = len(words)

    def label(code: int) -> str:
        return f"({words[code // size]}, {words[code % size]})"

    return label


def _zero_one() -> float:
    """The distance of ``zero`` and ``one`` on the 1-d line (the audited neighbours)."""
    emb = line_embeddings()
    rows = emb.vectors[[emb.index_of("zero"), emb.index_of("one")]]
    return float(np.linalg.norm(rows[0] - rows[1]))


def _twice(name: str) -> Callable[[Context], AuditCase]:
    """The case ``line-1d-twice`` of ``emp-text`` (registered as ``name``)."""

    def build(ctx: Context) -> AuditCase:
        mechs = twice_mechanisms(name)
        stated = sum(TWICE_EPSILONS) * _zero_one()
        return AuditCase(
            mechanism=name,
            case="line-1d-twice",
            description=(
                "one text released twice with one seed, at epsilon "
                f"{TWICE_EPSILONS[0]:g} and {TWICE_EPSILONS[1]:g}; words zero vs one on the 1-d "
                f"line, the pair of outputs, (eps1 + eps2) * d = {stated:g} (basic composition)"
            ),
            epsilon_stated=stated,
            neighbours=("zero", "one"),
            sampler=twice_sampler(mechs),
            labels=_line_labels(),
        )

    return build
