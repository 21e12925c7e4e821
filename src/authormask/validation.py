"""Validation of privacy parameters, in one place (diffprivlib style)."""

from __future__ import annotations

import math
from typing import Any

from authormask.exceptions import InvalidParameterError

__all__ = ["check_epsilon", "check_positive_int"]


def check_epsilon(epsilon: Any) -> float:
    """Return ``epsilon`` as a float, or raise if it is not a finite number > 0.

    >>> check_epsilon(0.5)
    0.5
    >>> check_epsilon(-1)
    Traceback (most recent call last):
    ...
    authormask.exceptions.InvalidParameterError: epsilon must be a finite number > 0, got -1
    """
    if isinstance(epsilon, bool):
        raise InvalidParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    try:
        value = float(epsilon)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"epsilon must be a finite number > 0, got {epsilon!r}"
        ) from None
    if not math.isfinite(value) or value <= 0:
        raise InvalidParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    return value


def check_positive_int(value: Any, *, name: str) -> int:
    """Return ``value`` as an int >= 1, or raise naming ``name`` and the value.

    >>> check_positive_int(3, name="length")
    3
    """
    if isinstance(value, bool):
        raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")
    if isinstance(value, int):
        as_int = value
    elif isinstance(value, float) and value.is_integer():
        as_int = int(value)
    else:
        try:
            as_int = int(str(value))
        except ValueError:
            raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}") from None
    if as_int < 1:
        raise InvalidParameterError(f"{name} must be an integer >= 1, got {value!r}")
    return as_int
