"""``Embeddings.squared_norms`` is computed in blocks of rows (issue 50: a float64 copy of the
whole matrix cost a one-sentence release 0.07-0.1 s in fresh pages); its values are the whole
matrix's, bit for bit, which the certified search's bounds are written for."""

from __future__ import annotations

import numpy as np
import pytest

from authormask.embeddings import _base
from authormask.embeddings._base import Embeddings


def test_the_norms_are_the_whole_matrixs_bit_for_bit(glove_20k: Embeddings) -> None:
    w = np.asarray(glove_20k.vectors, dtype=np.float64)
    assert np.array_equal(glove_20k.squared_norms(), np.einsum("ij,ij->i", w, w))


@pytest.mark.parametrize("rows", [1, 7, _base._NORM_BLOCK - 1, _base._NORM_BLOCK + 3])
def test_every_row_is_computed_whatever_the_number_of_rows(rows: int) -> None:
    rng = np.random.default_rng(20261130)
    vectors = (rng.standard_normal((rows, 50)) * 3).astype(np.float32)
    emb = Embeddings("probe", "test", tuple(f"w{i}" for i in range(rows)), vectors)
    w = vectors.astype(np.float64)
    norms = emb.squared_norms()
    assert norms.shape == (rows,) and np.array_equal(norms, np.einsum("ij,ij->i", w, w))
