"""bo2021 as an :class:`~authormask.evaluation.protocols._interface.EvaluationProtocol`: its
inputs (:class:`ReleaseInputs`: the corpus, the embeddings and the trained models), its reading
of the options (:meth:`Bo2021.plan`) and its run (:func:`~.runner.run_release_evaluation`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from authormask.datasets import Corpus
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols._interface import EvaluationProtocol, Plan
from authormask.evaluation.protocols._options import OptionError, Options
from authormask.evaluation.protocols.bo2021.config import (
    DEFAULT_ATTACKERS,
    RELEASE_MECHANISMS,
    ReleaseConfig,
)
from authormask.evaluation.protocols.bo2021.results import ReleaseResult
from authormask.evaluation.protocols.bo2021.runner import run_release_evaluation

__all__ = ["PROTOCOL", "Bo2021", "ReleaseInputs"]


@dataclass(frozen=True)
class ReleaseInputs:
    """What a bo2021 evaluation runs on besides its config: the corpus whose test documents
    are released, the embeddings, and the trained models of the mechanisms that need one
    (``erae_model``: ER-AE's, trained with the embedding reward; ``aedp_model``: AE-DP's).

    Attributes
    ----------
    corpus
        The corpus whose test documents are released.
    embeddings
        The word embeddings of the mechanisms and classifiers that take them.
    erae_model
        ER-AE's trained model (with the embedding reward), or None.
    aedp_model
        AE-DP's trained model (without it), or None.
    """

    corpus: Corpus
    embeddings: Embeddings
    erae_model: Any = None
    aedp_model: Any = None


class Bo2021:
    """The text-release comparison of Bo et al. (2021, Table 1 and Figure 2)
    (:mod:`authormask.evaluation.protocols.bo2021`)."""

    name: str = "bo2021"
    Config: type[ReleaseConfig] = ReleaseConfig
    results: tuple[type, ...] = (ReleaseResult,)
    progress_units: tuple[str, str] = ("releasing", "document")

    def plan(self, options: Options) -> Plan[ReleaseConfig, ReleaseInputs]:
        """The config, the models ``erae_model`` and ``aedp_model`` name (model folders), the
        corpus and the embeddings.

        Parameters
        ----------
        options
            The options of ``authormask evaluate``.

        Returns
        -------
        Plan[ReleaseConfig, ReleaseInputs]
            The config and the inputs, loaded.

        Raises
        ------
        OptionError
            If ``epsilons`` holds ``none`` (bo2021 always measures the original text).
        """
        from authormask.models.erae import load_model  # PyTorch models: loaded when asked for

        epsilons = options.pick("epsilons", ReleaseConfig)
        em_epsilons = options.pick("em_epsilons", ReleaseConfig)
        if None in epsilons:
            raise OptionError(
                "`epsilons`: 'none' applies to `protocol` fernandes2019 only (bo2021 always "
                "measures the original text); give numbers"
            )
        config = ReleaseConfig(
            mechanisms=options.mechanisms(RELEASE_MECHANISMS),
            epsilons=epsilons,
            em_epsilons=em_epsilons,
            docs_per_author=options.pick("docs_per_author", ReleaseConfig),
            max_authors=options.pick("max_authors", ReleaseConfig),
            seed=options.pick("seed", ReleaseConfig),
            attackers=options.measures("attackers", DEFAULT_ATTACKERS),
        )
        erae = load_model(options["erae_model"]) if options["erae_model"] is not None else None
        aedp = load_model(options["aedp_model"]) if options["aedp_model"] is not None else None
        corpus = options.corpus(self.name)
        emb = options.embeddings(ReleaseConfig)
        return Plan(config, ReleaseInputs(corpus, emb, erae_model=erae, aedp_model=aedp))

    def run(
        self,
        config: ReleaseConfig,
        inputs: ReleaseInputs,
        *,
        cache_dir: str | Path | None = None,
        progress: Callable[[int], None] | None = None,
        on_total: Callable[[int], None] | None = None,
    ) -> ReleaseResult:
        """Release the test documents with every mechanism and epsilon of ``config`` and
        measure each release.

        Parameters
        ----------
        config
            What to run.
        inputs
            What to run it on.
        cache_dir
            Where releases and rows are cached (see :func:`~.runner.run_release_evaluation`).
        progress
            Called with the number of documents released and measured, after each setting.
        on_total
            Called once with the number of documents to release and measure.

        Returns
        -------
        ReleaseResult
            The rows of the table, the statements and the provenance.
        """
        return run_release_evaluation(
            inputs.corpus,
            config=config,
            embeddings=inputs.embeddings,
            erae_model=inputs.erae_model,
            aedp_model=inputs.aedp_model,
            cache_dir=cache_dir,
            progress=progress,
            on_total=on_total,
        )


#: the protocol, as :data:`authormask.evaluation.protocols.PROTOCOLS` holds it (typed as the
#: interface, so that mypy checks it implements it)
PROTOCOL: EvaluationProtocol[ReleaseConfig, ReleaseInputs, ReleaseResult] = Bo2021()
