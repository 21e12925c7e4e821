"""The peer word-level mechanisms as releases, in place like ``emp-text``: ``mahalanobis``,
``tem`` and ``santext``.

Each subclass of :class:`~authormask.mechanisms.earth_movers_text.EMPText` replaces every content
word of a text independently with its own per-word kernel (stopwords, punctuation and layout are
the released skeleton, exactly as in ``emp-text``, whose text handling they share) and states its
own guarantee, reference and floating-point note:

* :class:`MahalanobisText` over
  :class:`~authormask.mechanisms.mahalanobis.MahalanobisMechanism` (Xu et al. 2020):
  ``epsilon * d_R`` per word;
* :class:`TEMText` over
  :class:`~authormask.mechanisms.vocabulary_exponential.TruncatedExponentialMechanism`
  (Carvalho et al. 2021): ``epsilon * min(d, gamma)`` per word;
* :class:`SanText` over :class:`~authormask.mechanisms.vocabulary_exponential.SanTextMechanism`
  (Yue et al. 2021): ``epsilon * d_euc`` per word.
"""

from __future__ import annotations

import math

from authormask.accounting.statement import PrivacyStatement, exact, upper
from authormask.defaults import DEFAULT_REGULARIZATION
from authormask.embeddings._base import Embeddings
from authormask.mechanisms.earth_movers_text import EMPText
from authormask.mechanisms.exponential import EXACT_SAMPLER_GAMMA
from authormask.mechanisms.mahalanobis import MahalanobisMechanism, check_regularization
from authormask.mechanisms.vocabulary_exponential import (
    TEM_BETA,
    SanTextMechanism,
    TruncatedExponentialMechanism,
    distance_relative_error,
)
from authormask.text.prepare import TextPreparer

__all__ = ["CARVALHO2021", "XU2020", "YUE2021", "MahalanobisText", "SanText", "TEMText"]

XU2020 = (
    "Xu, Aggarwal, Feyisetan & Teissier, A Differentially Private Text Perturbation Method Using "
    "a Regularized Mahalanobis Metric, PrivateNLP 2020: Algorithm 1 (regularized Mahalanobis "
    "norm, elliptical noise) and its epsilon*d_R metric-DP theorem"
)
CARVALHO2021 = (
    "Carvalho, Vasiloudis, Feyisetan & Wang, TEM: High Utility Metric Differential Privacy on "
    "Text, arXiv 2107.07928 (SDM 2023): Algorithm 1 (truncated exponential mechanism, Gumbel "
    "scale 2/epsilon, bottom score -gamma + 2 ln|V \\ L_w|/epsilon) and its epsilon*d "
    "metric-DP theorem"
)
YUE2021 = (
    "Yue, Du, Wang, Li, Sun & Chow, Differential Privacy for Text Analytics via Natural Text "
    "Sanitization, Findings of ACL-IJCNLP 2021: SANTEXT, Pr[y | x] proportional to "
    "exp(-epsilon * d_euc(x, y) / 2), and its epsilon*d_euc metric local DP theorem"
)

# --- release-layer mechanisms (in place, like emp-text) -----------------------------------------

_SKELETON_NOTE = (
    "as in emp-text, stopwords and punctuation are the released skeleton and only content "
    "words are replaced (the paper replaces every word of its vocabulary: --stopwords none "
    "replaces every word that has a vector)"
)
_SAMPLER_NOTE = (
    "exact exponential-mechanism sampler (every word reachable, each probability within "
    f"exp(+-{upper(EXACT_SAMPLER_GAMMA)}) of the ideal one) on Euclidean distances certified to "
    "a relative error of {rho} (one float64 product screen; near pairs recomputed from the "
    "differences)"
)


