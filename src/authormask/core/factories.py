"""What the registry wires around every mechanism it builds: the entity step
(:func:`with_entities`), and a trained model's kind for the front ends that take one
(:func:`load_trained_model`). Each built-in mechanism's own factory lies beside its spec, under
:mod:`authormask.mechanisms` (``earth_movers_spec``, ``generation_spec``, ...), as a plugin's
does. Every import of a mechanism or a loader is made when it is used, so the registry itself
stays light."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from authormask.mechanisms._base import Mechanism


def load_trained_model(path: Any) -> tuple[Any, str]:
    """A trained model (a directory of ``authormask train erae``, or a loaded model) and its
    kind, as :attr:`~authormask.core.specs.MechanismSpec.model_kind` names it: "reward"
    (trained with the embedding reward, for erae) or "plain" (without it, for ae-dp).

    Parameters
    ----------
    path
        A model directory, or a loaded model.

    Returns
    -------
    tuple[Any, str]
        The model and its kind, ``"reward"`` or ``"plain"``.
    """
    from authormask.mechanisms._loaders import trained_model

    model = trained_model(path)
    return model, "reward" if model.config.uses_reward else "plain"


def with_entities(mechanism: Mechanism, p: dict[str, Any]) -> Mechanism:
    """``mechanism`` given texts with their entities replaced as parameter ``entities`` says
    (:class:`~authormask.mechanisms.inputs.EntityInputs`; its recogniser is the packaged
    spaCy pipeline's, loaded once per process at its first use).

    Parameters
    ----------
    mechanism
        The mechanism the texts go to.
    p
        The checked parameters; ``p["entities"]`` is the entity policy.

    Returns
    -------
    Mechanism
        ``mechanism`` behind the entity step.
    """
    from authormask.mechanisms.inputs import EntityInputs

    return EntityInputs(mechanism, entities=p["entities"])
