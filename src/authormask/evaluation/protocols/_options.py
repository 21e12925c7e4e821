"""The options of a run as every protocol's plan reads them (``authormask evaluate``'s, or a
library caller's): :class:`Options` holds each option's value by parameter name, which were
given explicitly, the engine and where a plan's lines for the reader go, and reads them the way
every protocol does (a default from the protocol's config, an option refused where it does not
apply, measures by name, rates, the target accuracy, the corpus, the embeddings, the epsilons
``auto`` calibrates). A bad option is an :class:`OptionError`, which names each option by its
parameter name between backquotes (a front end shows its own flag for it)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from authormask.core.executors import Engine
from authormask.datasets import Columns, Corpus, is_pan_folder, load_dataset
from authormask.embeddings import Embeddings, load_embeddings
from authormask.evaluation.calibration import auto_epsilons
from authormask.evaluation.protocols._common import ProtocolConfig
from authormask.evaluation.releases import check_rates, sweeps_rate
from authormask.exceptions import InvalidParameterError

__all__ = ["AUTO", "OptionError", "Options", "split_names"]

#: ``epsilons`` of a run whose epsilons are calibrated per mechanism (``--epsilons auto``)
AUTO = "auto"
#: the embeddings of a run that names none (the command's default)
DEFAULT_EMBEDDINGS = "glove-6b-50d"


class OptionError(InvalidParameterError):
    """An option that does not apply to the run asked for, or options that do not go together:
    a usage error at the command line. The message names each option by its parameter name
    between backquotes (```max_authors` does not apply ...``)."""


def split_names(value: str) -> list[str]:
    """The comma-separated names of ``value``, stripped, empty ones left out.

    >>> split_names("svm, ppm,,")
    ['svm', 'ppm']
    """
    return [v.strip() for v in value.split(",") if v.strip()]


def _nowhere(line: str) -> None:
    """Lines for the reader, when nobody reads them."""


@dataclass(frozen=True)
class Options:
    """The options of one run, as a protocol's plan reads them.

    Attributes
    ----------
    values
        Every option by parameter name (``None``: not given, and no default of the command's
        own).
    given
        The options given explicitly (an option that does not apply is refused only when
        given).
    engine
        Where a protocol that can run on a cluster runs (``None``: this process).
    echo
        Receives the lines a plan has for the reader (what it calibrated, what it will run),
        one at a time, naming options as :class:`OptionError` does: the library itself never
        prints.
    """

    values: Mapping[str, Any]
    given: frozenset[str] = frozenset()
    engine: Engine | None = None
    echo: Callable[[str], None] = field(default=_nowhere)

    def __getitem__(self, name: str) -> Any:
        return self.values.get(name)

    @property
    def quick(self) -> bool:
        """Whether the small run was asked for (``--quick``)."""
        return bool(self.values.get("quick"))

    @property
    def auto(self) -> bool:
        """Whether the epsilons are calibrated per mechanism (``epsilons`` is ``(AUTO,)``)."""
        return self.values.get("epsilons") == (AUTO,)

    def pick(self, name: str, config: type[ProtocolConfig]) -> Any:
        """Option ``name``'s value if it has one, else the default of the protocol whose config
        is ``config`` (``--quick``'s with :attr:`quick`:
        :meth:`~authormask.evaluation.protocols._common.ProtocolConfig.default`).

        Parameters
        ----------
        name
            The option's parameter name.
        config
            The config type of the protocol.

        Returns
        -------
        Any
            The value, or the default (``None`` if the protocol has none).
        """
        value = self.values.get(name)
        if value is not None:
            return value
        return config.default(name, quick=self.quick)

    def refuse(self, names: Sequence[str], reason: str) -> None:
        """Raise :class:`OptionError` if any of ``names`` was given: "```a`, `b` do not
        <reason>``".

        Parameters
        ----------
        names
            The options' parameter names.
        reason
            What they do not do, to end the message.

        Raises
        ------
        OptionError
            If any of ``names`` was given.
        """
        given = [n for n in names if n in self.given]
        if given:
            named = ", ".join(f"`{n}`" for n in given)
            raise OptionError(f"{named} {'does' if len(given) == 1 else 'do'} not {reason}")

    def mechanisms(self, default: Sequence[str]) -> tuple[str, ...]:
        """The mechanisms asked for (comma-separated), else ``default``.

        Parameters
        ----------
        default
            The protocol's default mechanisms.

        Returns
        -------
        tuple[str, ...]
            The mechanisms' names.
        """
        return tuple(split_names(self.values.get("mechanisms") or ",".join(default)))

    def measures(self, name: str, default: tuple[str, ...]) -> tuple[str, ...]:
        """Measures option ``name`` (``attackers`` or ``utilities``): ``auto`` (or not given)
        is ``default``, ``none`` no measure, else the comma-separated names.

        Parameters
        ----------
        name
            ``"attackers"`` or ``"utilities"``.
        default
            The protocol's default measures.

        Returns
        -------
        tuple[str, ...]
            The measures' names.
        """
        value = self.values.get(name)
        if value is None or value == "auto":
            return default
        if value == "none":
            return ()
        return tuple(split_names(value))

    def rates(self) -> tuple[float, ...] | None:
        """The rates of a baseline without privacy (``random-sub``), each in [0, 1], when
        ``rates`` was given (a comma-separated string, or numbers); ``None`` otherwise.

        Returns
        -------
        tuple[float, ...] | None
            The rates, or ``None``.

        Raises
        ------
        OptionError
            If a rate is not a number in [0, 1], or the rates are refused.
        """
        value = self.values.get("rates")
        if value is None:
            return None
        parts = split_names(value) if isinstance(value, str) else list(value)
        out: list[float] = []
        for part in parts:
            try:
                out.append(float(part))
            except (TypeError, ValueError):
                raise OptionError(f"`rates`: {part!r} is not a number in [0, 1]") from None
        try:
            return check_rates(out)
        except InvalidParameterError as exc:
            raise OptionError(f"`rates`: {exc}") from None

    def rate_option(self) -> dict[str, Any]:
        """``rates=`` for a config, where ``rates`` was given (else the config's default).

        Returns
        -------
        dict[str, Any]
            ``{"rates": ...}``, or ``{}``.
        """
        rates = self.rates()
        return {} if rates is None else {"rates": rates}

    def check_target(
        self, attackers: Sequence[str], utilities: Sequence[str], *, what: str = "this run"
    ) -> None:
        """Refuse a target accuracy the run cannot read: it needs attackers and a similarity or
        fastText utility (``what`` names the run in the message).

        Parameters
        ----------
        attackers
            The run's attackers.
        utilities
            The run's utility measures.
        what
            The run, in the message.

        Raises
        ------
        OptionError
            If ``target_accuracy`` was given and the run cannot read it.
        """
        if self.values.get("target_accuracy") is not None and (
            not attackers or not {"similarity", "fasttext"} & set(utilities)
        ):
            raise OptionError(
                "`target_accuracy` needs attackers and a similarity or fasttext utility measure; "
                f"{what} has attackers: {', '.join(attackers) or 'none'}; utilities: "
                f"{', '.join(utilities) or 'none'}"
            )

    def embeddings(self, config: type[ProtocolConfig]) -> Embeddings:
        """The embeddings that ``embeddings``, ``vocab_size`` (default: the protocol's) and
        ``cache_dir`` name.

        Parameters
        ----------
        config
            The config type of the protocol (for its default vocabulary size).

        Returns
        -------
        Embeddings
            The embeddings.
        """
        cache_dir = self.values.get("cache_dir")
        return load_embeddings(
            self.values.get("embeddings", DEFAULT_EMBEDDINGS),
            vocab_size=self.pick("vocab_size", config),
            cache_dir=cache_dir if cache_dir else "default",
        )

    def corpus(self, protocol: str) -> Corpus:
        """The corpus ``dataset`` names (with its ``dataset_path`` and the ``*_column`` options
        of a table), for ``protocol``, which pools a corpus: a PAN collection of several
        problems is refused (each problem is its own attribution task; pooling them would score
        another task).

        Parameters
        ----------
        protocol
            The protocol's name, for the message.

        Returns
        -------
        Corpus
            The corpus.
        """
        self._refuse_pan_collection(protocol)
        return load_dataset(
            self.values["dataset"],
            path=self.values.get("dataset_path"),
            columns=Columns(
                text=self.values.get("text_column", "text"),
                author=self.values.get("author_column", "author") or None,
                topic=self.values.get("topic_column"),
                split=self.values.get("split_column"),
                doc_id=self.values.get("id_column"),
            ),
        )

    def _refuse_pan_collection(self, protocol: str) -> None:
        root = Path(self.values["dataset"])
        info = root / "collection-info.json"
        if not is_pan_folder(root) or not info.is_file():
            return
        try:
            problems = json.loads(info.read_text(encoding="utf-8-sig"))
        except (OSError, UnicodeDecodeError, ValueError):
            return  # the loader names what is wrong with it
        if isinstance(problems, list) and len(problems) > 1:
            raise OptionError(
                f"{root} is a PAN collection of {len(problems)} problems, each its own "
                "attribution task: evaluate it with `protocol` pan or `protocol` fernandes2019 "
                f"(one author study per problem), or give one problem folder to `protocol` "
                f"{protocol}"
            )

    def auto_epsilons(
        self,
        mechanisms: Sequence[str],
        embeddings: Embeddings,
        *,
        parameters: Mapping[str, Mapping[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """Under ``epsilons`` auto, the ``epsilons=``, ``mechanism_epsilons=`` and
        ``epsilon_calibration=`` of a config: each mechanism but a rate-swept baseline calibrated
        (:func:`~authormask.evaluation.calibration.auto_epsilons`), its epsilons echoed;
        ``{}`` otherwise.

        Parameters
        ----------
        mechanisms
            The run's mechanisms.
        embeddings
            The embeddings they are built with.
        parameters
            Further registry parameters per mechanism (a model mechanism's ``model``), or
            ``None``.

        Returns
        -------
        dict[str, Any]
            The config's keyword arguments, or ``{}``.
        """
        if not self.auto:
            return {}
        chosen: dict[str, tuple[float | None, ...]] = {}
        calibration: dict[str, Any] = {}
        for m in mechanisms:
            if sweeps_rate(m):
                continue
            t0 = time.perf_counter()
            extra = dict((parameters or {}).get(m) or {})
            choice = auto_epsilons(
                m, embeddings, parameters=extra or None, seed=self.values.get("seed") or 0
            )
            chosen[m] = (None, *choice.epsilons)
            calibration[m] = choice.to_dict()
            pairs = ", ".join(
                f"{e:g} ({r:.0%})"
                for e, r in zip(choice.epsilons, choice.change_rates, strict=True)
            )
            self.echo(
                f"`epsilons` auto: {m}: {pairs} (epsilon (expected change rate); "
                f"{time.perf_counter() - t0:.0f} s)"
            )
        return {
            "epsilons": (None,),
            "mechanism_epsilons": chosen,
            "epsilon_calibration": calibration,
        }
