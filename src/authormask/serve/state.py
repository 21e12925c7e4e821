"""What ``authormask serve`` holds, loaded once at start (the embeddings, and the ER-AE / AE-DP
models given to it), and what it does with it: the mechanisms it offers, built from the
registry's specs with what it loaded, their releases and their expected change."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from authormask.exceptions import AuthormaskError, InputError

__all__ = ["DEFAULT_MAX_CHARS", "ServeSettings", "load"]

#: the largest text the server releases, by default (characters)
DEFAULT_MAX_CHARS = 1_000_000


@dataclass
class ServeSettings:
    """What ``authormask serve`` loads and how it listens.

    Attributes
    ----------
    host
        The address to listen on.
    port
        The port to listen on.
    embeddings
        The embeddings to load (a registered name or a file).
    vocab_size
        The most frequent words of the embeddings kept, or ``None`` for all.
    cache_dir
        The cache folder, or ``None`` for the default one.
    models
        Trained model folders (ER-AE, AE-DP): at most one of each kind.
    max_chars
        The longest text a request may hold, in characters.
    extra_hosts
        Host header values accepted besides ``host:port``.
    workers
        The releases run at once.
    waiting
        The releases that may wait for a worker.
    request_timeout
        The seconds a client has to send a whole request.
    keep_alive_timeout
        The seconds an idle kept-alive connection stays open.
    max_connections
        The open connections at most.
    """

    host: str = "127.0.0.1"
    port: int = 8765
    embeddings: str = "glove-6b-50d"
    vocab_size: int | None = 100_000
    cache_dir: str | None = None
    models: tuple[Path, ...] = ()
    max_chars: int = DEFAULT_MAX_CHARS
    #: Host header values accepted besides host:port (set by the CLI for localhost aliases)
    extra_hosts: tuple[str, ...] = ()
    #: releases run at once (a fixed pool of threads), and releases that may wait for one;
    #: a request beyond both is refused (503)
    workers: int = field(default_factory=lambda: max(1, min(4, os.cpu_count() or 1)))
    waiting: int = 32
    #: seconds a client has to send a whole request (its head and its body): a slower one is
    #: dropped; seconds an idle kept-alive connection stays open
    request_timeout: float = 30.0
    keep_alive_timeout: float = 5.0
    #: open connections at most (and fewer where the file-descriptor limit is lower): past it,
    #: a new connection closes the oldest one that is not in a request, or is itself closed
    max_connections: int = 200


@dataclass
class _Loaded:
    embeddings: Any
    models: dict[str, Any]
    mechanisms: OrderedDict[str, Any] = field(default_factory=OrderedDict)
    calibration: dict[tuple[str, float], float] = field(default_factory=dict)
    lock: threading.Lock = field(default_factory=threading.Lock)
    #: torch models are run one release at a time (they set torch's global thread count)
    model_lock: threading.Lock = field(default_factory=threading.Lock)


def load(settings: ServeSettings) -> _Loaded:
    """Load the embeddings and models once (at start).

    Parameters
    ----------
    settings
        What to load.

    Returns
    -------
    _Loaded
        The embeddings and the models by kind.

    Raises
    ------
    InputError
        If two models of one kind are given.
    """
    from authormask.core.factories import load_trained_model
    from authormask.embeddings import load_embeddings

    emb = load_embeddings(
        settings.embeddings,
        vocab_size=settings.vocab_size,
        cache_dir=settings.cache_dir if settings.cache_dir else "default",
    )
    models: dict[str, Any] = {}  # by kind (MechanismSpec.model_kind): "reward" or "plain"
    for path in settings.models:
        model, kind = load_trained_model(path)
        if kind in models:
            what = "with" if kind == "reward" else "without"
            raise InputError(
                f"two models trained {what} the embedding reward given (`models`); give one "
                "of each kind"
            )
        models[kind] = model
    return _Loaded(emb, models)


def _available(loaded: _Loaded) -> list[str]:
    """The mechanisms the page offers: every registered one but the baselines, which give no
    guarantee (``random-sub``), and the model mechanisms without their kind of model."""
    from authormask.core import MECHANISMS

    return [
        name
        for name, spec in MECHANISMS.items()
        if not spec.baseline and (spec.model_kind is None or spec.model_kind in loaded.models)
    ]


def _mechanism(loaded: _Loaded, name: str, params: dict[str, Any]) -> Any:
    """The mechanism ``name`` with the request's ``params`` and the server's embeddings and
    models (built once per parameter set, a few kept)."""
    from authormask.core import create_mechanism, mechanism_spec
    from authormask.core.resources import Resources, resource_parameters

    key = json.dumps([name, params], sort_keys=True)
    with loaded.lock:
        mech = loaded.mechanisms.get(key)
        if mech is not None:
            loaded.mechanisms.move_to_end(key)
            return mech
    # what the spec declares it needs, of what the server loaded; a model it may take
    # (random-r: its output vocabulary) is the server's ER-AE model
    resources = Resources(
        embeddings=loaded.embeddings,
        models=loaded.models,
        words_model=loaded.models.get("reward"),
    )
    fixed = resource_parameters(mechanism_spec(name), resources, given=params)
    mech = create_mechanism(name, **fixed, **params)
    with loaded.lock:
        loaded.mechanisms[key] = mech
        while len(loaded.mechanisms) > 16:
            loaded.mechanisms.popitem(last=False)
    return mech


def expected_change(loaded: _Loaded, name: str, epsilon: float) -> float:
    """The expected change rate of ``name`` at ``epsilon``: the share of all of a text's words
    its release replaces (:data:`authormask.evaluation.calibration.CHANGE_RATE_RULE`), on a
    running text of ordinary English, by the one estimate ``evaluate --epsilons auto`` aims at
    too (:func:`authormask.evaluation.calibration.expected_change`: exact for the token
    mechanisms, the mean of seeded releases for the others; a bag takes every content word).
    Cached."""
    from authormask.core import mechanism_spec
    from authormask.evaluation.calibration import expected_change as calibrated

    spec = mechanism_spec(name)
    key = (name, float(f"{epsilon:.3g}"))
    with loaded.lock:
        if key in loaded.calibration:
            return loaded.calibration[key]
    params: dict[str, Any] = {"epsilon": key[1]} if spec.takes_epsilon else {}
    if spec.release == "bag":  # a bag of N words: N = every content word of the text
        params["length"] = "shortest"
    mech = _mechanism(loaded, name, params)
    with _model_lock(loaded, name):
        changed = calibrated(mech)
    with loaded.lock:
        loaded.calibration[key] = changed
    return changed


def _model_lock(loaded: _Loaded, name: str) -> Any:
    """The lock of the server's models for a mechanism that runs one (one pass at a time), or
    a context that holds nothing."""
    from authormask.core import mechanism_spec

    return loaded.model_lock if mechanism_spec(name).model_kind else contextlib.nullcontext()


def _release(
    loaded: _Loaded, text: str, name: str, params: dict[str, Any], work: Callable[[int], None]
) -> dict[str, Any]:
    from authormask.accounting.plain import explain, mechanism_embeddings
    from authormask.core import release

    mech = _mechanism(loaded, name, params)
    with _model_lock(loaded, name):
        rel = release([text], mech, random_state=None, work_progress=work)
    doc = rel.documents[0]
    result: dict[str, Any] = {
        "text": doc.text,
        "statement": rel.statement.to_dict(),
        "statement_text": rel.statement.describe(),
        # the same statement in plain words, with the packaged measurement beside it
        "statement_plain": explain(rel.statement, embeddings=mechanism_embeddings(mech)),
        "figures": dict(doc.figures),
    }
    if doc.bag is not None:
        result["bag"] = doc.bag
    return result


def _total_work(loaded: _Loaded, text: str, name: str, params: dict[str, Any]) -> int:
    """The units of work a release of ``text`` does (for the progress bar): its units prepared
    from its parts, as the release prepares them (the entity recogniser reads one part at a
    time, and stops between parts when the job is cancelled)."""
    from authormask.core.sources import split_parts
    from authormask.core.stream import units_of

    mech = _mechanism(loaded, name, params)
    try:
        return sum(max(mech.units(u), 0) for u in units_of(mech, split_parts(text)))
    except AuthormaskError:
        return 0
