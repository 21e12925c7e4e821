"""pan as an :class:`~authormask.evaluation.protocols._interface.EvaluationProtocol`: its inputs
(:class:`PanInputs`: the collection, the embeddings and the trained models), its reading of the
options (:meth:`Pan.plan`) and its run (:func:`~.runner.run_pan`)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from authormask.core import lineup
from authormask.core.executors import Engine
from authormask.datasets import PanCollection, is_pan_folder, read_pan_collection
from authormask.embeddings import Embeddings
from authormask.evaluation.protocols._interface import EvaluationProtocol, Plan
from authormask.evaluation.protocols._options import OptionError, Options
from authormask.evaluation.protocols.pan.config import PAN_ATTACKERS, PAN_UTILITIES, PanConfig
from authormask.evaluation.protocols.pan.results import PanResult
from authormask.evaluation.protocols.pan.runner import check_pan, mechanism_models, run_pan
from authormask.exceptions import InputError

__all__ = ["PROTOCOL", "Pan", "PanInputs"]


@dataclass(frozen=True)
class PanInputs:
    """What a PAN run runs on besides its config: the collection, the embeddings passed to
    the mechanisms that take them, where the cells are measured (``None``: here), and the
    trained models of the mechanisms that need one, as bo2021 takes them (``erae_model``:
    ER-AE's, trained with the embedding reward; ``aedp_model``: AE-DP's).

    Attributes
    ----------
    collection
        The PAN collection.
    embeddings
        The embeddings passed to the mechanisms that take them, or ``None``.
    engine
        Where the cells are measured, or ``None`` for this process.
    erae_model
        ER-AE's trained model (with the embedding reward), or ``None``.
    aedp_model
        AE-DP's trained model (without it), or ``None``.
    """

    collection: PanCollection
    embeddings: Embeddings | None = None
    engine: Engine | None = None
    erae_model: Any = None
    aedp_model: Any = None


def _model(path: Any) -> Any:
    """The trained model in folder ``path`` (PyTorch: imported only when one is named), or
    ``None``."""
    if path is None:
        return None
    from authormask.models.erae import load_model

    return load_model(path)


def similarity_texts(value: Any) -> int | None:
    """``similarity_texts``: a count >= 1, or ``all`` (``None``: every unknown text).

    >>> similarity_texts("all"), similarity_texts("12"), similarity_texts(5)
    (None, 12, 5)
    """
    if isinstance(value, int) or value is None:
        return value
    if str(value).strip().lower() == "all":
        return None
    try:
        count = int(str(value))
    except ValueError:
        count = 0
    if count < 1:
        raise OptionError(f"`similarity_texts` must be a count >= 1 or 'all', got {value!r}")
    return count


class Pan:
    """The PAN 2018-2019 cross-domain authorship attribution protocol, with obfuscation
    (:mod:`authormask.evaluation.protocols.pan`)."""

    name: str = "pan"
    Config: type[PanConfig] = PanConfig
    results: tuple[type, ...] = (PanResult,)
    progress_units: tuple[str, str] = ("measuring", "cell")

    def plan(self, options: Options) -> Plan[PanConfig, PanInputs]:
        """The config, the models ``erae_model`` and ``aedp_model`` name (model folders; a
        mechanism that needs one and has none is refused first), the collection of the PAN
        folder ``dataset`` (checked against the config before any release) and the
        embeddings; ``epsilons`` auto calibrated (a model mechanism with its model).

        Parameters
        ----------
        options
            The options of the run.

        Returns
        -------
        Plan[PanConfig, PanInputs]
            The config and the inputs.

        Raises
        ------
        InputError
            If ``dataset`` is not a PAN folder.
        OptionError
            If a mechanism needs a trained model that no option names, or a model has the
            wrong kind.
        """
        dataset = Path(options["dataset"])
        if not is_pan_folder(dataset):
            raise InputError(
                f"`protocol` pan needs a PAN 2018/2019 folder (collection-info.json or "
                f"problem-info.json); {dataset} is not one"
            )
        config = PanConfig(
            mechanisms=options.mechanisms(lineup("pan")),
            epsilons=(None,) if options.auto else options.pick("epsilons", PanConfig),
            attackers=options.measures("attackers", PAN_ATTACKERS),
            utilities=options.measures("utilities", PAN_UTILITIES),
            similarity_texts=similarity_texts(options.pick("similarity_texts", PanConfig)),
            repetitions=options.pick("repetitions", PanConfig),
            seed=options.pick("seed", PanConfig),
            length=options["length"] or "shortest",
            koppel_iterations=options.pick("koppel_iterations", PanConfig),
            entities=options.pick("entities", PanConfig),
            **options.rate_option(),
        )
        options.check_target(config.attackers, config.utilities)
        erae = _model(options["erae_model"])
        aedp = _model(options["aedp_model"])
        try:
            models = mechanism_models(config, erae_model=erae, aedp_model=aedp)
        except InputError as exc:  # a missing or mismatched model: the options' fault
            raise OptionError(str(exc)) from None
        collection = read_pan_collection(dataset)
        check_pan(collection, config)
        emb = options.embeddings(PanConfig)
        config = replace(
            config,
            **options.auto_epsilons(
                config.mechanisms, emb, parameters={m: {"model": v} for m, v in models.items()}
            ),
        )
        options.echo(
            f"{collection.name}: {len(collection.problems)} PAN problem(s); "
            f"{len(config.mechanisms)} mechanism(s) x {len(config.epsilons)} epsilon(s) x "
            f"{len(config.attackers)} attacker(s)"
        )
        if options.engine is not None and options.engine.kind != "local":
            options.echo(f"engine: {options.engine.describe()}")
        return Plan(
            config,
            PanInputs(collection, emb, engine=options.engine, erae_model=erae, aedp_model=aedp),
        )

    def run(
        self,
        config: PanConfig,
        inputs: PanInputs,
        *,
        cache_dir: str | Path | None = None,
        progress: Callable[[int], None] | None = None,
        on_total: Callable[[int], None] | None = None,
    ) -> PanResult:
        """Run ``config`` on every problem of the collection.

        Parameters
        ----------
        config
            The run's config.
        inputs
            The collection, the embeddings and the engine.
        cache_dir
            The results cache's folder, or ``None``.
        progress
            Called with the number of cells finished, or ``None``.
        on_total
            Called once, first, with the number of cells, or ``None``.

        Returns
        -------
        PanResult
            The result.
        """
        return run_pan(
            inputs.collection,
            config=config,
            embeddings=inputs.embeddings,
            cache_dir=cache_dir,
            progress=progress,
            on_total=on_total,
            engine=inputs.engine,
            erae_model=inputs.erae_model,
            aedp_model=inputs.aedp_model,
        )


#: the protocol, as :data:`authormask.evaluation.protocols.PROTOCOLS` holds it (typed as the
#: interface, so that mypy checks it implements it)
PROTOCOL: EvaluationProtocol[PanConfig, PanInputs, PanResult] = Pan()
