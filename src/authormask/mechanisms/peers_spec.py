"""The peer word-level mechanisms as the registry offers them, each in place like emp-text:
mahalanobis (:class:`~authormask.mechanisms.peers.MahalanobisText`, Xu et al. 2020), tem
(:class:`~authormask.mechanisms.peers.TEMText`, Carvalho et al. 2021) and santext
(:class:`~authormask.mechanisms.peers.SanText`, Yue et al. 2021), their specs and their
factories, declared as a plugin declares its own (``docs/adding-a-mechanism.md``). Imports no
numpy: the classes are imported when a mechanism is built."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from authormask.defaults import DEFAULT_REGULARIZATION
from authormask.mechanisms import _loaders
from authormask.mechanisms._spec import ENTITIES, TEXT_PARAMETERS, MechanismSpec, Parameter

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism

__all__ = ["MAHALANOBIS", "SANTEXT", "TEM", "peer_text"]


def peer_text(name: str) -> Callable[[dict[str, Any]], Mechanism]:
    """A peer word-level mechanism of :mod:`authormask.mechanisms.peers`, in place like
    emp-text; its own parameter (``regularization``, ``gamma``) is passed when it has one.

    Parameters
    ----------
    name
        The peer's registered name: ``mahalanobis``, ``tem`` or ``santext``.

    Returns
    -------
    Callable[[dict[str, Any]], Mechanism]
        The factory: the mechanism from its checked parameters.
    """

    def factory(p: dict[str, Any]) -> Mechanism:
        from authormask.mechanisms import peers

        cls = {"mahalanobis": peers.MahalanobisText, "tem": peers.TEMText, "santext": peers.SanText}
        preparer, described = _loaders.preparer(p)
        own = {k: p[k] for k in ("regularization", "gamma") if k in p}
        mech: Mechanism = cls[name](
            embeddings=preparer.embeddings,
            epsilon=p["epsilon"],
            preparer=preparer,
            stopwords_description=described,
            **own,
        )
        return mech

    return factory


MAHALANOBIS = MechanismSpec(
    "mahalanobis",
    "Mahalanobis mechanism (Xu et al. 2020): elliptical noise shaped by the vectors' "
    "regularized covariance, every content word replaced in place",
    (
        *TEXT_PARAMETERS,
        Parameter(
            "regularization",
            "lambda in [0, 1]: the noise is shaped by lambda*Sigma + (1 - lambda)*I, "
            "Sigma the vectors' covariance scaled to trace n (0: Earth Mover's noise)",
            default=DEFAULT_REGULARIZATION,
            minimum=0.0,
            maximum=1.0,
            kind="number",
        ),
        ENTITIES,
    ),
    peer_text("mahalanobis"),
    label="Mahalanobis",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=6,
    samplers=("kernel",),
    audit="authormask.audit.by_mechanism:mahalanobis",
    help="in place like emp-text (Xu et al. 2020): elliptical noise shaped by the "
    "vectors' covariance (`regularization`).",
)

TEM = MechanismSpec(
    "tem",
    "TEM (Carvalho et al. 2021): truncated exponential mechanism over Euclidean "
    "distances, every content word replaced in place",
    (
        *TEXT_PARAMETERS,
        Parameter(
            "gamma",
            "truncation threshold (> 0): words farther than gamma all get the weight of "
            "gamma; default (2/epsilon) ln((1 - beta)(K - 1)/beta), beta = 0.001",
            default=None,
            minimum=0.0,
            exclusive_minimum=True,
            # far beyond any distance between word vectors: no truncation
            maximum=1e6,
            kind="number",
        ),
        ENTITIES,
    ),
    peer_text("tem"),
    label="TEM",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=7,
    samplers=("kernel",),
    audit="authormask.audit.by_mechanism:tem",
    help="in place like emp-text (Carvalho et al. 2021): truncated exponential mechanism "
    "(`gamma`).",
)

SANTEXT = MechanismSpec(
    "santext",
    "SanText (Yue et al. 2021): exponential mechanism over Euclidean distances of word "
    "vectors, every content word replaced in place",
    (*TEXT_PARAMETERS, ENTITIES),
    peer_text("santext"),
    label="SanText",
    release="text",
    epsilon_per="word",
    noise_parameter="epsilon",
    seed_code=8,
    samplers=("kernel",),
    audit="authormask.audit.by_mechanism:santext",
    help="in place like emp-text (Yue et al. 2021): exponential mechanism over "
    "word-vector distances.",
)
