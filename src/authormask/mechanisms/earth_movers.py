"""Earth Mover's privacy for text (Fernandes, Dras & McIver 2019, Algorithms 1-2, Theorem 4).

Two release mechanisms share the per-word mechanism ``K`` (:class:`EarthMoversMechanism`):

* :class:`EMPBag` (``emp-bag``): Algorithm 2. The document's content words are reduced to a bag of
  exactly N words (N is a public parameter), each is perturbed, and the bag is released in
  sorted order. Guarantee: ``epsilon * N * E``-privacy over bags of N words (Theorem 4).
* :class:`EMPText` (``emp-text``): the same per-word mechanism applied in place to every content
  position of the text; the skeleton (stopwords, punctuation, whitespace, positions and
  capitalisation) is released unchanged. Guarantee: ``epsilon * sum_i d(v_i, v'_i)`` between
  documents with the same skeleton (eq. 6).

Both compute their :class:`~authormask.accounting.statement.PrivacyStatement` from their
parameters alone; per-document counts are diagnostics for the private run report.

Where things live (this module only re-exports them, so every name keeps its import path):

* :mod:`~authormask.mechanisms.earth_movers_kernel`: ``K`` itself (Theorem 2: noise and
  snapping), :class:`WordKernel`, :func:`words_perturbed`, the reference and notes;
* :mod:`~authormask.mechanisms.earth_movers_text`: the shared base of the word-level releases
  and :class:`EMPText`;
* :mod:`~authormask.mechanisms.earth_movers_bag`: :class:`BagUnit` and :class:`EMPBag`.

Their specs (emp-bag, emp-text) and factories, as the registry offers them:
:mod:`~authormask.mechanisms.earth_movers_spec`.
"""

from __future__ import annotations

from authormask.defaults import DEFAULT_LENGTH
from authormask.mechanisms.earth_movers_bag import MAX_LENGTH, BagUnit, EMPBag
from authormask.mechanisms.earth_movers_kernel import FLOATING_POINT as FLOATING_POINT
from authormask.mechanisms.earth_movers_kernel import MAX_MEAN_NOISE as MAX_MEAN_NOISE
from authormask.mechanisms.earth_movers_kernel import REFERENCE as REFERENCE
from authormask.mechanisms.earth_movers_kernel import TITLE as TITLE
from authormask.mechanisms.earth_movers_kernel import EarthMoversMechanism, WordKernel
from authormask.mechanisms.earth_movers_kernel import words_perturbed as words_perturbed
from authormask.mechanisms.earth_movers_text import EMPText
from authormask.mechanisms.earth_movers_text import _counts as _counts
from authormask.mechanisms.earth_movers_text import _EMPBase as _EMPBase

__all__ = [
    "DEFAULT_LENGTH",
    "MAX_LENGTH",
    "BagUnit",
    "EMPBag",
    "EMPText",
    "EarthMoversMechanism",
    "WordKernel",
]
