"""Peer word-level mechanisms that the field compares against, released in place like ``emp-text``.

Each replaces every content word of a text independently (stopwords, punctuation and layout are
the released skeleton, exactly as in :class:`~authormask.mechanisms.earth_movers.EMPText`, whose
text handling they share) and states its own guarantee:

* **Mahalanobis** (``mahalanobis``; Xu, Aggarwal, Feyisetan & Teissier, "A Differentially
  Private Text Perturbation Method Using a Regularized Mahalanobis Metric", PrivateNLP 2020,
  Algorithm 1): elliptical noise ``Z = Y * Sigma_lambda^(1/2) * X``, ``X`` uniform on the unit
  sphere, ``Y ~ Gamma(n, 1/epsilon)``, ``Sigma_lambda = lambda * Sigma + (1 - lambda) * I`` with
  ``Sigma`` the covariance of the vocabulary's vectors scaled to trace n; the noisy vector snaps
  to the Euclidean-nearest vocabulary word. Guarantee: ``epsilon * d_R``-privacy per word with
  the regularized Mahalanobis distance ``d_R(x, y) = sqrt((x - y)^T Sigma_lambda^-1 (x - y))``.
* **TEM** (``tem``; Carvalho, Vasiloudis, Feyisetan & Wang, "TEM: High Utility Metric
  Differential Privacy on Text", arXiv 2107.07928 / SDM 2023, Algorithm 1): candidates
  ``L_w = {w' : d(w, w') <= gamma}`` scored ``-d(w, w')``, one extra element ``bottom`` scored
  ``-gamma + 2 ln|V \\ L_w| / epsilon``, Gumbel noise of scale ``2 / epsilon`` on every score,
  the argmax released (a uniform word of ``V \\ L_w`` when ``bottom`` wins). Guarantee:
  ``epsilon * d``-privacy per word (Euclidean ``d``), and in fact ``epsilon * min(d, gamma)``.
* **SanText** (``santext``; Yue, Du, Wang, Li, Sun & Chow, "Differential Privacy for Text
  Analytics via Natural Text Sanitization", Findings of ACL-IJCNLP 2021, the SANTEXT sampling
  distribution): ``P[y | x] proportional to exp(-epsilon * d_euc(x, y) / 2)`` over the whole
  vocabulary. Guarantee: ``epsilon * d_euc``-privacy per word (their metric local DP theorem).

Where things live (this module only re-exports them, so every name keeps its import path):

* :mod:`~authormask.mechanisms.mahalanobis`: the Mahalanobis per-word mechanism and its
  regularized covariance;
* :mod:`~authormask.mechanisms.vocabulary_exponential`: TEM's and SanText's per-word
  exponential mechanisms, the certified distances they are drawn on, and the notes on how each
  is kept exact (with TEM's law: why one exact draw is Algorithm 1);
* :mod:`~authormask.mechanisms.peer_texts`: the three releases in place
  (:class:`MahalanobisText`, :class:`TEMText`, :class:`SanText`).

Their specs (mahalanobis, tem, santext) and factories, as the registry offers them:
:mod:`~authormask.mechanisms.peers_spec`.
"""

from __future__ import annotations

from authormask.defaults import DEFAULT_REGULARIZATION
from authormask.mechanisms.mahalanobis import (
    MahalanobisMechanism,
    check_regularization,
    regularized_covariance,
)
from authormask.mechanisms.peer_texts import CARVALHO2021 as CARVALHO2021
from authormask.mechanisms.peer_texts import XU2020 as XU2020
from authormask.mechanisms.peer_texts import YUE2021 as YUE2021
from authormask.mechanisms.peer_texts import MahalanobisText, SanText, TEMText
from authormask.mechanisms.vocabulary_exponential import (
    TEM_BETA,
    SanTextMechanism,
    TruncatedExponentialMechanism,
    WordDistances,
    diameter_bound,
    distance_relative_error,
    tem_default_gamma,
)

__all__ = [
    "DEFAULT_REGULARIZATION",
    "TEM_BETA",
    "MahalanobisMechanism",
    "MahalanobisText",
    "SanText",
    "SanTextMechanism",
    "TEMText",
    "TruncatedExponentialMechanism",
    "WordDistances",
    "check_regularization",
    "diameter_bound",
    "distance_relative_error",
    "regularized_covariance",
    "tem_default_gamma",
]
