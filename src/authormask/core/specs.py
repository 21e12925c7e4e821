"""What the registry knows of a mechanism, declared once: its public parameters
(:class:`Parameter`: typed intervals and choices, checked by :meth:`Parameter.check` at the
boundary, :func:`~authormask.core.registry.check_parameters`), its spec
(:class:`MechanismSpec`) and the parameters several mechanisms share (:data:`EPSILON`,
:data:`EMBEDDINGS`, :data:`VOCAB`, :data:`STOPWORDS`, :data:`ENTITIES`, ...).

Front ends and other packages import them from here. They are defined in
:mod:`authormask.mechanisms._spec`, below the mechanisms, because a built-in mechanism declares
its spec beside its class, as a plugin does (``docs/adding-a-mechanism.md``), and a module of
:mod:`authormask.mechanisms` imports nothing of the release layer. Imports no numpy.
"""

from __future__ import annotations

from authormask.mechanisms._spec import (
    BATCH,
    CACHE,
    CANONICAL_PARAMETERS,
    COUNT_WORDS,
    DECODER,
    DOC_DECODER,
    EMBEDDINGS,
    ENTITIES,
    EPSILON,
    EPSILON_UNITS,
    EVENT_RECOMMENDED,
    FUNCTION_WORDS,
    GUARANTEES,
    KINDS,
    MARKS,
    MAX_LENGTH,
    MODEL,
    OOV_MAP_TO,
    OUTPUT_SIZE,
    RECOMMENDED,
    RELEASES,
    RESOURCES,
    SENTENCE_RECOMMENDED,
    STOPWORDS,
    TEXT_OOV,
    TEXT_PARAMETERS,
    VOCAB,
    MechanismSpec,
    Parameter,
)

__all__ = [
    "BATCH",
    "CACHE",
    "CANONICAL_PARAMETERS",
    "COUNT_WORDS",
    "DECODER",
    "DOC_DECODER",
    "EMBEDDINGS",
    "ENTITIES",
    "EPSILON",
    "EPSILON_UNITS",
    "EVENT_RECOMMENDED",
    "FUNCTION_WORDS",
    "GUARANTEES",
    "KINDS",
    "MARKS",
    "MAX_LENGTH",
    "MODEL",
    "OOV_MAP_TO",
    "OUTPUT_SIZE",
    "RECOMMENDED",
    "RELEASES",
    "RESOURCES",
    "SENTENCE_RECOMMENDED",
    "STOPWORDS",
    "TEXT_OOV",
    "TEXT_PARAMETERS",
    "VOCAB",
    "MechanismSpec",
    "Parameter",
]
