"""Every evaluation protocol by name (:data:`PROTOCOLS`), each an
:class:`~authormask.evaluation.protocols._interface.EvaluationProtocol`."""

from __future__ import annotations

from typing import Any

from authormask.evaluation.protocols import bo2021, fernandes2019, pan
from authormask.evaluation.protocols._interface import EvaluationProtocol

__all__ = ["PROTOCOLS"]

#: every protocol by name, in the order of ``authormask evaluate --protocol``
PROTOCOLS: dict[str, EvaluationProtocol[Any, Any, Any]] = {
    fernandes2019.PROTOCOL.name: fernandes2019.PROTOCOL,
    bo2021.PROTOCOL.name: bo2021.PROTOCOL,
    pan.PROTOCOL.name: pan.PROTOCOL,
}