class MahalanobisText(EMPText):
    """``mahalanobis``: :class:`MahalanobisMechanism` applied in place to every content word.

    Guarantee per word: ``epsilon * d_R`` (Xu et al. 2020); between two texts with the same
    skeleton, ``epsilon * sum_i d_R(v_i, v'_i)`` (sequential composition over positions).

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per word.
    preparer
        Tokenising, stopwords and unknown words.
    stopwords_description
        The public description of the stopword list.
    regularization
        lambda, in [0, 1] (:class:`MahalanobisMechanism`).
    """

    name = "mahalanobis"
    title = (
        "Mahalanobis mechanism: elliptical noise Y * Sigma_lambda^(1/2) * X on word vectors "
        "(Y ~ Gamma(n, 1/epsilon), X uniform on the unit sphere), snapped to the Euclidean-"
        "nearest vocabulary word"
    )
    reference = XU2020
    floating_point = (
        "the noisy vector is never released, only its nearest vocabulary word (certified-exact "
        "search); the Gamma radius is an exact sum of n unbounded Exp(1) draws (no cap); the "
        "guarantee holds exactly for the metric ||S^-1 (x - y)|| of the float64 square root S "
        "of Sigma_lambda used (S S = Sigma_lambda up to rounding of its eigendecomposition, "
        "relative ~1e-15); float64 rounding of the noisy vector can only move outputs whose "
        "noisy vector lies that close to a boundary between two words' cells"
    )

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        regularization: float = DEFAULT_REGULARIZATION,
    ) -> None:
        self.regularization = check_regularization(regularization)
        super().__init__(
            embeddings=embeddings,
            epsilon=epsilon,
            preparer=preparer,
            stopwords_description=stopwords_description,
        )

    def _make_kernel(self) -> MahalanobisMechanism:
        return MahalanobisMechanism(
            self.embeddings, epsilon=self.epsilon, regularization=self.regularization
        )

    def _unit(self) -> str:
        e = self.embeddings.identity
        return (
            f"per word (regularized Mahalanobis distance d_R between {e.dimension}-d word "
            f"vectors of {e.name}, lambda={exact(self.regularization)})"
        )

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement of ``mahalanobis``: epsilon*d_R per word.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps, lam = exact(self.epsilon), self.regularization
        euclid = (
            f"; every eigenvalue of Sigma_lambda is at least 1 - lambda = {exact(1.0 - lam)}, "
            f"so this is also {upper(self.epsilon / math.sqrt(1.0 - lam))}*d_2-privacy in the "
            "Euclidean distance d_2"
            if lam < 1.0
            else ""
        )
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{eps}*d_R-privacy per word (Xu et al., Algorithm 1 and its theorem): for any "
                f"two words w, w' and any output y, P[y | w] <= exp({eps} * d_R(w, w')) * "
                "P[y | w'], d_R(x, y) = sqrt((x - y)^T Sigma_lambda^-1 (x - y)), "
                f"Sigma_lambda = {exact(lam)}*Sigma + {exact(1.0 - lam)}*I, Sigma the "
                f"covariance of the K={len(self.embeddings)} vocabulary vectors scaled to trace "
                f"n={self.embeddings.dimension}; between texts v, v' with the same skeleton the "
                f"per-word bounds add up{euclid}"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {eps} * sum over content positions i of d_R(v_i, v'_i)"
            ),
            parameters={
                "content words": "every content position, perturbed in place",
                "lambda": f"{exact(lam)} (regularization: Sigma_lambda = lambda*Sigma + "
                "(1 - lambda)*I; 0 is Earth Mover's Laplace noise)",
            },
            caveats=(_SKELETON_NOTE,),
        )


