"""Per-epsilon word statistics, to choose epsilon for a given set of embeddings.

The scale of epsilon depends on the embeddings (the noise radius has mean n / epsilon in the
units of the vectors), so the same epsilon means very different things for GloVe 50-d and
word2vec 300-d. For each epsilon these statistics are estimated by sampling the per-word
mechanism K that ``emp-bag`` and ``emp-text`` apply to every content word (this is a study of K
itself, word by word, not a release: nothing is published, so it samples K directly rather than
through :func:`authormask.release.release`, which would also tokenise and drop punctuation-like
vocabulary entries).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from authormask.embeddings._base import Embeddings
from authormask.exceptions import InvalidParameterError
from authormask.mechanisms.earth_movers import EarthMoversMechanism
from authormask.randomness import RandomState, check_random_state
from authormask.text.stopwords import default_stopwords
from authormask.validation import check_epsilon, check_positive_int

__all__ = ["CalibrationResult", "CalibrationRow", "word_statistics"]


@dataclass(frozen=True)
class CalibrationRow:
    """Statistics of the per-word mechanism at one epsilon, averaged over the probe words.

    ``p_unchanged``: probability that a word comes back as itself. ``effective_outputs``:
    ``exp(entropy)`` of the output distribution (1 = always the same word). ``distinct_outputs``:
    distinct words seen in ``samples`` draws. ``mean_radius``: expected noise norm ``n / eps``.
    """

    epsilon: float
    p_unchanged: float
    p_unchanged_stderr: float
    effective_outputs: float
    distinct_outputs: float
    mean_radius: float


@dataclass(frozen=True)
class CalibrationResult:
    embeddings: dict[str, object]
    words: tuple[str, ...]
    samples: int
    rows: tuple[CalibrationRow, ...]


def word_statistics(
    embeddings: Embeddings,
    *,
    epsilons: Sequence[float],
    words: Sequence[str] | None = None,
    n_words: int = 100,
    samples: int = 100,
    pool: int = 2000,
    random_state: RandomState = None,
    progress: Callable[[int], None] | None = None,
) -> CalibrationResult:
    """Estimate, per epsilon, how often words survive and how many outputs they spread over.

    Probe words default to ``n_words`` drawn uniformly from the ``pool`` most frequent
    non-stopword words of the vocabulary.
    """
    if not epsilons:
        raise InvalidParameterError("at least one epsilon is needed")
    eps_list = [check_epsilon(e) for e in epsilons]
    samples = check_positive_int(samples, name="samples")
    rng = check_random_state(random_state)
    if words is None:
        n_words = check_positive_int(n_words, name="n_words")
        stop = default_stopwords()
        candidates = [w for w in embeddings.words[: max(pool, n_words)] if w not in stop]
        if not candidates:
            raise InvalidParameterError("no probe words available in the vocabulary")
        pick = rng.choice(len(candidates), size=min(n_words, len(candidates)), replace=False)
        probe = tuple(candidates[int(i)] for i in np.sort(pick))
    else:
        probe = tuple(words)
        missing = [w for w in probe if w not in embeddings]
        if missing:
            raise InvalidParameterError(f"probe words not in the vocabulary: {missing[:5]}")
    rows_in = np.repeat([embeddings.index_of(w) for w in probe], samples)
    out_rows: list[CalibrationRow] = []
    for eps in eps_list:
        # the search index is the shared one of these embeddings, built once for every epsilon
        # (and for every release with the same Embeddings object)
        mech = EarthMoversMechanism(embeddings, epsilon=eps)
        out = mech.perturb_indices(rows_in, random_state=rng).reshape(len(probe), samples)
        src = rows_in.reshape(len(probe), samples)
        same = (out == src).mean(axis=1)
        eff = []
        distinct = []
        for row in out:
            counts = np.array(list(Counter(row.tolist()).values()), dtype=np.float64)
            p = counts / counts.sum()
            eff.append(float(np.exp(-(p * np.log(p)).sum())))
            distinct.append(len(counts))
        out_rows.append(
            CalibrationRow(
                epsilon=eps,
                p_unchanged=float(same.mean()),
                p_unchanged_stderr=float(same.std(ddof=1) / np.sqrt(len(same)))
                if len(same) > 1
                else 0.0,
                effective_outputs=float(np.mean(eff)),
                distinct_outputs=float(np.mean(distinct)),
                mean_radius=embeddings.dimension / eps,
            )
        )
        if progress is not None:
            progress(1)
    return CalibrationResult(
        embeddings=embeddings.identity.to_dict(),
        words=probe,
        samples=samples,
        rows=tuple(out_rows),
    )
