"""What a front end gives a mechanism besides the user's parameters, read from the mechanism's
spec (issue 48): each parameter that declares a resource (:attr:`~authormask.core.specs.
Parameter.resource`, one of :data:`~authormask.core.specs.RESOURCES`) gets the front end's
value of that resource, and no other parameter gets anything. One function,
:func:`resource_parameters`, is how the command line, the page, the evaluations and the audit
decide what to pass; none reads a parameter's name for it.

The rules, from the declarations alone:

* ``embeddings`` and ``vocabulary``: the front end's word vectors and how many of their words
  are kept, to every parameter that declares them;
* ``model``: where the spec requires one (:attr:`~authormask.core.specs.MechanismSpec.
  model_kind`), the front end's model of that kind (missing: the caller's one-line error);
  where it only may take one, the front end's model of words (:attr:`Resources.words_model`),
  whose output vocabulary then replaces the embeddings (``random-r``): the embeddings and the
  vocabulary are not given;
* ``cache``: the front end's cache folder.

A resource the front end does not have (None) is not given: the mechanism's default applies. A
parameter the user gave (``given``) is never overridden.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from authormask.core.specs import MechanismSpec

__all__ = ["Resources", "missing_model", "resource_parameters"]

#: a resource the front end does not set (:class:`Resources`): the mechanism's default applies
UNSET: Any = object()


@dataclass(frozen=True)
class Resources:
    """The resources a front end holds (:data:`~authormask.core.specs.RESOURCES`).

    Attributes
    ----------
    embeddings
        The word vectors (a packaged name, a file, or a loaded ``Embeddings``), or None.
    vocabulary
        How many of their most frequent words are kept (None: all of a loaded object's), or
        :data:`UNSET` (the mechanism's default).
    models
        The trained models by kind (``"reward"``: ER-AE's, ``"plain"``: AE-DP's), given to a
        mechanism that requires a model of that kind.
    words_model
        The model whose output vocabulary a mechanism that may take a model draws from, or None
        (it then takes the embeddings).
    cache
        The cache folder, or None.
    """

    embeddings: Any = None
    vocabulary: Any = UNSET
    models: Mapping[str, Any] = field(default_factory=dict)
    words_model: Any = None
    cache: Any = None


def missing_model(spec: MechanismSpec, resources: Resources) -> str | None:
    """The kind of the model ``spec``'s mechanism requires and ``resources`` lacks, or None.

    Parameters
    ----------
    spec
        The mechanism's spec.
    resources
        What the front end holds.

    Returns
    -------
    str | None
        The missing model's kind, or None when nothing required is missing.
    """
    p = spec.resource_parameter("model")
    if p is None or not p.required or spec.model_kind is None:
        return None
    return spec.model_kind if resources.models.get(spec.model_kind) is None else None


def resource_parameters(
    spec: MechanismSpec, resources: Resources, *, given: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    """The parameters of ``spec``'s mechanism that ``resources`` supply (module rules).

    Parameters
    ----------
    spec
        The mechanism's spec.
    resources
        What the front end holds.
    given
        The parameters the user gave: never overridden, and a model given there replaces the
        embeddings as a model from ``resources`` does.

    Returns
    -------
    dict[str, Any]
        Parameter name -> value, for the parameters that declare a resource the front end has.
    """
    given = {} if given is None else given
    out: dict[str, Any] = {}
    model_p = spec.resource_parameter("model")
    words_from_model = False
    if model_p is not None:
        if model_p.required:
            model = resources.models.get(spec.model_kind or "")
        else:
            model = resources.words_model
        if model_p.name in given:
            words_from_model = not model_p.required and given[model_p.name] is not None
        elif model is not None:
            out[model_p.name] = model
            words_from_model = not model_p.required
    values = {
        "embeddings": resources.embeddings,
        "vocabulary": resources.vocabulary,
        "cache": resources.cache,
    }
    for p in spec.parameters:
        if p.resource not in values or p.name in given:
            continue
        if words_from_model and p.resource in ("embeddings", "vocabulary"):
            continue  # the model's output vocabulary replaces the embeddings' words
        value = values[p.resource]
        if value is UNSET or (value is None and p.resource != "vocabulary"):
            continue
        out[p.name] = value
    return out
