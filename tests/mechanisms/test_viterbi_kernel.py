"""The context decoder's compiled Viterbi kernel chooses the same path as its numpy definition,
bit for bit: ties (to the lowest candidate), minus infinity and NaN included."""

from __future__ import annotations

import numpy as np

from authormask.mechanisms.decoding import viterbi_kernel, viterbi_path


def _case(rng: np.random.Generator, k: int, c: int, classes: int, tie: bool):
    cls = rng.integers(0, classes, size=(k, c)).astype(np.int64)
    if tie:  # few distinct values: many equal scores
        emit = rng.integers(-3, 1, size=(k, c)).astype(np.float64)
        trans = rng.integers(-2, 1, size=(classes + 1, classes + 1)).astype(np.float64)
    else:
        emit = rng.normal(size=(k, c)) * 3
        trans = np.log(rng.dirichlet(np.ones(classes + 1), size=classes + 1))
    return cls, emit, trans


def test_the_kernel_is_the_numpy_viterbi() -> None:
    kernel = viterbi_kernel()
    assert kernel is not viterbi_path and hasattr(kernel, "py_func")  # numba compiled it
    rng = np.random.default_rng(29)
    for trial in range(300):
        k = int(rng.integers(0, 40))
        c = int(rng.integers(1, 9))
        classes = int(rng.integers(1, 6))
        cls, emit, trans = _case(rng, k, c, classes, tie=trial % 2 == 0)
        if trial % 5 == 0 and k:  # a prior of zero somewhere
            emit[rng.integers(0, k), rng.integers(0, c)] = -np.inf
            trans[rng.integers(0, classes + 1), rng.integers(0, classes)] = -np.inf
        begin = classes
        want = viterbi_path(cls, emit, trans, begin)
        got = kernel(cls, emit, trans, begin)
        assert got.tolist() == want.tolist(), trial
    # NaN: numpy's argmax takes the first NaN; so does the kernel
    cls, emit, trans = _case(rng, 6, 4, 3, tie=True)
    emit[2, 3] = np.nan
    assert kernel(cls, emit, trans, 3).tolist() == viterbi_path(cls, emit, trans, 3).tolist()


def test_the_kernel_finds_the_best_path() -> None:
    # brute force over every path of a small lattice
    import itertools

    rng = np.random.default_rng(7)
    cls, emit, trans = _case(rng, 5, 3, 4, tie=False)
    best = max(
        itertools.product(range(3), repeat=5),
        key=lambda p: (
            trans[4, cls[0, p[0]]]
            + sum(emit[i, p[i]] for i in range(5))
            + sum(trans[cls[i - 1, p[i - 1]], cls[i, p[i]]] for i in range(1, 5))
        ),
    )
    assert viterbi_kernel()(cls, emit, trans, 4).tolist() == list(best)


def test_a_class_outside_the_transitions_is_refused() -> None:
    # the compiled kernel reads without bounds checks: the decoder refuses such a table
    import pytest

    from authormask.embeddings import Embeddings
    from authormask.exceptions import InvalidParameterError
    from authormask.mechanisms.decoding import SequenceDecoder

    rng = np.random.default_rng(3)
    emb = Embeddings("toy", "test", ("a", "b", "c"), rng.normal(size=(3, 2)).astype(np.float32))
    transitions = np.log(np.full((3, 2), 0.5))
    within = np.log(np.full(3, 1 / 3))
    for bad in ([0, 1, 2], [0, -1, 1]):
        with pytest.raises(InvalidParameterError, match="column of transitions"):
            SequenceDecoder(
                emb,
                epsilon=1.0,
                classes=np.array(bad, dtype=np.int16),
                transitions=transitions,
                within=within,
                prior_name="toy",
            )