class TEMText(EMPText):
    """``tem``: :class:`TruncatedExponentialMechanism` applied in place to every content word.

    Guarantee per word: ``epsilon * min(d, gamma)`` (Carvalho et al.: ``epsilon * d``); between
    two texts with the same skeleton, the sum over content positions.

    Parameters
    ----------
    embeddings
        The vocabulary and its vectors.
    epsilon
        Per word.
    preparer
        Tokenising, stopwords and unknown words.
    stopwords_description
        The public description of the stopword list.
    gamma
        The truncation threshold, > 0; None: :func:`tem_default_gamma`.
    """

    name = "tem"
    title = (
        "TEM, truncated exponential mechanism: words within Euclidean distance gamma scored "
        "-d, the others sharing one bottom element scored -gamma + 2 ln|V \\ L_w|/epsilon, the "
        "argmax under Gumbel(2/epsilon) noise released (drawn exactly as its law: P[y | w] "
        "proportional to exp(-epsilon * min(d(w, y), gamma) / 2))"
    )
    reference = CARVALHO2021

    def __init__(
        self,
        *,
        embeddings: Embeddings,
        epsilon: float,
        preparer: TextPreparer,
        stopwords_description: str,
        gamma: float | None = None,
    ) -> None:
        self._gamma = gamma
        super().__init__(
            embeddings=embeddings,
            epsilon=epsilon,
            preparer=preparer,
            stopwords_description=stopwords_description,
        )

    def _make_kernel(self) -> TruncatedExponentialMechanism:
        return TruncatedExponentialMechanism(
            self.embeddings, epsilon=self.epsilon, gamma=self._gamma
        )

    @property
    def gamma(self) -> float:
        return float(self.kernel.gamma)

    @property
    def floating_point(self) -> str:  # type: ignore[override]
        rho = distance_relative_error(self.embeddings.dimension)
        return (
            _SAMPLER_NOTE.format(rho=upper(rho))
            + f"; one word is at most epsilon*min(d, gamma) + {upper(self.kernel.slack())} "
            "private as implemented; Algorithm 1's floating-point Gumbel noise is not drawn"
        )

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement of ``tem``: epsilon*min(d, gamma) per word.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps, g = exact(self.epsilon), exact(self.gamma)
        how = (
            "(2/epsilon) * ln((1 - beta)(K - 1)/beta) rounded up to 4 digits, beta = "
            f"{exact(TEM_BETA)}, K = {len(self.embeddings)}: the output is within gamma of the "
            "input with "
            f"probability >= {exact(1.0 - TEM_BETA)}"
            if self.kernel.gamma_from_epsilon
            else "given"
        )
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{eps}*d-privacy per word (Carvalho et al., Algorithm 1 and its theorem), in "
                f"fact {eps}*min(d, gamma): for any two words w, w' and any output y, "
                f"P[y | w] <= exp({eps} * min(d(w, w'), {g})) * P[y | w'], d the Euclidean "
                f"distance between word vectors; so any two words are at most "
                f"{upper(self.epsilon * self.gamma)}-indistinguishable (epsilon*gamma-DP per "
                "word); between texts v, v' with the same skeleton the per-word bounds add up"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {eps} * sum over content positions i of "
                f"min(d(v_i, v'_i), {g}); as implemented at most {upper(self.kernel.slack())} "
                "more per content position"
            ),
            parameters={
                "content words": "every content position, perturbed in place",
                "gamma": f"{g} ({how})",
            },
            caveats=(_SKELETON_NOTE,),
        )


class SanText(EMPText):
    """``santext``: :class:`SanTextMechanism` applied in place to every content word.

    Guarantee per word: ``epsilon * d_euc`` (Yue et al. 2021); between two texts with the same
    skeleton, the sum over content positions.
    """

    name = "santext"
    title = (
        "SanText: every content word replaced by a vocabulary word y drawn with probability "
        "proportional to exp(-epsilon * d_euc(x, y) / 2) (exponential mechanism over Euclidean "
        "distances of word vectors)"
    )
    reference = YUE2021

    def _make_kernel(self) -> SanTextMechanism:
        return SanTextMechanism(self.embeddings, epsilon=self.epsilon)

    @property
    def floating_point(self) -> str:  # type: ignore[override]
        rho = distance_relative_error(self.embeddings.dimension)
        return (
            _SAMPLER_NOTE.format(rho=upper(rho))
            + f"; one word is at most epsilon*d + {upper(self.kernel.slack())} private as "
            "implemented"
        )

    def statement(self, *, seeded: bool) -> PrivacyStatement:
        """The statement of ``santext``: epsilon*d_euc per word.

        Parameters
        ----------
        seeded
            Whether the release is seeded (the statement says so, never the seed).

        Returns
        -------
        PrivacyStatement
            The statement.
        """
        eps = exact(self.epsilon)
        diameter = upper(self.kernel.diameter)
        return self._text_statement(
            seeded=seeded,
            guarantee=(
                f"{eps}*d_euc-privacy per word (Yue et al., SANTEXT and its theorem): for any "
                f"two words w, w' and any output y, P[y | w] <= exp({eps} * d_euc(w, w')) * "
                "P[y | w'], d_euc the Euclidean distance between word vectors; every distance "
                f"is at most D <= {diameter}, so any two words are at most "
                f"{upper(self.epsilon * self.kernel.diameter)}-indistinguishable; between texts "
                "v, v' with the same skeleton the per-word bounds add up"
            ),
            document_bound=(
                f"epsilon_doc(v, v') = {eps} * sum over content positions i of "
                f"d_euc(v_i, v'_i); as implemented at most {upper(self.kernel.slack())} more per "
                "content position"
            ),
            parameters={"content words": "every content position, perturbed in place"},
            caveats=(_SKELETON_NOTE,),
        )
